package eventloop

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/provision"
)

// TestMain checks the run's settings, so that one that makes no sense stops the binary before any
// probe starts (each test then reads them with claimtest.Settings), installs Node 24 first where it can
// (the article ran nodejs24.x; any Node.js decides these claims, so one that cannot be installed
// is a note) and requires some Node.js.
func TestMain(m *testing.M) {
	os.Exit(claimtest.Main(m, "eventloop experiments", provision.Check(provision.WantNode24, provision.NeedNode)))
}
