// Package threadpool turns the claims of the article "the four letters at the end of a name"
// (P1-P11 in the catalog) into experiments: where Node.js's "async" work really runs, how many
// slots the libuv pool has, what shares them, and what blocks the event loop. Each test starts
// the lab programs in testdata/threadpool on every Node.js runtime available (Node 24 from `make
// setup`, and the machine's own node when its major version differs), so results show versions
// side by side; CLAIMS_NODE_RUNTIMES=first keeps to Node 24, except for P5, which is decided
// across runtimes.
package threadpool

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/runtimes"
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
