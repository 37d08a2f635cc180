//go:build lambda

package coldstart

import (
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// localPlatform says the claim tests run on the local platform; with -tags lambda they run on
// the live one (live_test.go), whose functions TestMain builds for the run's architecture before
// anything is made (prebuild).
const localPlatform = false

// onThisPlatform is what the live platform adds to the time plan's costs, which were measured
// on the local one. No source gives the latency of UpdateFunctionConfiguration and its waiter,
// nor of making and deleting a role, a table and functions, so both are assumptions: forceCold
// is taken from the round a forced cold start makes (the update, the waiter's first polls, the
// invocations' round trips from a laptop), perTest from IAM's propagation, which the session
// waits out, and the deletions. The run replaces forceCold, with the rest of a cold start's
// cost, by its own speed once its cold starts have taken minMeasured (timeBudget.speed).
var onThisPlatform = platformTime{
	margin:    stopMargin,
	forceCold: 2 * time.Second,
	perTest:   30 * time.Second,
	why:       "assumed: no source gives these latencies on Lambda",
	longer: "run with a longer timeout (make live LIVE_TIMEOUT=120m), or one claim or language (make live " +
		claimtest.OnlyEnv + "=T1 " + claimtest.LanguagesEnv + "=rust)",
}

// runsHere says whether the timed test top runs on this platform: the live claim tests do, the
// local platform's broken cases do not. Which tests livePlans plans does not depend on the
// settings, so any settings name them: the article's.
func runsHere(top string) bool {
	_, ok := livePlans(settings.Article(), lambdazip.Go)[top]
	return ok
}

// selectable are the kinds of claim test claimtest.SelectFromEnv selects from here.
var selectable = []catalog.Kind{catalog.Both}

// buildFunctions is prebuild's part on the live platform: the zips that Create uploads, of T8's
// function where throttle and of the GetItem function in each of languages, for the run's
// architecture (admitLiveRun has checked that each can be built here).
func buildFunctions(languages map[lambdazip.Language]bool, throttle bool, report func(what string, err error)) {
	c, err := live.ConfigFromEnv()
	if err != nil {
		report("the functions", err)
		return
	}
	arch, err := lambdazip.ParseArch(c.Arch)
	if err != nil {
		report("the functions", err)
		return
	}
	if throttle {
		_, err := lambdazip.Build(throttleFunc.Package, arch)
		report(throttleFunc.Package, err)
	}
	for _, l := range lambdazip.Languages {
		if languages[l] {
			b := getItemFunction.inLanguage(l)
			_, err := lambdazip.Build(b.Package, arch)
			report(b.Package, err)
		}
	}
}
