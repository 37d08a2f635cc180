package catalog_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/mdtable"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// claimID is how tests and README rows name a claim.
var claimID = regexp.MustCompile(`^[WTP][0-9]+$`)

// wantIDs is every ID the catalog must hold, in its order.
func wantIDs() []string {
	var ids []string
	for _, family := range []struct {
		prefix string
		n      int
	}{{"W", 12}, {"T", 8}, {"P", 11}} {
		for i := 1; i <= family.n; i++ {
			ids = append(ids, fmt.Sprintf("%s%d", family.prefix, i))
		}
	}
	return ids
}

// sentenceBreak is the end of a sentence before the last: a full stop, question or exclamation
// mark followed by a space. Statements avoid abbreviations, so this never fires inside one.
var sentenceBreak = regexp.MustCompile(`[.!?]\s`)

func TestCatalogIsComplete(t *testing.T) {
	all := catalog.All()
	ids := make([]string, len(all))
	for i, c := range all {
		ids[i] = c.ID
	}
	assert.Equal(t, wantIDs(), ids, "catalog IDs = %v; want W1-W12, T1-T8, P1-P11, each once, in order", ids)

	for _, c := range all {
		assert.NotEmpty(t, c.Statement, "%s statement = empty; want the claim in one sentence", c.ID)
		if c.Statement != "" {
			assert.True(t, strings.HasSuffix(c.Statement, ".") && !sentenceBreak.MatchString(c.Statement) && !strings.Contains(c.Statement, "\n"),
				"%s statement = %q; want one sentence, ending in a full stop", c.ID, c.Statement)
		}
		assert.Contains(t, []catalog.Kind{catalog.Local, catalog.Live, catalog.Both}, c.Kind, "%s kind = %q; want local, live or both", c.ID, c.Kind)
		if c.Pending != "" {
			assert.Equal(t, catalog.Live, c.Kind, "%s kind = %q; want live (only a live claim may wait for a test: %q)", c.ID, c.Kind, c.Pending)
		}

		s := c.Source
		assert.NotEmpty(t, s.Title, "%s source title = empty; want the article's title", c.ID)
		assert.NotEmpty(t, s.Author, "%s source author = empty; want who published it", c.ID)
		if s.Date != "" {
			_, err := time.Parse(time.DateOnly, s.Date)
			assert.NoError(t, err, "%s source date = %q; want YYYY-MM-DD, or empty where the source gives none", c.ID, s.Date)
		}
		if s.URL != "" {
			u, err := url.Parse(s.URL)
			assert.True(t, err == nil && u.Scheme == "https" && u.Host != "", "%s source URL = %q; want an https address", c.ID, s.URL)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, want := range catalog.All() {
		got, err := catalog.Lookup(want.ID)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := catalog.Lookup("W99")
	require.Error(t, err, "Lookup of an unknown ID")
	assert.Contains(t, err.Error(), `"W99"`, "the error names the unknown ID")
}

func TestAllReturnsACopy(t *testing.T) {
	mine := catalog.All()
	mine[0].Statement = "changed"
	assert.NotEqual(t, "changed", catalog.All()[0].Statement, "All()[0].Statement after changing a returned slice; want the catalog unchanged")
}

// repoRoot is the repository's root, where go.mod is.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	require.NoError(t, err)
	return root
}

// namedIDs finds every claim ID that a test under experiments/ names, with where it names it:
// string literals in []string{...} composite literals, the way tests list the claims they
// decide. It parses rather than builds, so files behind every build tag count.
func namedIDs(t *testing.T, root string) map[string][]string {
	t.Helper()
	dir := filepath.Join(root, "experiments")
	fset := token.NewFileSet()
	named := map[string][]string{}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isStringSlice(lit.Type) {
				return true
			}
			for _, e := range lit.Elts {
				s, ok := e.(*ast.BasicLit)
				if !ok || s.Kind != token.STRING {
					continue
				}
				id, err := strconv.Unquote(s.Value)
				if err == nil && claimID.MatchString(id) {
					pos := fset.Position(s.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					named[id] = append(named[id], fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line))
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err, "reading the tests under %s", dir)
	require.NotZero(t, files, "test files under %s", dir)
	return named
}

// isStringSlice reports whether a composite literal's type is []string.
func isStringSlice(typ ast.Expr) bool {
	arr, ok := typ.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return false
	}
	elt, ok := arr.Elt.(*ast.Ident)
	return ok && elt.Name == "string"
}

func TestEveryClaimHasATest(t *testing.T) {
	named := namedIDs(t, repoRoot(t))

	for _, c := range catalog.All() {
		where := named[c.ID]
		if c.Pending == "" {
			assert.NotEmpty(t, where, "tests naming %s = none; want at least one (no []string{...} under experiments/ names it, and its entry has no Pending)", c.ID)
		} else {
			assert.Empty(t, where, "tests naming %s = %v; want none while it is pending (a test names it now: clear its Pending %q)", c.ID, where, c.Pending)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(named)) {
		_, err := catalog.Lookup(id)
		assert.NoError(t, err, "claim %s named at %v = not in the catalog; want a registered ID", id, named[id])
	}
}

// claimsSection is the README's section whose tables list the claims.
const claimsSection = "## Claims and their tests"

// readmeRow is one table row of claimsSection.
type readmeRow struct {
	line  int // 1-based, in README.md
	cells []string
}

// claimRows returns the Markdown table rows of README.md's claimsSection.
func claimRows(t *testing.T, root string) []readmeRow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	var rows []readmeRow
	in, found := false, false
	for i, line := range strings.Split(string(raw), "\n") {
		switch {
		case line == claimsSection:
			in, found = true, true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in && strings.HasPrefix(strings.TrimSpace(line), "|"):
			rows = append(rows, readmeRow{line: i + 1, cells: mdtable.SplitRow(line)})
		}
	}
	require.True(t, found, "README.md has no line %q", claimsSection)
	return rows
}

// anyClaimID finds claim IDs anywhere in a cell, to catch a row that names several.
var anyClaimID = regexp.MustCompile(`\b[WTP][0-9]+\b`)

func TestReadmeTablesMatchTheCatalog(t *testing.T) {
	rows := claimRows(t, repoRoot(t))

	listed := map[string]int{}
	for _, r := range rows {
		first := r.cells[0]
		if !claimID.MatchString(first) {
			assert.Empty(t, anyClaimID.FindAllString(first, -1), "README.md:%d first cell = %q; want exactly one claim ID", r.line, first)
			continue
		}
		listed[first]++
		c, err := catalog.Lookup(first)
		if !assert.NoError(t, err, "README.md:%d claim %s = not in the catalog; want a registered ID", r.line, first) {
			continue
		}
		says := ""
		if len(r.cells) > 1 {
			says = r.cells[1]
		}
		assert.Equal(t, c.Statement, says, "README.md:%d %s what it says = %q; want the catalog's statement %q", r.line, first, says, c.Statement)
	}
	for _, c := range catalog.All() {
		if c.Pending == "" {
			assert.NotZero(t, listed[c.ID], "README rows for %s = none; want one in %q (it has a test)", c.ID, claimsSection)
		}
	}
}
