//go:build !lambda

package coldstart

import (
	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// platforms are where the claim tests run: without the lambda build tag, the local platform, a
// mode per language of the GetItem function; with it, the live one (live_test.go).
var platforms = localModes()

// localPlatform says the claim tests run on the local platform: TestMain builds their functions
// before them (prebuild).
const localPlatform = true

// buildFunctions is prebuild's part on the local platform: the emulator, T8's function where
// throttle, and the GetItem function in each of languages, for this machine's architecture.
func buildFunctions(languages map[lambdazip.Language]bool, throttle bool, report func(what string, err error)) {
	_, err := build.Go(lambdalocal.EmulatorPackage)
	report("the emulator", err)
	if throttle {
		_, err := build.Go(throttleFunc.Package)
		report(throttleFunc.Package, err)
	}
	arch, archErr := nativeLambdaArch()
	for _, l := range lambdazip.Languages {
		if !languages[l] {
			continue
		}
		b := getItemFunction.inLanguage(l)
		switch {
		case l == lambdazip.Go:
			_, err = build.Go(b.Package)
		case archErr != nil:
			err = archErr
		default:
			_, err = lambdazip.Unzipped(b.Package, arch)
		}
		report(b.Package, err)
	}
}

// onThisPlatform is what the local platform adds to the time plan's costs, measured on it:
// nothing; it needs localStopMargin after its last cold start.
var onThisPlatform = platformTime{
	margin: localStopMargin,
	longer: "run with a longer -timeout (go test -timeout 40m ./experiments/coldstart), or fewer tests (-run, or " +
		claimtest.OnlyEnv + " and " + claimtest.LanguagesEnv + ")",
}

// runsHere says whether the timed test top runs on this platform: each of them does.
func runsHere(string) bool { return true }

// selectable are the kinds of claim test claimtest.SelectFromEnv selects from here.
var selectable = []catalog.Kind{catalog.Local, catalog.Both}

// admitLiveRun is the live mode's check before any test (live_test.go); locally nothing is made
// that costs anything.
func admitLiveRun(settings.Settings) error { return nil }
