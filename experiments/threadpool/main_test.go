package threadpool

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// TestMain checks the run's settings, so that one that makes no sense (a CLAIMS_NODE_RUNTIMES
// among them) stops the binary before any lab starts (each test then reads them with
// claimtest.Settings and hands them down); it installs Node 24 first, so that results show it
// beside the machine's node, and requires the C compiler that builds the slow-resolver stand-in.
func TestMain(m *testing.M) {
	os.Exit(claimtest.Main(m, "threadpool experiments",
		provision.Check(provision.NeedNode24, provision.NeedNode, provision.NeedCC),
		func(settings.Settings) error { _, err := runtimes.ChosenNodeRuntimes(); return err }))
}
