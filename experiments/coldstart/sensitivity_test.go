package coldstart

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/tlsca"
	"github.com/serverless-claims/claims/harness/verdict"
)

// TestClaimTestsCatchBrokenFunctions runs each cold-start claim's decision against a function
// or a setting that breaks the claim, and requires the verdict fail.
func TestClaimTestsCatchBrokenFunctions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		measure func(t *testing.T) *results.Result
	}{
		// The function built -tags brokentrace leaves its trace off the SDK's call.
		{"T6 with the trace off the SDK's call", func(t *testing.T) *results.Result {
			return measureOwnConnection(t, setUp(t, tlsca.DefaultKeyKind, "brokentrace"), 2)
		}},
		// The function built -tags brokenwarmup fails Init when its warm-up fails.
		{"T4 with Init failing on the warm-up's error", func(t *testing.T) *results.Result {
			return measureWarmupFailure(t, setUp(t, tlsca.DefaultKeyKind, "brokenwarmup"), warmupTimeout, 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.measure(t)
			assert.Equal(t, verdict.Fail, res.Verdict.Outcome, "verdict = %s; want fail (%s)", res.Verdict.Outcome, res.Verdict.Reason)
		})
	}
}
