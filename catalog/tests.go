package catalog

import (
	"maps"
	"slices"
	"strings"
)

// Test is a claim test: a test function under experiments/ that decides claims and writes their
// results (for T7, the benchmark whose results benchstat reads). Tests lists every one, and is the
// one list of them: the Makefile's selections and the live run's plans are checked against it,
// cmd/matrix's runs are made from it, and claimtest.Main fails a run in which a test checked a
// claim it does not list.
type Test struct {
	Package string   // its package under experiments/: eventloop, threadpool, coldstart
	Name    string   // the test function
	Claims  []string // the IDs it decides
	// Kind is where it settles its claims: Local on this machine, in the default build; Both on
	// this machine, and with -tags lambda through the live mode's code (LIVE_CLAIMS in the
	// Makefile); Live only with -tags lambda, against the local router or Web Functions
	// (ROUTER_CLAIMS).
	Kind Kind
	// Runtimes are the kinds of runtime its verdicts concern, "node" or "go", for the runtime
	// matrix, which runs it on each version of each; where there are several, each is a subtest
	// of its own name. None for a test the matrix does not run.
	Runtimes []string
	// Functions are the languages of the Lambda function it decides its claims on
	// (FunctionLanguages), each a subtest of its own name: the same claim on the stack a user
	// ships. The runtime matrix runs each as a column of its own. None for a test whose
	// function is not a GetItem function of every language.
	Functions []string
	// EveryLanguageInTest: `make test` decides it through the stand-ins on every language of
	// Functions, which runs each language's function end to end through the live path; it
	// decides the others with Functions on Go's alone (Selections: GO_FUNCTION_ONLY_CLAIMS).
	EveryLanguageInTest bool
	// Subtests is the path of subtests below Name in which it decides its claims, in the README's
	// notation: {a,b} for each of several, <node> for each Node.js runtime the run has. Where it
	// is "" and Functions is set, the path is Functions' list ({go,rust,node,python}); where both
	// are empty, Name itself decides them. The README's claim tables show it (ReadmeTables).
	Subtests string
	// ClaimSubtests are the paths, in the notation of Subtests, of the claims it decides in
	// subtests of their own, by ID: where set for a claim, it stands in for Subtests.
	ClaimSubtests map[string]string
}

// functionLanguages are the languages of the cold-start claims' GetItem function, Go first, each
// with its name as people write it: the one list of them.
var functionLanguages = []struct{ id, name string }{
	{"go", "Go"}, {"rust", "Rust"}, {"node", "Node.js"}, {"python", "Python"},
}

// FunctionLanguages are the function languages by the names results, subtests and settings give
// them, Go first; harness/lambda/lambdazip.Languages is made from them.
var FunctionLanguages = func() []string {
	ids := make([]string, len(functionLanguages))
	for i, l := range functionLanguages {
		ids[i] = l.id
	}
	return ids
}()

// LanguageName is function language l as people write it, "Node.js" for node; a language not
// listed is named as given.
func LanguageName(l string) string {
	for _, fl := range functionLanguages {
		if fl.id == l {
			return fl.name
		}
	}
	return l
}

// The kinds of runtime a test concerns.
const (
	Node = "node" // Node.js: the probe or the lab runs on it
	Go   = "go"   // Go: the probe or the function is built with it
)

// Tests returns every claim test, by package and then as the matrix runs them. The slice is the
// caller's own.
func Tests() []Test {
	out := slices.Clone(tests)
	for i := range out {
		out[i].Claims = slices.Clone(out[i].Claims)
		out[i].Runtimes = slices.Clone(out[i].Runtimes)
		out[i].Functions = slices.Clone(out[i].Functions)
		out[i].ClaimSubtests = maps.Clone(out[i].ClaimSubtests)
	}
	return out
}

// SubtestsOf is the path of subtests below Name in which t decides claim id, in the notation of
// Subtests: its ClaimSubtests entry, else Subtests, else Functions' list; "" where Name decides it.
func (t Test) SubtestsOf(id string) string {
	if p, ok := t.ClaimSubtests[id]; ok {
		return p
	}
	if t.Subtests == "" && len(t.Functions) > 0 {
		return "{" + strings.Join(t.Functions, ",") + "}"
	}
	return t.Subtests
}

// LookupTest returns the claim test name of package pkg, and false when there is none.
func LookupTest(pkg, name string) (Test, bool) {
	for _, t := range Tests() {
		if t.Package == pkg && t.Name == name {
			return t, true
		}
	}
	return Test{}, false
}

var tests = []Test{
	{Package: "eventloop", Name: "TestPingOnlyBaseline", Claims: []string{"W1"}, Kind: Local, Runtimes: []string{Node, Go}, Subtests: "{node,go}"},
	{Package: "eventloop", Name: "TestPingWaitsBehindCPU", Claims: []string{"W2", "W3"}, Kind: Local, Runtimes: []string{Node},
		ClaimSubtests: map[string]string{"W2": "cpu=1", "W3": "cpu=2"}},
	{Package: "eventloop", Name: "TestGoPingDoesNotWait", Claims: []string{"W4", "W5"}, Kind: Local, Runtimes: []string{Go},
		ClaimSubtests: map[string]string{"W4": "cpu=1", "W5": "cpu=2"}},
	{Package: "eventloop", Name: "TestGoWaitsWithoutPreemption", Claims: []string{"W10"}, Kind: Local, Runtimes: []string{Go}},
	{Package: "eventloop", Name: "TestOffloadedCPUDoesNotStallPing", Claims: []string{"W11"}, Kind: Local, Runtimes: []string{Node}, Subtests: "mode={worker,pbkdf2}/cpu={1,2}"},
	{Package: "eventloop", Name: "TestWebPingAvoidsBusyEnvironment", Claims: []string{"W6"}, Kind: Live, Subtests: "{node,go}"},
	{Package: "eventloop", Name: "TestWebPingWaitsWhenEveryEnvironmentBusy", Claims: []string{"W7"}, Kind: Live, Subtests: "{node,go}"},
	{Package: "eventloop", Name: "TestWebTwoCPUOnOneSide", Claims: []string{"W8"}, Kind: Live},
	{Package: "eventloop", Name: "TestWebEnvIDMatchesLogstream", Claims: []string{"W9"}, Kind: Live},
	{Package: "eventloop", Name: "TestWebLowerConcurrencyFewerCoLocated", Claims: []string{"W12"}, Kind: Live},

	{Package: "threadpool", Name: "TestThreadpoolAPITable", Claims: []string{"P2", "P7"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},
	{Package: "threadpool", Name: "TestSyncBlocksLoop", Claims: []string{"P1"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},
	{Package: "threadpool", Name: "TestGzipSyncVsAsync", Claims: []string{"P9"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},
	{Package: "threadpool", Name: "TestJSONParseBlocksLoop", Claims: []string{"P8"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},
	{Package: "threadpool", Name: "TestSharedPoolInterference", Claims: []string{"P6", "P7"}, Kind: Local, Runtimes: []string{Node},
		ClaimSubtests: map[string]string{"P6": "<node>/P6", "P7": "<node>/P7"}},
	{Package: "threadpool", Name: "TestPoolSlots", Claims: []string{"P3", "P4", "P11"}, Kind: Local, Runtimes: []string{Node},
		Subtests: "<node>/{default,UV_THREADPOOL_SIZE=8,UV_THREADPOOL_SIZE=2000}"},
	{Package: "threadpool", Name: "TestPoolSizeFromInsideProgram", Claims: []string{"P5"}, Kind: Local, Runtimes: []string{Node}},
	{Package: "threadpool", Name: "TestSyncOnRequestPath", Claims: []string{"P10"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},
	{Package: "threadpool", Name: "TestPoolWaves", Claims: []string{"P3", "P4"}, Kind: Local, Runtimes: []string{Node}, Subtests: "<node>"},

	{Package: "coldstart", Name: "TestPhasesAreTheSDKsOwnConnection", Claims: []string{"T6"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages, EveryLanguageInTest: true},
	{Package: "coldstart", Name: "TestWarmupFailureDoesNotFailInit", Claims: []string{"T4"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	{Package: "coldstart", Name: "TestFirstCallDominatedByTLS", Claims: []string{"T1", "T6"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	{Package: "coldstart", Name: "TestFirstInvocationIsSlow", Claims: []string{"T2"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	{Package: "coldstart", Name: "TestWarmupRemovesHandshake", Claims: []string{"T3"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	{Package: "coldstart", Name: "TestHandshakeScalesWithCPU", Claims: []string{"T5"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	{Package: "coldstart", Name: "TestThrottleSlices", Claims: []string{"T8"}, Kind: Both, Runtimes: []string{Go}},
	{Package: "coldstart", Name: "TestInitIsNotThrottled", Claims: []string{"T9"}, Kind: Both, Runtimes: []string{Go}, Functions: FunctionLanguages},
	// T7 is a benchmark read with benchstat (`make bench`), not a verdict: the matrix leaves it out.
	{Package: "coldstart", Name: "BenchmarkTLSHandshake", Claims: []string{"T7"}, Kind: Local},
}
