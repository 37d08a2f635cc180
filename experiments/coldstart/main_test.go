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
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// cfg is the run's settings, read once; CLAIMS_TRIALS is the number of cold starts of the claims
// that do not depend on a CPU share, CLAIMS_COLD_STARTS of those that do.
var cfg settings.Settings

// TestMain installs dynalite, the DynamoDB stand-in, and requires a Node.js to run it on, after
// the checks that cost nothing: the settings' and, with -tags lambda, the live run's estimate
// against its cap (admitLiveRun), before anything is made.
// Elsewhere than Linux it installs nothing: every test that would use it skips, naming Linux
// (needLinux).
func TestMain(m *testing.M) {
	checks := []func(settings.Settings) error{quotaReachesKernelMinimum, admitLiveRun}
	if runtime.GOOS == "linux" {
		checks = append(checks, provision.Check(provision.NeedDynalite, provision.NeedNode, provision.NeedNode24, provision.NeedRust, provision.NeedPython))
	}
	os.Exit(claimtest.Main(m, "coldstart experiments", &cfg, checks...))
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
