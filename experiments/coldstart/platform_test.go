package coldstart

// What the cold-start claims run against: "a Lambda function", as Lambda's API offers one. A
// lambdaPlatform creates functions (CreateFunction, waited for until active); a function is
// cold-started (an update of its configuration, waited for, so that the next Invoke gets a new
// execution environment), invoked (Invoke with the log's tail, whose REPORT is the evidence) and
// deleted (DeleteFunction). The local platform (standins_test.go) runs the function under the
// Runtime Interface Emulator with the model of Lambda's CPU; the live one (live_test.go, -tags lambda)
// implements the same interface on AWS, so that no claim body changes between them.
//
// Below, what the claims T1 to T6 read of functions/getitem, on any platform: its answer, an
// invocation as a result keeps it, and a cold start (a new execution environment, its first
// invocation and warm ones).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/getitem"
)

// lambdaPlatform is where a claim's functions run.
type lambdaPlatform interface {
	claimtest.Target // Mode: "local" or "live"
	// Language is the language of the GetItem function the platform runs for the claims
	// (functionCode's zero Package).
	Language() lambdazip.Language
	// Settings are the settings the platform was started with, the run's (claimtest.Settings) or, in
	// a broken case, those claimtest.CatchBroken hands it: the claims take their cold starts
	// from them, and their CPUPeriod is the CFS period of the platform's CPU model, one of
	// which passes between a cold start's invocations (pause).
	Settings() settings.Settings
	// Create creates a function as cfg says, as a result records it; it is deleted when t ends,
	// if not before. Where cfg reads DynamoDB, the platform provides the claims' table with its
	// item, and the endpoint, region and credentials in the function's environment; an
	// unthrottled function is 3008 MB on Lambda (live_test.go's unthrottledMB). A platform that
	// cannot give cfg what it asks (a CPU share where no quota can be made) skips t, saying why.
	Create(t *testing.T, cfg family.Function) function
}

// functionCode is the code a claim asks a function to run: the build a result records
// (family.Build), and, for a variant broken on purpose, what it breaks. Package "" is the GetItem
// function in the platform's language (in), so that one claim body serves every language.
type functionCode struct {
	family.Build
	// Broken says what Tags breaks, as a sensitivity result records it (in its broken); Tags is
	// one of functions.Broken, which every GetItem function knows.
	Broken string
}

// The functions the claims run.
var (
	// getItemFunction is the GetItem function in the platform's language.
	getItemFunction = functionCode{}
	// throttleFunc is T8's busy loop.
	throttleFunc = functionCode{Build: family.Build{Package: "functions/throttle", Language: lambdazip.Go}}
)

// in is b on p: the GetItem function in p's language where b names no folder.
func (b functionCode) in(p lambdaPlatform) functionCode { return b.inLanguage(p.Language()) }

// inLanguage is b with the GetItem function in l where b names no folder, and the runtime of
// its language.
func (b functionCode) inLanguage(l lambdazip.Language) functionCode {
	if b.Package == "" {
		b.Language = l
		pkg, err := functions.GetItem(b.Language)
		if err != nil {
			panic(err) // the platforms' languages are lambdazip.Languages, each with a GetItem
		}
		b.Package = pkg
	}
	b.Runtime = b.Language.Runtime()
	return b
}

// described is what b breaks, with the folder it was built from; "" for a build not broken.
func (b functionCode) described() string {
	if b.Broken == "" {
		return ""
	}
	return b.Package + " " + b.Broken
}

// brokenBuild is the GetItem function built with tag (one of functions.Broken), which breaks
// what: a sensitivity case's function, in the platform's language.
func brokenBuild(tag, what string) functionCode {
	return functionCode{Build: family.Build{Tags: tag}, Broken: "-tags " + tag + ": " + what}
}

// function is one created function.
type function interface {
	// ColdStart makes the next Invoke run in a new execution environment.
	ColdStart(ctx context.Context) error
	// Invoke sends event and returns the function's answer with its REPORT. A function that
	// failed (its Init, a crash) is an invocation with Error set, not an error: an error is an
	// invoke that got no answer at all.
	Invoke(ctx context.Context, event []byte) (invocation, error)
	// Delete deletes the function and ends its execution environment.
	Delete() error
	// Timeout is the function's timeout: the platform ends an invocation that outlasts it.
	Timeout() time.Duration
}

// invocation is one invoke's outcome, as Lambda's Invoke API returns it.
type invocation struct {
	// Status is the invoke's HTTP status (Lambda's StatusCode).
	Status int
	// Payload is the function's answer.
	Payload []byte
	// Error is the platform's word that the function failed this invocation (Lambda's
	// FunctionError; the emulator's error line), or "".
	Error string
	// Report is the invocation's REPORT record (on Lambda, from the log's tail): Init Duration,
	// Duration, Billed Duration, Memory Size and Max Memory Used.
	Report lambdareport.Report
	// ClientMs is the invoke's round trip as the caller saw it.
	ClientMs float64
	// Attempts is how many requests the platform's client sent for this invoke: 1 where nothing
	// retried. A retried invoke may have run the function before the attempt that answered.
	Attempts int
}

// What a claim needs that only some platforms can do, each behind an interface of its own: the
// claim asks for it by type assertion.

// dynamoOutage makes DynamoDB unreachable for a platform's functions, and brings it back (T4):
// the local stand-in refuses or stalls, for every call. On Lambda nobody can take DynamoDB away:
// the live platform points the warm-up alone at a loopback endpoint inside the function's
// sandbox that refuses or stalls (functions/getitem's CLAIMS_WARMUP_OUTAGE), from the next cold
// start on.
type dynamoOutage interface {
	// BreakDynamoDB makes DynamoDB unreachable as how says, until RestoreDynamoDB.
	BreakDynamoDB(how family.Outage) error
	// RestoreDynamoDB brings DynamoDB back, closing the connections held while it was away.
	RestoreDynamoDB() error
	// OutageReachesHandler says whether the handler's GetItem meets the outage too, or only
	// the warm-up does.
	OutageReachesHandler() bool
}

// handshakeCounter counts the TLS handshakes DynamoDB completed: T6's server side of the
// evidence. Lambda's DynamoDB shows no such count; on Lambda T6 rests on the traces alone.
type handshakeCounter interface {
	DynamoDBHandshakes() int
}

// throttleCounter is a function whose platform counts the CPU throttling of its current
// execution environment (the local cgroup's cpu.stat); Lambda publishes no such count.
type throttleCounter interface {
	Throttling() (*family.Throttling, error)
}

// brokenPlatform is a platform broken on purpose for a sensitivity test, its CPU model not
// Lambda's; Broken says how.
type brokenPlatform interface {
	Broken() string
}

// brokenIn says what a sensitivity run broke, in the platform or the function's build, or ""
// for a run of the claim itself.
func brokenIn(p lambdaPlatform, b functionCode) string {
	var parts []string
	if bp, ok := p.(brokenPlatform); ok && bp.Broken() != "" {
		parts = append(parts, bp.Broken())
	}
	if d := b.in(p).described(); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

// onPlatform is a cold-start result's target: the platform (what runs the functions, and how)
// and the functions the claim created there.
type onPlatform struct {
	Platform  lambdaPlatform
	Functions []family.Function
}

// MarshalJSON records the target as family.ColdStartTarget: the platform's own record, and each
// function's configuration.
func (o onPlatform) MarshalJSON() ([]byte, error) {
	return json.Marshal(family.ColdStartTarget{Platform: o.Platform, Functions: o.Functions})
}

// Mode is the platform's.
func (o onPlatform) Mode() string { return o.Platform.Mode() }

// memoryMB is the memory size the article's function had.
const memoryMB = 128

// The article's two functions, as CLAIMS_VARIANT: cold (Init builds the client) and warm (Init
// also makes one ListTables, to leave a connection for the handler).
const (
	cold = "cold"
	warm = "warm"
)

// getitemConfig is the article's function on p: variant at memory MB, with the machine's CPU
// where unthrottled, built from b (in p's language, where b names no folder).
func getitemConfig(p lambdaPlatform, b functionCode, variant string, memory int, unthrottled bool) family.Function {
	return family.Function{Build: b.in(p).Build, MemoryMB: memory, Unthrottled: unthrottled, DynamoDB: true, Env: map[string]string{"CLAIMS_VARIANT": variant}}
}

// functionAnswered says the function answered: status 200 with its JSON.
func functionAnswered(i family.Invoked) bool {
	return i.Status == http.StatusOK && i.Error == "" && i.Body == ""
}

// reportDurationMs is the REPORT's Duration, 0 where it had none.
func reportDurationMs(i family.Invoked) float64 {
	if i.Report.Duration == nil {
		return 0
	}
	return *i.Report.Duration
}

// invokeTimeout bounds one invocation of getitem: far above the SDK's retries of a stalled call.
const invokeTimeout = 60 * time.Second

// invokeBound is what one invocation of f may take here: invokeTimeout, or, where f's timeout is
// longer (settings.FunctionTimeoutEnv, on the local platform), that timeout and half a minute, so
// that the caller never gives up on an invoke the platform still lets run.
func invokeBound(f function) time.Duration { return max(invokeTimeout, f.Timeout()+30*time.Second) }

// invoke sends f one event. An answer that is not the function's JSON (an Init that failed, a
// timeout) is kept as it came, for the checks to judge; only an invoke that gets no answer at all
// fails the test.
func invoke(t *testing.T, f function) family.Invoked {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), invokeBound(f))
	defer cancel()
	inv, err := f.Invoke(ctx, []byte(`{}`))
	require.NoError(t, err)
	out := family.Invoked{Status: inv.Status, Error: inv.Error, Report: inv.Report, ClientMs: inv.ClientMs, Attempts: inv.Attempts}
	if inv.Error != "" {
		return out
	}
	if inv.Status != http.StatusOK || json.Unmarshal(inv.Payload, &out.Answer) != nil {
		out.Body = string(inv.Payload)
	}
	return out
}

// throttlingOf is what f's platform counted for its running environment, nil where it counts
// nothing.
func throttlingOf(t *testing.T, f function) *family.Throttling {
	t.Helper()
	tc, ok := f.(throttleCounter)
	if !ok {
		return nil
	}
	th, err := tc.Throttling()
	require.NoError(t, err, "reading the environment's throttling")
	return th
}

// Why a cold start is no evidence, as results count them (notEvidence's keys). A forced cold
// start must have been one: Lambda may serve an invoke from an environment it started before
// (pre-initialised, or kept across an update by a platform that does not retire it), and the
// SDK's retryer may resend an invoke whose first attempt ran the function.
const (
	reasonRetried    = "the first Invoke was retried: an attempt before the answer may have run the function"
	reasonNoInit     = "the first REPORT has no Init Duration: not a cold start"
	reasonNotFirst   = "the first invocation was not its process's first: not a cold start"
	reasonDenied     = "GetItem denied (AccessDeniedException): the role's policy was not yet in effect"
	reasonNoAnswer   = "an invocation did not answer with the item"
	reasonNotStarted = "not started: too close to the test's deadline to clean up after it"
	reasonNoTime     = "not started: the package's time left could not hold the fewest cold starts that decide the claim"
)

// deniedError says whether a GetItem's error is DynamoDB's AccessDeniedException: a new role's
// inline policy takes a while to be in effect everywhere (IAM is eventually consistent).
func deniedError(msg string) bool { return strings.Contains(msg, "AccessDeniedException") }

// notCold is why first, the first invocation of a forced cold start, shows it was no cold start,
// with the figures that show it; "" where it was one. An invocation that is not the function's
// answer (an Init that failed) cannot say, and is judged by its attempts alone.
func notCold(first family.Invoked) (reason, detail string) {
	if first.Attempts > 1 {
		return reasonRetried, fmt.Sprintf("%d attempts", first.Attempts)
	}
	if !functionAnswered(first) {
		return "", ""
	}
	if first.Report.InitDuration == nil {
		return reasonNoInit, fmt.Sprintf("invocation %d of pid %d", first.Answer.Invocation, first.Answer.Pid)
	}
	if first.Answer.Invocation != 1 {
		return reasonNotFirst, fmt.Sprintf("invocation %d of pid %d", first.Answer.Invocation, first.Answer.Pid)
	}
	return "", ""
}

// judge sets c.NotEvidence and returns its reason: a cold start that was none, a GetItem denied,
// or an invocation that did not answer with the item; "" for a cold start that is evidence.
func judge(c *family.ColdStart) string {
	reason, detail := notCold(c.First)
	if reason == "" {
		for _, inv := range append([]family.Invoked{c.First, c.Second}, c.Later...) {
			switch {
			case functionAnswered(inv) && deniedError(inv.Answer.Error):
				reason, detail = reasonDenied, inv.Answer.Error
			case !functionAnswered(inv) || !inv.Answer.Found:
				reason = reasonNoAnswer
				detail = strings.TrimSpace(fmt.Sprintf("status %d %s%s", inv.Status, inv.Error, inv.Answer.Error))
			default:
				continue
			}
			break
		}
	}
	c.NotEvidence = ""
	if reason != "" {
		c.NotEvidence = reason + " (" + detail + ")"
	}
	return reason
}

// notStarted counts the cold starts of pl that a run that started ran of them did not start:
// those the deadline left no time for, or every one where the plan could not hold the fewest
// that decide the claim.
func notStarted(pl *coldStartPlan, ran int) family.NotEvidence {
	n := family.NotEvidence{}
	switch {
	case pl.refused:
		n[reasonNoTime] = pl.planned
	case pl.n > ran:
		n[reasonNotStarted] = pl.n - ran
	}
	return n
}

// withNotEvidence adds the reasons to a headline, where there are any.
func withNotEvidence(n family.NotEvidence, headline string) string {
	if len(n) == 0 {
		return headline
	}
	return headline + "; not evidence: " + n.String()
}

// addReason counts one cold start of reason; "" counts nothing.
func addReason(n family.NotEvidence, reason string) {
	if reason != "" {
		n[reason]++
	}
}

// notEvidenceCheck is a check that names the cold starts that were no evidence, by reason:
// where they are more than half the verdict is inconclusive (verdict.Decide), and this check
// says why. It neither holds nor fails a claim, which rests on the evidential cold starts.
func notEvidenceCheck(n family.NotEvidence, of stats.Proportion) verdict.Check {
	c := verdict.Check{Name: "cold starts that were evidence", Got: of.String(),
		Want: fmt.Sprintf("at least half of %d", of.N), Pass: of.N > 0 && 2*of.K >= of.N}
	if len(n) > 0 {
		c.Note = "not evidence: " + n.String()
	}
	return c
}

// stopMargin is how long before the test's deadline (go test -timeout) the live platform starts
// no cold start: a deadline's panic runs no cleanup, and its deletions (functions, then the table
// and the role, each waited for) must end inside it, after an invoke still in flight. The local
// platform's is localStopMargin.
const stopMargin = invokeTimeout + 2*time.Minute

// startWithin calls start(i) for each round of pl while it may start one (coldStartPlan.mayStart),
// timing them, and returns how many it started; it logs those the deadline left out.
func startWithin(t *testing.T, pl *coldStartPlan, start func(i int)) int {
	t.Helper()
	for pl.mayStart() {
		began := time.Now()
		start(pl.ran)
		if pl.measured > 0 {
			budget.took(pl.measured, time.Since(began))
		}
		pl.ran++
	}
	if pl.ran < pl.n {
		d, _ := t.Deadline()
		t.Logf("%d of %d %s not started: the test's deadline is %v away, and cleaning up needs %v", pl.n-pl.ran, pl.n, pl.what, time.Until(d).Round(time.Second), pl.margin)
	}
	return pl.ran
}

// pause lets one CFS period of the platform's CPU model pass between invocations: a warm
// invocation is a later request, not one on the heels of the first, which would inherit the
// first's throttling.
func pause(period time.Duration) { time.Sleep(period) }

// runColdStart runs one cold start of f, the arm named arm: its first invocation, a second and
// later more, each one period (the platform's CFS period) after the last. Where its evidence is
// counted, coldStart.judge says whether it is any.
func runColdStart(t *testing.T, f function, arm string, later int, period time.Duration) family.ColdStart {
	t.Helper()
	require.NoError(t, f.ColdStart(t.Context()), "cold-starting %s", arm)
	c := family.ColdStart{Arm: arm}
	c.First = invoke(t, f)
	pause(period)
	c.Second = invoke(t, f)
	for range later {
		pause(period)
		c.Later = append(c.Later, invoke(t, f))
	}
	c.Throttling = throttlingOf(t, f)
	return c
}

// TestColdStartsAreJudgedByReason: a forced cold start is evidence only where it was one (its
// first REPORT has Init Duration, the function served its process's first invocation, and the
// Invoke was sent once) and every invocation read the item; each other one is counted under its
// reason, a GetItem denied while the role's policy was not yet in effect included.
func TestColdStartsAreJudgedByReason(t *testing.T) {
	initMs := 12.5
	answering := func(invocation int) family.Invoked {
		return family.Invoked{Status: http.StatusOK, Attempts: 1, Answer: getitem.Answer{Found: true, Invocation: invocation, Pid: 7}}
	}
	cold := func() family.ColdStart {
		c := family.ColdStart{Arm: "128 MB", First: answering(1), Second: answering(2)}
		c.First.Report.InitDuration = &initMs
		return c
	}
	for _, tc := range []struct {
		name  string
		edit  func(c *family.ColdStart)
		want  string
		about string
	}{
		{"a cold start", func(*family.ColdStart) {}, "", ""},
		{"no Init Duration", func(c *family.ColdStart) { c.First.Report.InitDuration = nil }, reasonNoInit, "invocation 1 of pid 7"},
		{"a process's third invocation", func(c *family.ColdStart) { c.First.Answer.Invocation, c.Second.Answer.Invocation = 3, 4 }, reasonNotFirst, "invocation 3"},
		{"a retried Invoke", func(c *family.ColdStart) { c.First.Attempts = 2 }, reasonRetried, "2 attempts"},
		{"a GetItem denied", func(c *family.ColdStart) {
			c.First.Answer.Found = false
			c.First.Answer.Error = "operation error DynamoDB: GetItem, https response error StatusCode: 400, api error AccessDeniedException: not authorized"
		}, reasonDenied, "AccessDeniedException"},
		{"an Init that failed", func(c *family.ColdStart) {
			c.First = family.Invoked{Status: http.StatusOK, Attempts: 1, Error: "Unhandled: Runtime.ExitError"}
		}, reasonNoAnswer, "Runtime.ExitError"},
		{"a warm invocation without the item", func(c *family.ColdStart) { c.Second.Answer.Found = false }, reasonNoAnswer, "status 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cold()
			tc.edit(&c)
			assert.Equal(t, tc.want, judge(&c), "reason")
			assert.Contains(t, c.NotEvidence, tc.about, "notEvidence = %q; want the figures that show it", c.NotEvidence)
			kept, p, why := evidential([]family.ColdStart{c, cold()}, &coldStartPlan{planned: 3, n: 3})
			wantK := 1
			if tc.want == "" {
				wantK = 2
			}
			assert.Equal(t, stats.Proportion{K: wantK, N: 3}, p, "evidence over two cold starts and one not started")
			assert.Len(t, kept, wantK)
			assert.Equal(t, 1, why[reasonNotStarted], "not started = %v", why)
			if tc.want != "" {
				assert.Equal(t, 1, why[tc.want], "counted under %q: %v", tc.want, why)
			}
		})
	}
}

// TestNotEvidenceNamesTheReasonsWhereMoreThanHalf: the check that counts the cold starts that
// were evidence names the others by reason, most first, and holds only with at least half.
func TestNotEvidenceNamesTheReasonsWhereMoreThanHalf(t *testing.T) {
	why := family.NotEvidence{}
	addReason(why, reasonNoInit)
	addReason(why, reasonNoInit)
	addReason(why, reasonDenied)
	addReason(why, "")
	c := notEvidenceCheck(why, stats.Proportion{K: 1, N: 4})
	assert.False(t, c.Pass, "%s; want 1/4 not to hold", c)
	assert.Equal(t, "not evidence: 2 "+reasonNoInit+"; 1 "+reasonDenied, c.Note)
	assert.True(t, notEvidenceCheck(family.NotEvidence{}, stats.Proportion{K: 2, N: 4}).Pass, "2/4 evidence")
	v := verdict.Decide(stats.Proportion{K: 1, N: 4}, c)
	assert.Equal(t, verdict.Inconclusive, v.Outcome, "verdict with 1/4 evidence: %s", v.Reason)
}
