//go:build !lambda

package coldstart

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// kernelDefaultPeriod is the CFS period the kernel gives a cgroup unless told otherwise, and the
// one this repository assumed before Lambda's was measured: T8 must refute it.
const kernelDefaultPeriod = 100 * time.Millisecond

// The GetItem function's builds broken on purpose, each by a build tag every language's knows
// (functions.Broken).
var (
	brokenWarmClient = brokenBuild(functions.BrokenWarmClient, "the warm-up on a client of its own")
	brokenTrace      = brokenBuild(functions.BrokenTrace, "the trace off the SDK's call")
	brokenWarmup     = brokenBuild(functions.BrokenWarmup, "Init fails on the warm-up's error")
)

// The local platform with a CPU model that is not Lambda's.
var (
	noQuotaPlatform = localOptions{noQuota: true, broken: "no CPU quota: every memory size gets the machine's CPU"}
	kernelPeriod    = localOptions{period: kernelDefaultPeriod, broken: "a 100 ms CFS period, the kernel's default, not Lambda's 20 ms"}
)

// noQuotaColdStarts is the cold starts per arm of the no-quota cases, fewer than a claim run's:
// with no quota each ratio is near 1 (T2's near 0.7) against a bound of 2 to 5, so six cold
// starts put the interval's top far below the bound, and more would only add time.
const noQuotaColdStarts = 6

// TestCatchesBrokenFunctions runs each cold-start claim's decision against a GetItem function
// broken so that the claim cannot hold (claimtest.CatchBroken), in every language: a warm-up on a
// client of its own (T3), the trace off the SDK's call (T6), an Init that fails on the warm-up's
// error (T4). Each is decided by what the function did (a connection not reused, no trace of it,
// an Init that ended), not by a ratio of times. `make test` still runs it on an idle machine, with
// the claims: its T4 cases bring DynamoDB's stand-in back on a port that another test process
// can take meanwhile (loopback.FreeAddrs). Each runs its platform with
// the settings CatchBroken hands it (the run's, their trials cut by claimtest.BrokenSettings),
// and counts its own cold starts: the Go function's T3 case the trials it is handed, at most four
// (each cold start of a warm-up on a client of its own misses the reuse T3 wants, so four fail it
// as surely as twenty), the rest fixed. They break the local model, so a run with -tags lambda,
// whose claim tests run on Lambda, leaves them out.
func TestCatchesBrokenFunctions(t *testing.T) {
	beginFixed(t)
	claimtest.CatchBroken(t, claimtest.Settings(t), brokenFunctions...)
}

// TestCatchesBrokenCPUModels runs the claims that turn on the model of Lambda's CPU in a model
// that breaks them: no quota, so no memory size has less CPU than another (T1, T2, T5), and the
// kernel's default CFS period, which is not Lambda's (T8). Their verdicts turn on ratios of times
// under a quota, which a busy machine moves (a no-quota T2 case came out inconclusive there), so
// `make test` runs them with the claims, on an idle machine, as it runs TestCatchesBrokenFunctions.
func TestCatchesBrokenCPUModels(t *testing.T) {
	beginFixed(t)
	claimtest.CatchBroken(t, claimtest.Settings(t), brokenCPUModels...)
}

// init adds the broken cases to the time plan (timedTests), which keeps their time whole: the
// broken functions' fixed cold starts in every language, the broken CPU models' no-quota cold
// starts and T8's busy loops, each in a fresh environment.
func init() {
	addTimedTests(
		timedTest{test: TestCatchesBrokenFunctions, fixed: 40 * time.Second},
		timedTest{test: TestCatchesBrokenCPUModels, fixed: 25 * time.Second},
	)
}

// brokenCPUModels are the cases of TestCatchesBrokenCPUModels (claimtest.BrokenCases).
var brokenCPUModels = claimtest.BrokenCases(
	// With no quota the handshake takes the machine's CPU in both arms (slowdown about 1,
	// against 5), and Init is longer than the first invocation (about 0.7, against 2).
	claimtest.BrokenCase{Name: "T1 with no quota", Claim: firstCallClaim, Broken: noQuotaPlatform.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureSetup(t, startLocal(t, s, noQuotaPlatform), noQuotaColdStarts)
		}},
	claimtest.BrokenCase{Name: "T2 with no quota", Claim: firstInvocationClaim, Broken: noQuotaPlatform.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureFirstInvocation(t, startLocal(t, s, noQuotaPlatform), noQuotaColdStarts)
		}},
	claimtest.BrokenCase{Name: "T5 with no quota", Claim: scalingClaim, Broken: noQuotaPlatform.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureScaling(t, startLocal(t, s, noQuotaPlatform), noQuotaColdStarts)
		}},
	// At the kernel's default period the stalls end on a 100 ms grid, not Lambda's 20 ms.
	claimtest.BrokenCase{Name: "T8 at a 100 ms CFS period", Claim: throttleClaim, Broken: kernelPeriod.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureThrottleSlices(t, startLocal(t, s, kernelPeriod), throttleInvocations)
		}},
)

// brokenFunctions are the cases of TestCatchesBrokenFunctions (claimtest.BrokenCases).
var brokenFunctions = claimtest.BrokenCases(slices.Concat([]claimtest.BrokenCase{
	// A warm-up on a client of its own: T3's reuse check must catch it, whatever the quota.
	claimtest.BrokenCase{Name: "T3 with the warm-up on a client of its own", Claim: warmupClaim, Broken: brokenWarmClient.inLanguage(lambdazip.Go).described(),
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureWarmup(t, startLocal(t, s, localOptions{}), brokenWarmClient, s.Trials)
		}},
	claimtest.BrokenCase{Name: "T6 with the trace off the SDK's call", Claim: ownConnectionClaim, Broken: brokenTrace.inLanguage(lambdazip.Go).described(),
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureOwnConnection(t, startLocal(t, s, localOptions{}), brokenTrace, 2)
		}},
	claimtest.BrokenCase{Name: "T4 with Init failing on the warm-up's error", Claim: warmupFailureClaim, Broken: brokenWarmup.inLanguage(lambdazip.Go).described(),
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureWarmupFailure(t, startLocal(t, s, localOptions{}), brokenWarmup, warmupTimeout, 2)
		}},
}, brokenBuilds(lambdazip.Rust), brokenBuilds(lambdazip.Node), brokenBuilds(lambdazip.Python))...)

// brokenBuilds are the cases of the GetItem function in l, a language other than Go, each a
// broken build of it: T6 with the trace off the SDK's call, T4 with an Init that fails on the
// warm-up's error, T3 with the warm-up on a client of its own, each with two cold starts: each
// one of them misses what its claim wants (a trace of the connection, an Init that goes on, the
// warm-up's connection reused), which is all it takes to fail it.
func brokenBuilds(l lambdazip.Language) []claimtest.BrokenCase {
	on := func(t *testing.T, s settings.Settings) lambdaPlatform {
		return startLocal(t, s, localOptions{language: l})
	}
	return []claimtest.BrokenCase{
		{Name: fmt.Sprintf("T6 %s with the trace off the SDK's call", l), Claim: ownConnectionClaim, Broken: brokenTrace.inLanguage(l).described(),
			Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
				return measureOwnConnection(t, on(t, s), brokenTrace, 2)
			}},
		{Name: fmt.Sprintf("T4 %s with Init failing on the warm-up's error", l), Claim: warmupFailureClaim, Broken: brokenWarmup.inLanguage(l).described(),
			Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
				return measureWarmupFailure(t, on(t, s), brokenWarmup, warmupTimeout, 2)
			}},
		{Name: fmt.Sprintf("T3 %s with the warm-up on a client of its own", l), Claim: warmupClaim, Broken: brokenWarmClient.inLanguage(l).described(),
			Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
				return measureWarmup(t, on(t, s), brokenWarmClient, 2)
			}},
	}
}
