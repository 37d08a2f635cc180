package coldstart

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// TestMain installs dynalite, the DynamoDB stand-in, and requires a Node.js to run it on, after
// the checks that cost nothing: the selection by claim and language (claimtest.SelectFromEnv),
// the settings' and, with -tags lambda, the live run's estimate
// against its cap (admitLiveRun), before anything is made. It then builds the functions the
// selected claim tests run (prebuild), so that the tests' time is their cold starts', and notes
// when it began and when the tests begin: go test's deadline counts from the second, its kill
// from the first (the time plan, timeplan_test.go).
// Elsewhere than Linux it installs and builds nothing: every test that would use it skips,
// naming Linux (needLinux).
func TestMain(m *testing.M) {
	budget.mainStart = time.Now()
	checks := []func(settings.Settings) error{claimtest.SelectFromEnv("coldstart", selectable...), quotaReachesKernelMinimum, admitLiveRun}
	if runtime.GOOS == "linux" {
		checks = append(checks,
			provision.Check(provision.NeedDynalite, provision.NeedNode, provision.NeedNode24, provision.NeedRust, provision.NeedPython),
			prebuild)
	}
	checks = append(checks, func(settings.Settings) error { budget.testsStart = time.Now(); return nil })
	// Main reads and checks the settings for the checks above; each test reads them again
	// where it starts its platform (claimtest.Settings) and hands them down.
	os.Exit(claimtest.Main(m, "coldstart experiments", checks...))
}

// quotaReachesKernelMinimum refuses a CPU period at which the smallest memory size's quota would
// be under the kernel's minimum, before any cold start, rather than at the first cgroup.
func quotaReachesKernelMinimum(s settings.Settings) error {
	share, err := lambdalocal.ShareForMemory(128)
	if err != nil {
		return err
	}
	if quota := time.Duration(share * float64(s.CPUPeriod)); quota < cgroup.MinQuota {
		least := time.Duration(float64(cgroup.MinQuota)/share) + time.Millisecond - 1
		return fmt.Errorf("%s = %d: 128 MB's quota would be %v a period, under the kernel's %v; want at least %d",
			settings.PeriodEnv, s.CPUPeriod.Milliseconds(), quota.Round(time.Microsecond), cgroup.MinQuota, least.Milliseconds())
	}
	return nil
}

func TestPeriodUnderTheKernelsMinimumQuotaIsRefused(t *testing.T) {
	for _, ms := range []int64{1, 13} {
		err := quotaReachesKernelMinimum(settings.Settings{CPUPeriod: time.Duration(ms) * time.Millisecond})
		if assert.Error(t, err, "period %d ms: want refused", ms) {
			assert.Contains(t, err.Error(), settings.PeriodEnv)
			assert.Contains(t, err.Error(), "want at least 14")
		}
	}
	for _, ms := range []int64{14, 100, 1000} {
		assert.NoError(t, quotaReachesKernelMinimum(settings.Settings{CPUPeriod: time.Duration(ms) * time.Millisecond}), "period %d ms", ms)
	}
}

// prebuild builds, before any test, what the claim tests the run selects will run: on the local
// platform the emulator, the GetItem function in each language and T8's; on the live one their
// zips for the run's architecture. Each is built once per test binary (build.Go and lambdazip
// keep them), timed into TestMain's part of the package's time, so that the tests' time is their
// cold starts': a build can take minutes where the machine has not made one for that
// architecture before, and a test's deadline guard stops cold starts, not a build already
// begun. A build that fails is left to the tests that run it, which fail saying why.
func prebuild(settings.Settings) error {
	began := time.Now()
	// The languages whose GetItem function a selected claim test runs.
	languages := map[lambdazip.Language]bool{}
	for top, tt := range timedTests {
		for _, l := range lambdazip.Languages {
			if tt.coldStarts != nil && selected(top, string(l)) {
				languages[l] = true
			}
		}
	}
	throttle := selected(testName(TestThrottleSlices))
	if len(languages) == 0 && !throttle {
		return nil
	}
	buildFunctions(languages, throttle, func(what string, err error) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "coldstart experiments: building %s: %v (the tests that run it will fail on it)\n", what, err)
		}
	})
	fmt.Fprintf(os.Stderr, "coldstart experiments: functions built in %v\n", time.Since(began).Round(time.Second))
	return nil
}
