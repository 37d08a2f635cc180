//go:build !lambda

package coldstart

import (
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// platforms are where the claim tests run. Without the lambda build tag, the local platform;
// with it, the live one (live_test.go).
var platforms = []claimtest.Mode[lambdaPlatform]{localLambda}

// admitLiveRun is the live mode's check before any test (live_test.go); locally nothing is made
// that costs anything.
func admitLiveRun(settings.Settings) error { return nil }
