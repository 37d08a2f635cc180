package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// layerItem is a line of docs/layout.md's import order: "3. `report`, `results/schema`: ...".
var layerItem = regexp.MustCompile("^([0-9]+)\\. (`[^`]+`(?:, `[^`]+`)*):")

// importLayers reads the import order of docs/layout.md: each folder's line number (1 is the
// top line, which may import from every other).
func importLayers(t *testing.T, root string) map[string]int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(raw), "\n## Which way imports run\n")
	require.True(t, found, "docs/layout.md has no section \"Which way imports run\"")
	section, _, _ = strings.Cut(section, "\n## ")
	layers := map[string]int{}
	for _, line := range strings.Split(section, "\n") {
		m := layerItem.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		for _, f := range strings.Split(m[2], ", ") {
			layers[strings.Trim(f, "`")] = n
		}
	}
	require.NotEmpty(t, layers, "docs/layout.md's import order lists no folder")
	return layers
}

// layerOf is the line of the longest folder in layers that holds pkg (relative to the module).
func layerOf(layers map[string]int, pkg string) (folder string, line int, ok bool) {
	for f, n := range layers {
		if (pkg == f || strings.HasPrefix(pkg, f+"/")) && len(f) > len(folder) {
			folder, line, ok = f, n, true
		}
	}
	return folder, line, ok
}

// TestImportsRunOneWay: every package's own imports (not its tests') stay on its line of
// docs/layout.md's import order or go below it, so that the layers the page names are the ones
// the code has.
func TestImportsRunOneWay(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	layers := importLayers(t, root)
	gocmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to list imports")
	cmd := exec.Command(gocmd, "list", "-m")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list -m")
	modulePath := strings.TrimSpace(string(out))
	for _, tags := range []string{"", "lambda"} {
		cmd := exec.Command(gocmd, "list", "-tags", tags, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
		cmd.Dir = root
		out, err := cmd.Output()
		require.NoError(t, err, "go list -tags %q ./...", tags)
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			pkg, ok := strings.CutPrefix(fields[0], modulePath+"/")
			if !ok {
				continue
			}
			folder, n, ok := layerOf(layers, pkg)
			if !assert.True(t, ok, "the import order's line of %s = none; want it placed in docs/layout.md", pkg) {
				continue
			}
			for _, imp := range fields[1:] {
				dep, ok := strings.CutPrefix(imp, modulePath+"/")
				if !ok {
					continue
				}
				depFolder, m, ok := layerOf(layers, dep)
				if ok && m < n {
					t.Errorf("%s (line %d, %s) imports %s (line %d, %s) with -tags %q; want imports from its own line or below", pkg, n, folder, dep, m, depFolder, tags)
				}
			}
		}
	}
}
