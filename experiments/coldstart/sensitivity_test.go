//go:build !lambda

package coldstart

import (
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
)

// kernelDefaultPeriod is the CFS period the kernel gives a cgroup unless told otherwise, and the
// one this repository assumed before Lambda's was measured: T8 must refute it.
const kernelDefaultPeriod = 100 * time.Millisecond

// The function's variants broken on purpose, each by a build tag of functions/getitem.
var (
	brokenWarmClient = functionCode{Package: getitem.Package, Tags: "brokenwarmclient", Broken: "functions/getitem -tags brokenwarmclient: the warm-up on a client of its own"}
	brokenTrace      = functionCode{Package: getitem.Package, Tags: "brokentrace", Broken: "functions/getitem -tags brokentrace: the trace off the SDK's call"}
	brokenWarmup     = functionCode{Package: getitem.Package, Tags: "brokenwarmup", Broken: "functions/getitem -tags brokenwarmup: Init fails on the warm-up's error"}
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

// TestClaimTestsCatchBrokenFunctions runs each cold-start claim's decision where its verdict must
// turn to fail: against a function that breaks a claim, or in a model that does (no quota, so
// no memory size has less CPU than another; the kernel's default period, which is not Lambda's).
// Each case is far from its bounds, so that its verdict is the same every run. They break the
// local model, so a run with -tags lambda, whose claim tests run on Lambda, leaves them out.
func TestClaimTestsCatchBrokenFunctions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		claim   claimtest.Claim
		measure func(t *testing.T) claimtest.Measurement
	}{
		// With no quota the handshake takes the machine's CPU in both arms (slowdown about 1,
		// against 5), and Init is longer than the first invocation (about 0.7, against 2).
		{"T1 with no quota", firstCallClaim, func(t *testing.T) claimtest.Measurement {
			return measureSetup(t, startLocal(t, noQuotaPlatform), noQuotaColdStarts)
		}},
		{"T2 with no quota", firstInvocationClaim, func(t *testing.T) claimtest.Measurement {
			return measureFirstInvocation(t, startLocal(t, noQuotaPlatform), noQuotaColdStarts)
		}},
		{"T5 with no quota", scalingClaim, func(t *testing.T) claimtest.Measurement {
			return measureScaling(t, startLocal(t, noQuotaPlatform), noQuotaColdStarts)
		}},
		// A warm-up on a client of its own: T3's reuse check must catch it, whatever the quota.
		{"T3 with the warm-up on a client of its own", warmupClaim, func(t *testing.T) claimtest.Measurement {
			return measureWarmup(t, startLocal(t, localOptions{}), brokenWarmClient, cfg.Trials)
		}},
		{"T6 with the trace off the SDK's call", ownConnectionClaim, func(t *testing.T) claimtest.Measurement {
			return measureOwnConnection(t, startLocal(t, localOptions{}), brokenTrace, 2)
		}},
		{"T4 with Init failing on the warm-up's error", warmupFailureClaim, func(t *testing.T) claimtest.Measurement {
			return measureWarmupFailure(t, startLocal(t, localOptions{}), brokenWarmup, warmupTimeout, 2)
		}},
		// At the kernel's default period the stalls end on a 100 ms grid, not Lambda's 20 ms.
		{"T8 at a 100 ms CFS period", throttleClaim, func(t *testing.T) claimtest.Measurement {
			return measureThrottleSlices(t, startLocal(t, kernelPeriod), throttleInvocations)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claimtest.CatchesBroken(t, tc.claim.Decide(t, tc.measure(t)))
		})
	}
}
