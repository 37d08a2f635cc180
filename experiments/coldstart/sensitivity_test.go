package coldstart

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/tlsca"
	"github.com/serverless-claims/claims/harness/verdict"
)

// kernelDefaultPeriod is the CFS period the kernel gives a cgroup unless told otherwise, and the
// one this repository assumed before Lambda's was measured: T8 must refute it.
const kernelDefaultPeriod = 100 * time.Millisecond

// TestClaimTestsCatchBrokenFunctions runs each cold-start claim's decision where its verdict must
// turn to fail: against a function that breaks a claim, or in a model that does (no quota, so
// no memory size has less CPU than another; the kernel's default period, which is not Lambda's).
// Each case is far from its bounds, so that its verdict is the same every run.
func TestClaimTestsCatchBrokenFunctions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		measure func(t *testing.T) *results.Result
	}{
		// With no quota the handshake takes the machine's CPU in both arms (slowdown about 1,
		// against 5), and Init is longer than the first invocation (about 0.7, against 2).
		{"T1 with no quota", func(t *testing.T) *results.Result {
			return measureSetup(t, setUp(t, tlsca.DefaultKeyKind), noQuota, cfg.ColdStarts)
		}},
		{"T2 with no quota", func(t *testing.T) *results.Result {
			return measureFirstInvocation(t, setUp(t, tlsca.DefaultKeyKind), noQuota, cfg.ColdStarts)
		}},
		{"T5 with no quota", func(t *testing.T) *results.Result {
			return measureScaling(t, setUp(t, tlsca.DefaultKeyKind), false, cfg.ColdStarts)
		}},
		// The function built -tags brokenwarmclient warms a connection on a client of its own:
		// T3's reuse check must catch it, whatever the quota.
		{"T3 with the warm-up on a client of its own", func(t *testing.T) *results.Result {
			needQuota(t)
			return measureWarmup(t, setUp(t, tlsca.DefaultKeyKind, "brokenwarmclient"), articleShare, cfg.Trials)
		}},
		// The function built -tags brokentrace leaves its trace off the SDK's call.
		{"T6 with the trace off the SDK's call", func(t *testing.T) *results.Result {
			return measureOwnConnection(t, setUp(t, tlsca.DefaultKeyKind, "brokentrace"), 2)
		}},
		// The function built -tags brokenwarmup fails Init when its warm-up fails.
		{"T4 with Init failing on the warm-up's error", func(t *testing.T) *results.Result {
			return measureWarmupFailure(t, setUp(t, tlsca.DefaultKeyKind, "brokenwarmup"), warmupTimeout, 2)
		}},
		// At the kernel's default period the stalls end on a 100 ms grid, not Lambda's 20 ms.
		{"T8 at a 100 ms CFS period", func(t *testing.T) *results.Result {
			needQuota(t)
			return measureThrottleSlices(t, kernelDefaultPeriod, throttleInvocations)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.measure(t)
			assert.Equal(t, verdict.Fail, res.Verdict.Outcome, "verdict = %s; want %s (%s)", res.Verdict.Outcome, verdict.Fail, res.Verdict.Reason)
		})
	}
}
