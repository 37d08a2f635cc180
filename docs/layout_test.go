package docs_test

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/mdtable"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// layoutPackage is a layout table's first cell: a package directory, relative to the root.
var layoutPackage = regexp.MustCompile("^`([a-z0-9_-]+(/[a-z0-9_-]+)*)`$")

// packageDirs returns every directory under root that holds a Go file, by the go command's
// rules for ./...: testdata, and names starting with . or _, are left out (and node_modules,
// which holds no Go of ours).
func packageDirs(t *testing.T, root string) map[string]bool {
	t.Helper()
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	require.NoError(t, err, "walking %s", root)
	require.NotEmpty(t, dirs, "package directories under %s = none; want the repository's", root)
	return dirs
}

// TestLayoutListsEveryPackage keeps docs/layout.md's tables and the tree in step: each package
// directory in one row, each row a package directory.
func TestLayoutListsEveryPackage(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	require.NoError(t, err)
	have := packageDirs(t, root)

	listed := map[string]int{}
	for _, r := range mdtable.Rows(string(raw)) {
		m := layoutPackage.FindStringSubmatch(r.Cells[0])
		if !assert.NotNil(t, m, "docs/layout.md:%d first cell = %q; want a package directory in backquotes", r.Line, r.Cells[0]) {
			continue
		}
		dir := m[1]
		if prev, dup := listed[dir]; dup {
			t.Errorf("docs/layout.md:%d package %s = also on line %d; want each package once", r.Line, dir, prev)
		}
		listed[dir] = r.Line
		assert.True(t, have[dir], "docs/layout.md:%d package %s = no Go files there; want a package directory of the repository (moved or removed?)", r.Line, dir)
		assert.True(t, len(r.Cells) > 1 && r.Cells[1] != "", "docs/layout.md:%d %s = no description; want what it is", r.Line, dir)
	}
	for _, dir := range slices.Sorted(maps.Keys(have)) {
		_, ok := listed[dir]
		assert.True(t, ok, "docs/layout.md rows for %s = none; want one in its role's table (go doc ./%s says what it is)", dir, dir)
	}
}
