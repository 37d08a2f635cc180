package coldstart

// What the cold-start claims run against: "a Lambda function", as Lambda's API offers one. A
// lambdaPlatform creates functions (CreateFunction, waited for until active); a function is
// cold-started (an update of its configuration, waited for, so that the next Invoke gets a new
// execution environment), invoked (Invoke with the log's tail, whose REPORT is the evidence) and
// deleted (DeleteFunction). The local platform (standins_test.go) runs the function under the
// Runtime Interface Emulator with the model of Lambda's CPU; the live one (live_test.go, -tags lambda)
// implements the same interface on AWS, so that no claim body changes between them.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
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
