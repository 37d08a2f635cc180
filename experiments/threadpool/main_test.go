package threadpool

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// cfg is the run's settings, read once; a setting that makes no sense stops the binary before any
// lab program starts.
var cfg settings.Settings

// TestMain installs Node 24 first, so that results show it beside the machine's node, and
// requires the C compiler that builds the slow-resolver stand-in; a CLAIMS_NODE_RUNTIMES that
// makes no sense stops it before any lab starts.
func TestMain(m *testing.M) {
	os.Exit(claimtest.Main(m, "threadpool experiments", &cfg,
		provision.Check(provision.NeedNode24, provision.NeedNode, provision.NeedCC),
		func(settings.Settings) error { _, err := runtimes.ChosenNodeRuntimes(); return err }))
}
