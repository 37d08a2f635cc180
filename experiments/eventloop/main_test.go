// Package eventloop turns the claims of the article "does a CPU-bound request in Lambda Web
// Functions' Node.js make the other requests wait?" (shared/CLAIMS.md, W1-W12) into experiments
// on local probes: one process stands for one execution environment.
package eventloop

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/provision"
	"github.com/serverless-claims/claims/harness/settings"
)

// cfg is the run's settings, read once; a setting that makes no sense stops the binary before any
// probe starts.
var cfg settings.Settings

// TestMain installs Node 24 first where it can (the article ran nodejs24.x; any Node.js decides
// these claims, so one that cannot be installed is a note) and requires some Node.js.
func TestMain(m *testing.M) {
	os.Exit(settings.RunTests(m, "eventloop experiments", &cfg, provision.Check(provision.WantNode24, provision.NeedNode)))
}
