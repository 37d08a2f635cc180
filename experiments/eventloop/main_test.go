// Package eventloop turns the event-loop claims (W1-W12: does a CPU-bound request in a Lambda Web
// Function's Node.js make the other requests wait?) into experiments. Each claim body runs against
// a target of HTTP endpoints; locally one probe process stands for one execution environment.
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
