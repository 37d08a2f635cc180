package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/getitem"
)

// The cold-start claims run once per language of their function, a subtest each
// (TestFirstCallDominatedByTLS/rust): the report draws one claim's languages side by side, as it
// draws a claim's runtimes, and names each by its language and stack.

// languageStacks are the stacks the four GetItem functions name in their answers, as they name
// them (functions/getitem*), with the variant each makes.
var languageStacks = []struct {
	language string
	stack    getitem.Stack
	runtime  string // Entry.Runtime of a result of the function
}{
	{"go", getitem.Stack{Language: "go", LanguageVersion: "go1.26.8", SDK: "github.com/aws/aws-sdk-go-v2/service/dynamodb", SDKVersion: "v1.43.0", TLS: "crypto/tls", TLSVersion: "go1.26.8"},
		"Go function (go1.26.8, crypto/tls, aws-sdk-go-v2/service/dynamodb v1.43.0)"},
	{"rust", getitem.Stack{Language: "rust", LanguageVersion: "rustc 1.85.0 (4d91de4e4 2025-02-17)", SDK: "hand-written DynamoDB JSON 1.0 client with SigV4 (no AWS SDK for Rust in Debian)",
		SDKVersion: "getitem-rust 0.1.0", TLS: "rustls 0.20.8 with ring 0.16.20", TLSVersion: "0.20.8"},
		"Rust function (rustc 1.85.0, rustls 0.20.8 with ring 0.16.20, hand-written DynamoDB JSON 1.0 client with SigV4)"},
	{"node", getitem.Stack{Language: "node", LanguageVersion: "v24.11.1", SDK: "@aws-sdk/client-dynamodb", SDKVersion: "3.700.0", TLS: "OpenSSL", TLSVersion: "3.0.17"},
		"Node.js function (Node.js v24.11.1, OpenSSL 3.0.17, @aws-sdk/client-dynamodb 3.700.0)"},
	{"python", getitem.Stack{Language: "python", LanguageVersion: "3.11.2", SDK: "boto3", SDKVersion: "1.34.46 (botocore 1.34.46, urllib3 2.0.7)", TLS: "OpenSSL", TLSVersion: "OpenSSL 3.0.17 1 Jul 2025"},
		"Python function (Python 3.11.2, OpenSSL 3.0.17 1 Jul 2025, boto3 1.34.46)"},
}

// coldLanguageResult is a T1 result of the function in language (languageStacks' index i), in
// mode: the 128 MB arm and its unthrottled control, one cold start each whose answers name the
// stack, and the article comparison, whose last sentence names the language.
func coldLanguageResult(t *testing.T, i int, mode string) results.Result {
	t.Helper()
	l := languageStacks[i]
	tls := 100 + 50*float64(i) // a waterfall of its own for each language
	var trials []map[string]any
	for _, arm := range []string{"128 MB", "128 MB, unthrottled"} {
		inv := coldInvocation(30, 0, coldCallJSON{TCP: 1, TLS: tls, TTFB: tls + 10, Total: tls + 12}, tls+20)
		inv["answer"].(map[string]any)["stack"] = l.stack
		trials = append(trials, map[string]any{"arm": arm, "first": inv, "second": inv})
	}
	params := map[string]any{"coldStarts": 1, "warmInvocations": 1, "arms": []map[string]any{
		{"arm": "128 MB", "variant": "cold", "memoryMB": 128}, {"arm": "128 MB, unthrottled", "variant": "cold", "memoryMB": 128, "unthrottled": true}}}
	build := map[string]any{"package": "functions/getitem-" + l.language, "language": l.language, "runtime": "provided.al2023"}
	target := map[string]any{"platform": map[string]any{}, "functions": []map[string]any{
		{"build": build, "memoryMB": 128}, {"build": build, "memoryMB": 128, "unthrottled": true}}}
	article := family.ArticleComparison{PublishedTLSMs: 745, PublishedCPUMs: 53.9, TLSMs: tls, TLSCPUMs: 7.5, ControlTLSMs: 9, ControlTLSCPUMs: 7.2,
		ExpectedTLSMs: 103.6, OtherFirstCallMs: 12, Curve: "X25519", Machine: "x86_64, AMD EPYC", ArticleArch: "arm64", PeriodMs: 20,
		Explanation: []string{"The quota, not the network, is what makes it slow at 128 MB.", "This is the " + l.language + " function's handshake."}}
	if l.language == "rust" {
		article.Roots = &getitem.Roots{When: "init", Count: 146, Ms: 3.2, CPUMs: 3.1}
	}
	summary := map[string]any{"statistic": "means", "arms": []map[string]any{}, "setup": map[string]any{"article": article}}
	return results.Result{Experiment: "TestFirstCallDominatedByTLS/" + l.language, Claims: []string{"T1"}, Family: "coldstart.phases", Mode: mode,
		Verdict:     verdict.Verdict{Outcome: verdict.Pass, Reason: "holds"},
		Environment: results.Environment{Go: "go1.26.8", CPUModel: "AMD EPYC", Cores: 2},
		Parameters:  params, Target: target, Summary: summary, Trials: trials}
}

// languageSet writes the results to a folder as the experiments do (coldstart/, or its mode's
// folder for any other mode than local) and loads it.
func languageSet(t *testing.T, rs ...results.Result) Set {
	t.Helper()
	dir := t.TempDir()
	for _, r := range rs {
		sub := filepath.Join(dir, "coldstart")
		if r.Mode != results.ModeLocal {
			sub = filepath.Join(dir, r.Mode, "coldstart")
		}
		_, err := results.Write(sub, results.FileName(r.Experiment), r)
		require.NoError(t, err)
	}
	s, err := Load(dir)
	require.NoError(t, err)
	return s
}

// waterfallRow is s's one row of T1's waterfalls.
func waterfallRow(t *testing.T, s Set) Row {
	t.Helper()
	var found []Row
	for _, r := range Rows(s) {
		assert.Empty(t, r.Errors, "row %q errors = %v; want none", r.Title, r.Errors)
		if strings.Contains(r.Title, "phase by phase") {
			found = append(found, r)
		}
	}
	require.Len(t, found, 1, "rows of T1's waterfalls = %d; want 1, every language's side by side", len(found))
	return found[0]
}

// TestColdStartLanguagesAreDrawnSideBySide: four results of T1 that differ only by their
// function's language share a Base and one row, a column per language in the catalog's order,
// each named by its language and stack, on one time axis.
func TestColdStartLanguagesAreDrawnSideBySide(t *testing.T) {
	// Written Python first: the row's order is the catalog's, not the files'.
	s := languageSet(t, coldLanguageResult(t, 3, results.ModeLocal), coldLanguageResult(t, 1, results.ModeLocal),
		coldLanguageResult(t, 0, results.ModeLocal), coldLanguageResult(t, 2, results.ModeLocal))
	for _, e := range s.Entries {
		assert.Equal(t, "TestFirstCallDominatedByTLS", e.Base(), "%s: Base = %q; want the test without its language", e.Result.Experiment, e.Base())
	}
	row := waterfallRow(t, s)
	assert.Equal(t, []string{"go", "rust", "node", "python"}, row.Languages, "row languages = %v; want the four, in the catalog's order", row.Languages)
	require.Len(t, row.Figures, 4, "figures in the row = %d; want one per language", len(row.Figures))
	for i, f := range row.Figures {
		l := languageStacks[i]
		assert.Equal(t, "local · "+l.runtime, f.Entry.Variant(), "figure %d variant = %q; want the %s function's", i+1, f.Entry.Variant(), l.language)
		assert.Equal(t, [2]int{i + 1, 1}, [2]int{f.Column, f.Line}, "%s figure at (column, line) = (%d, %d); want (%d, 1)", l.language, f.Column, f.Line, i+1)
		// One time axis for the four of the mode, the longest's: Python's cold start, 250 ms
		// of TLS + 50 ms, ends at 300 ms, and so does each language's axis, Go's 150 ms
		// among them.
		assert.Contains(t, string(f.SVG), ">300</text>", "%s waterfall's axis does not reach 300 ms; want the row's longest, Python's", l.language)
		assert.True(t, strings.HasSuffix(f.Caption, sharedAxisNote), "%s caption = %q; want it to say the axis is shared", l.language, f.Caption)
	}
	alone, err := coldPhasesCharts(Entry{Path: "go.json", Result: coldLanguageResult(t, 0, results.ModeLocal)})
	require.NoError(t, err)
	assert.NotContains(t, string(alone[0].SVG), ">300</text>", "the Go waterfall drawn alone reaches 300 ms; want its own axis, to its 150 ms")

	var h bytes.Buffer
	require.NoError(t, WriteHTML(&h, s, time.Now()))
	page := h.String()
	assert.Contains(t, page, `<div class="row languages" data-languages="go, rust, node, python" style="--columns: 4">`,
		"the page lacks the row laid out in a column per language")
	for i, l := range languageStacks {
		assert.Contains(t, page, `data-language="`+l.language+`" style="--column: `+string(rune('1'+i))+`; --line: 1"`,
			"the page does not place the %s figure in column %d", l.language, i+1)
		assert.Contains(t, page, template.HTMLEscapeString(l.runtime), "the page does not name the %s function's variant", l.language)
	}
}

// TestColdStartLanguagesKeepTheirColumnsFromModeToMode: a mode with fewer languages starts a line
// of its own, its figures under their languages' in the mode before.
func TestColdStartLanguagesKeepTheirColumnsFromModeToMode(t *testing.T) {
	s := languageSet(t, coldLanguageResult(t, 0, results.ModeLocal), coldLanguageResult(t, 1, results.ModeLocal),
		coldLanguageResult(t, 3, results.ModeLocal), coldLanguageResult(t, 3, results.ModeLiveStandIn))
	row := waterfallRow(t, s)
	assert.Equal(t, []string{"go", "rust", "python"}, row.Languages, "row languages = %v; want those with a result", row.Languages)
	var got []string
	for _, f := range row.Figures {
		got = append(got, f.Entry.Result.Mode+" "+f.Entry.FunctionLanguage()+" "+string(rune('0'+f.Column))+","+string(rune('0'+f.Line)))
	}
	want := []string{"local go 1,1", "local rust 2,1", "local python 3,1", "live-standin python 3,2"}
	assert.Equal(t, want, got, "figures (mode language column,line) = %v; want %v", got, want)
	// Each mode's axis is its own: the local ones share Python's, and the one live-standin
	// figure keeps its own, drawn alone.
	require.Len(t, row.Figures, 4)
	assert.Contains(t, string(row.Figures[0].SVG), ">300</text>", "the local Go waterfall's axis does not reach 300 ms; want local Python's")
	assert.True(t, strings.HasSuffix(row.Figures[0].Caption, sharedAxisNote), "local Go caption = %q; want it to say the axis is shared", row.Figures[0].Caption)
	assert.NotContains(t, row.Figures[3].Caption, sharedAxisNote, "the live-standin Python caption says its axis is shared; want it alone in its mode")
}

// TestRuntimeSubtestsOutsideColdStartKeepTheirBase: W1's probe on Node and on Go are subtests
// node and go too, but results of their own, not one claim's languages: their Base, runtime and
// variant stay what they were, and a cold-start result made before functions had languages is
// still Go's.
func TestRuntimeSubtestsOutsideColdStartKeepTheirBase(t *testing.T) {
	env := results.Environment{Go: "go1.26.8", Node: "v24.22.3"}
	for _, c := range []struct {
		runtime, base, variant string
	}{
		{"node", "TestWebPingAvoidsBusyEnvironment/node", "local-router · Node v24.22.3"},
		{"go", "TestWebPingAvoidsBusyEnvironment/go", "local-router · Go 1.26.8"},
	} {
		e := Entry{Result: results.Result{Experiment: "TestWebPingAvoidsBusyEnvironment/" + c.runtime, Family: "eventloop.routing", Mode: results.ModeLocalRouter,
			Environment: env, Target: json.RawMessage(`{"runtime":"` + c.runtime + `"}`)}}
		assert.Equal(t, c.base, e.Base(), "W1 on %s: Base = %q; want %q", c.runtime, e.Base(), c.base)
		assert.Equal(t, c.variant, e.Variant(), "W1 on %s: Variant = %q; want %q", c.runtime, e.Variant(), c.variant)
		assert.Empty(t, e.FunctionLanguage(), "W1 on %s: FunctionLanguage = %q; want none", c.runtime, e.FunctionLanguage())
	}

	// The samples: W1's on Node, and T4 and T6 from before functions had languages.
	s, err := Load(filepath.Join("testdata", "results"))
	require.NoError(t, err)
	want := map[string][2]string{ // Base and Variant by experiment
		"TestWebPingAvoidsBusyEnvironment/node": {"TestWebPingAvoidsBusyEnvironment/node", "local-router · Node v24.22.3"},
		"TestPhasesAreTheSDKsOwnConnection":     {"TestPhasesAreTheSDKsOwnConnection", "live-standin · Go 1.26.8"},
		"TestWarmupFailureDoesNotFailInit":      {"TestWarmupFailureDoesNotFailInit", "live-standin · Go 1.26.8"},
		"TestPoolSlots/node24/default":          {"TestPoolSlots/default", "local · Node v24.22.3"},
		"TestSyncBlocksLoop/node24":             {"TestSyncBlocksLoop", "local · Node v24.22.3"},
		"TestPingWaitsBehindCPU/cpu=1":          {"TestPingWaitsBehindCPU/cpu=1", "local · Node v24.22.3"},
	}
	for _, e := range s.Entries {
		w, ok := want[e.Result.Experiment]
		if !assert.True(t, ok, "%s: experiment %q; want one of the samples this test knows", e.Path, e.Result.Experiment) {
			continue
		}
		assert.Equal(t, w[0], e.Base(), "%s: Base = %q; want %q", e.Path, e.Base(), w[0])
		assert.Equal(t, w[1], e.Variant(), "%s: Variant = %q; want %q", e.Path, e.Variant(), w[1])
	}
	assert.Len(t, s.Entries, len(want), "sample results = %d; want the %d this test knows", len(s.Entries), len(want))
	for _, r := range Rows(s) {
		assert.Empty(t, r.Languages, "row %q languages = %v; want none (no sample is a function's language)", r.Title, r.Languages)
	}
}

// TestArticleComparisonIsShownOnThePageAndInMarkdown: T1's handshake beside the article's 745 ms,
// with the result's explanation, is under each language's waterfall on the page and in the
// Markdown summary's section of its own, in the catalog's order of the languages.
func TestArticleComparisonIsShownOnThePageAndInMarkdown(t *testing.T) {
	s := languageSet(t, coldLanguageResult(t, 0, results.ModeLocal), coldLanguageResult(t, 1, results.ModeLocal),
		coldLanguageResult(t, 2, results.ModeLocal), coldLanguageResult(t, 3, results.ModeLocal))
	rust := coldLanguageResult(t, 1, results.ModeLocal)
	explanation := rust.Summary.(map[string]any)["setup"].(map[string]any)["article"].(family.ArticleComparison).Explanation

	var h bytes.Buffer
	require.NoError(t, WriteHTML(&h, s, time.Now()))
	page := h.String()
	for _, want := range []string{
		"<caption>The handshake at 128 MB beside the article&#39;s</caption>",
		"<tr><th>the article&#39;s (mean)</th><td>745 ms</td><td>at most 53.9 ms</td></tr>",
		"<tr><th>this run&#39;s (mean)</th><td>150 ms</td><td>7.5 ms</td></tr>",
		"<tr><th>146 roots, loaded at init (not in the handshake)</th><td>3.2 ms</td><td>3.1 ms</td></tr>",
		"<p>Key exchange X25519; measured on x86_64, AMD EPYC, the article&#39;s on arm64; the CPU model&#39;s period 20.0 ms.</p>",
	} {
		assert.Contains(t, page, want, "the page lacks the article comparison's %q", want)
	}
	for _, sentence := range explanation {
		assert.Contains(t, page, "<li>"+template.HTMLEscapeString(sentence)+"</li>", "the page lacks the explanation's sentence %q", sentence)
	}
	assert.Equal(t, 4, strings.Count(page, `<div class="figure-table">`), "article tables on the page = %d; want one under each language's waterfall", strings.Count(page, `<div class="figure-table">`))

	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, s))
	md := b.String()
	for _, want := range []string{
		"\n## The handshake at 128 MB beside the article's (T1)\n",
		"\n### `TestFirstCallDominatedByTLS/rust` · local · " + languageStacks[1].runtime + "\n",
		"| the article's (mean) | 745 ms | at most 53.9 ms |\n",
		"| this run's (mean) | 150 ms | 7.5 ms |\n",
		"| roots | in the handshake | in the handshake |\n", // the Go function's: no roots timed apart
	} {
		assert.Contains(t, md, want, "the Markdown lacks the article comparison's %q", want)
	}
	for _, sentence := range explanation {
		assert.Contains(t, md, "\n- "+sentence+"\n", "the Markdown lacks the explanation's sentence %q", sentence)
	}
	assert.Equal(t, 1, strings.Count(md, "## The handshake at 128 MB"), "article headings in the Markdown = %d; want one, over both languages' tables", strings.Count(md, "## The handshake at 128 MB"))
	var at []int
	for _, l := range languageStacks {
		at = append(at, strings.Index(md, "\n### `TestFirstCallDominatedByTLS/"+l.language+"`"))
	}
	assert.True(t, at[0] >= 0 && slices.IsSorted(at), "the Markdown's tables at %v (Go, Rust, Node.js, Python); want each, in the catalog's order", at)
}

// TestFunctionRuntimeNamesTheStack: each part of the stack is cut to what tells one stack from
// another, and a result without a stack is named by its language alone.
func TestFunctionRuntimeNamesTheStack(t *testing.T) {
	for _, l := range languageStacks {
		got := functionRuntime(l.language, &l.stack)
		assert.Equal(t, l.runtime, got, "functionRuntime(%s) = %q; want %q", l.language, got, l.runtime)
	}
	unknown := getitem.Stack{Language: "go", LanguageVersion: "go1.26.8", SDK: "github.com/aws/aws-sdk-go-v2/service/dynamodb", SDKVersion: "unknown", TLS: "crypto/tls", TLSVersion: "go1.26.8"}
	for _, c := range []struct {
		language string
		stack    *getitem.Stack
		want     string
	}{
		{"rust", nil, "Rust function"},
		{"go", &unknown, "Go function (go1.26.8, crypto/tls, aws-sdk-go-v2/service/dynamodb)"},
		{"java", &getitem.Stack{}, "java function"},
	} {
		got := functionRuntime(c.language, c.stack)
		assert.Equal(t, c.want, got, "functionRuntime(%s, %+v) = %q; want %q", c.language, c.stack, got, c.want)
	}

	// T8's busy loop answers with no stack: its Go function is named by the result's Go. T4's
	// trials keep their answers under whileDown and afterUp.
	throttle := Entry{Result: results.Result{Experiment: "TestCPUIsThrottled", Family: "coldstart.throttle", Environment: results.Environment{Go: "go1.26.8"},
		Target: json.RawMessage(`{"platform":{},"functions":[{"build":{"package":"functions/throttle","language":"go"},"memoryMB":128}]}`),
		Trials: json.RawMessage(`[{"memoryMB":128,"loops":[]}]`)}}
	assert.Equal(t, "Go function (go1.26.8)", throttle.Runtime(), "T8's Go function's Runtime = %q; want it named by the result's Go", throttle.Runtime())
	stack, err := json.Marshal(languageStacks[2].stack)
	require.NoError(t, err)
	outage := Entry{Result: results.Result{Experiment: "TestWarmupFailureDoesNotFailInit/node", Family: "coldstart.warmupFailure",
		Target: json.RawMessage(`{"platform":{}}`), Trials: json.RawMessage(`[{"how":"refused","whileDown":{"status":502,"answer":{}},"afterUp":{"status":200,"answer":{"stack":` + string(stack) + `}}}]`)}}
	assert.Equal(t, languageStacks[2].runtime, outage.Runtime(), "T4's Runtime = %q; want the Node.js function's, from its subtest and its answer after DynamoDB was back", outage.Runtime())
	assert.Equal(t, "TestWarmupFailureDoesNotFailInit", outage.Base(), "T4 on Node.js: Base = %q; want the test without its language", outage.Base())
}

// TestCompareKeepsAColdStartClaimsLanguagesApart: a language's result pairs with the same
// language's, and a result made before functions had languages with the Go function's, though
// every language's shares its Base.
func TestCompareKeepsAColdStartClaimsLanguagesApart(t *testing.T) {
	before := coldLanguageResult(t, 0, results.ModeLocal)
	before.Experiment = "TestFirstCallDominatedByTLS"
	before.Target = map[string]any{"platform": map[string]any{}} // no functions recorded: the Go function's
	old := languageSet(t, before, coldLanguageResult(t, 1, results.ModeLocal))
	new := languageSet(t, coldLanguageResult(t, 2, results.ModeLocal), coldLanguageResult(t, 0, results.ModeLocal))
	c := Compare(old, new)
	var pairs, onlyOld, onlyNew []string
	for _, p := range c.Pairs {
		pairs = append(pairs, p.Old.Result.Experiment+" → "+p.New.Result.Experiment)
	}
	for _, e := range c.OnlyOld {
		onlyOld = append(onlyOld, e.Result.Experiment)
	}
	for _, e := range c.OnlyNew {
		onlyNew = append(onlyNew, e.Result.Experiment)
	}
	assert.Equal(t, []string{"TestFirstCallDominatedByTLS → TestFirstCallDominatedByTLS/go"}, pairs, "pairs = %v; want the Go function's result before languages with Go's", pairs)
	assert.Equal(t, []string{"TestFirstCallDominatedByTLS/rust"}, onlyOld, "old only = %v; want Rust's, which no Node.js result stands for", onlyOld)
	assert.Equal(t, []string{"TestFirstCallDominatedByTLS/node"}, onlyNew, "new only = %v; want Node.js's", onlyNew)
}

// TestSummaryNamesEachFunctionsRuntime: a cold-start result's row in the summary gives the
// runtime its function ran on (Entry.Runtime), not the Go that ran the test.
func TestSummaryNamesEachFunctionsRuntime(t *testing.T) {
	var s Set
	for i := range languageStacks {
		r := coldLanguageResult(t, i, "local")
		r.Environment.Go = "go1.26.8"
		s.Entries = append(s.Entries, Entry{Path: "coldstart/" + languageStacks[i].language + ".json", Result: r})
	}
	for i, row := range Summaries(s) {
		assert.Equal(t, languageStacks[i].runtime, row.Runtimes, "summary of the %s function's T1: runtimes = %q; want %q", languageStacks[i].language, row.Runtimes, languageStacks[i].runtime)
	}
}
