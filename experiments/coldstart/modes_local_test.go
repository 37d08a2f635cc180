//go:build !lambda

package coldstart

import (
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// platforms are where the claim tests run: without the lambda build tag, the local platform, a
// mode per language of the GetItem function; with it, the live one (live_test.go).
var platforms = localModes()

// localPlatform says the claim tests run on the local platform: TestMain builds their functions
// before them (prebuild).
const localPlatform = true

// admitLiveRun is the live mode's check before any test (live_test.go); locally nothing is made
// that costs anything.
func admitLiveRun(settings.Settings) error { return nil }
