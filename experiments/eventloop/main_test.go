// Package eventloop turns the claims of the article "does a CPU-bound request in Lambda Web
// Functions' Node.js make the other requests wait?" (shared/CLAIMS.md, W1-W12) into experiments
// on local probes: one process stands for one execution environment.
package eventloop

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/settings"
)

// cfg is the run's settings, read once; a setting that makes no sense stops the binary before any
// probe starts.
var cfg settings.Settings

func TestMain(m *testing.M) { os.Exit(settings.RunTests(m, "eventloop experiments", &cfg)) }
