// Package docs_test checks the documents in docs/ against the code they describe.
package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/mdtable"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// fidelityColumns are docs/fidelity.md's columns, in order.
var fidelityColumns = []string{"behaviour", "source", "what the stand-in does", "stand-in test", "live-code test"}

// testRef is a test named in a cell: `<package dir>.<TestName>`, a subtest's path optional.
var testRef = regexp.MustCompile("`([a-z0-9_./-]+)\\.(Test[A-Za-z0-9_]+)(/[^`]*)?`")

// source is what a source cell must hold: a documentation URL, a repository's file
// (owner/name path/to/file), or the words that no source was found, with the safe side taken.
var source = regexp.MustCompile(`https://\S+|\b[\w.-]+/[\w.-]+ [\w.-]+(/[\w.@-]+)+|^none found: \S`)

// noTest is how a test cell says that one side has no test: a dash, then why.
var noTest = regexp.MustCompile(`^— \S`)

func fidelityRows(t *testing.T) []mdtable.Row {
	t.Helper()
	path, err := repo.Path("docs/fidelity.md")
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	rows := mdtable.Rows(string(raw))
	require.NotEmpty(t, rows, "rows of docs/fidelity.md = none; want one per behaviour of AWS the live path relies on")
	return rows
}

// testsIn returns the names of the top-level test functions declared in dir's _test.go files,
// whatever their build tags.
func testsIn(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	for _, f := range files {
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err, "parsing %s", f)
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names[fn.Name.Name] = true
			}
		}
	}
	return names
}

func TestFidelityRowsAreWhole(t *testing.T) {
	seen := map[string]int{}
	for _, r := range fidelityRows(t) {
		if !assert.Len(t, r.Cells, len(fidelityColumns), "docs/fidelity.md:%d cells = %q; want the columns %q", r.Line, r.Cells, fidelityColumns) {
			continue
		}
		for i, c := range r.Cells {
			assert.NotEmpty(t, c, "docs/fidelity.md:%d %s = empty; want it filled (a test cell with no test says why after a dash)", r.Line, fidelityColumns[i])
		}
		behaviour := r.Cells[0]
		if prev, dup := seen[behaviour]; dup {
			t.Errorf("docs/fidelity.md:%d behaviour %q = also on line %d; want each behaviour once", r.Line, behaviour, prev)
		}
		seen[behaviour] = r.Line
		assert.Regexp(t, source, r.Cells[1], "docs/fidelity.md:%d source = %q; want a URL, a repository's file (owner/name path) or \"none found: \" and the safe side taken", r.Line, r.Cells[1])
	}
}

func TestFidelityTestsExist(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	declared := map[string]map[string]bool{}
	for _, r := range fidelityRows(t) {
		if len(r.Cells) != len(fidelityColumns) {
			continue // TestFidelityRowsAreWhole names it
		}
		for _, col := range []int{3, 4} {
			cell := r.Cells[col]
			refs := testRef.FindAllStringSubmatch(cell, -1)
			if len(refs) == 0 {
				assert.Regexp(t, noTest, cell, "docs/fidelity.md:%d %s = %q; want `dir.TestName` or \"— \" and why there is none", r.Line, fidelityColumns[col], cell)
				continue
			}
			for _, ref := range refs {
				dir, name := ref[1], ref[2]
				if declared[dir] == nil {
					declared[dir] = testsIn(t, filepath.Join(root, filepath.FromSlash(dir)))
				}
				assert.True(t, declared[dir][name], "docs/fidelity.md:%d %s names %s.%s = no such test in %s/*_test.go; want a test that exists", r.Line, fidelityColumns[col], dir, name, dir)
			}
		}
	}
}
