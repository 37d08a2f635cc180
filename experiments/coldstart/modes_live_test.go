//go:build lambda

package coldstart

import (
	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
)

// localPlatform says the claim tests run on the local platform; with -tags lambda they run on
// the live one (live_test.go), whose functions TestMain builds for the run's architecture before
// anything is made (prebuild).
const localPlatform = false

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
			b := getitem.inLanguage(l)
			_, err := lambdazip.Build(b.Package, arch)
			report(b.Package, err)
		}
	}
}
