package coldstart

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/settings"
)

// cfg is the run's settings, read once; CLAIMS_TRIALS is the number of cold starts per variant
// and memory size.
var cfg settings.Settings

func TestMain(m *testing.M) { os.Exit(settings.RunTests(m, "coldstart experiments", &cfg)) }
