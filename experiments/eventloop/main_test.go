package eventloop

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// cfg is the run's settings, read once; a setting that makes no sense stops the binary before any
// probe starts.
var cfg settings.Settings

// TestMain installs Node 24 first where it can (the article ran nodejs24.x; any Node.js decides
// these claims, so one that cannot be installed is a note) and requires some Node.js.
func TestMain(m *testing.M) {
	os.Exit(claimtest.Main(m, "eventloop experiments", &cfg, provision.Check(provision.WantNode24, provision.NeedNode)))
}
