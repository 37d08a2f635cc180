package docs_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// deployers are the packages that act on a real AWS account: the commands that package, deploy
// and clean up, and the live mode's library. The stand-ins are loopback imitations for tests;
// code that deploys must not link one, whatever the build tag.
var deployers = []string{"./cmd/package", "./cmd/liveweb", "./cmd/liveclean", "./harness/aws/..."}

// standInPath is the import path segment of the stand-ins' layer (docs/layout.md).
const standInPath = "/harness/standin/"

// TestNothingThatDeploysToAWSLinksAStandIn: no package that deploys to AWS has a stand-in among
// its dependencies (go list -deps, without and with -tags lambda), so that a stand-in's
// behaviour can never stand in for AWS's in a live run.
func TestNothingThatDeploysToAWSLinksAStandIn(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	gocmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to list dependencies")
	for _, tags := range []string{"", "lambda"} {
		cmd := exec.Command(gocmd, append([]string{"list", "-deps", "-tags", tags, "-f", "{{.ImportPath}}"}, deployers...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		require.NoError(t, err, "go list -deps -tags %q %v", tags, deployers)
		var linked []string
		for _, p := range strings.Fields(string(out)) {
			if strings.Contains(p, standInPath) {
				linked = append(linked, p)
			}
		}
		assert.Empty(t, linked, "stand-ins linked by %v with -tags %q = %v; want none (a stand-in is for tests)", deployers, tags, linked)
	}
}
