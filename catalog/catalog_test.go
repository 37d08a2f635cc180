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
	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
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
	}{{"W", 12}, {"T", 9}, {"P", 11}} {
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
	assert.Equal(t, wantIDs(), ids, "catalog IDs = %v; want W1-W12, T1-T9, P1-P11, each once, in order", ids)

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

// testFuncs finds every top-level test and benchmark function of each package under
// experiments/ (its folder name), with where it is declared. It parses rather than builds, so
// files behind every build tag count.
func testFuncs(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	dir := filepath.Join(root, "experiments")
	fset := token.NewFileSet()
	funcs := map[string]map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.Base(filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !(strings.HasPrefix(fn.Name.Name, "Test") || strings.HasPrefix(fn.Name.Name, "Benchmark")) {
				continue
			}
			if funcs[pkg] == nil {
				funcs[pkg] = map[string]string{}
			}
			rel, _ := filepath.Rel(root, fset.Position(fn.Pos()).Filename)
			funcs[pkg][fn.Name.Name] = fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(fn.Pos()).Line)
		}
		return nil
	})
	require.NoError(t, err, "reading the tests under %s", dir)
	require.NotEmpty(t, funcs, "test functions under %s", dir)
	return funcs
}

// brokenTestPrefix begins the name of each package's test of its claim tests (claimtest.CatchBroken).
const brokenTestPrefix = "TestCatchesBroken"

func TestEveryClaimHasATest(t *testing.T) {
	root := repoRoot(t)
	funcs := testFuncs(t, root)

	deciding := map[string][]string{}
	seen := map[string]bool{}
	for _, ct := range catalog.Tests() {
		name := ct.Package + "." + ct.Name
		assert.False(t, seen[name], "catalog.Tests lists %s twice", name)
		seen[name] = true
		_, declared := funcs[ct.Package][ct.Name]
		assert.True(t, declared, "%s = not declared in experiments/%s; want the claim test catalog.Tests names", name, ct.Package)
		assert.False(t, strings.HasPrefix(ct.Name, brokenTestPrefix), "%s: a test of the claim tests is not a claim test", name)
		assert.NotEmpty(t, ct.Claims, "%s claims = none; want the IDs it decides", name)
		for _, id := range ct.Claims {
			_, err := catalog.Lookup(id)
			assert.NoError(t, err, "%s decides %s = not in the catalog; want a registered ID", name, id)
			deciding[id] = append(deciding[id], name)
		}
		assert.Contains(t, []catalog.Kind{catalog.Local, catalog.Live, catalog.Both}, ct.Kind, "%s kind = %q; want local, live or both", name, ct.Kind)
		for _, r := range ct.Runtimes {
			assert.Contains(t, []string{catalog.Node, catalog.Go}, r, "%s runtime = %q; want node or go", name, r)
		}
		for _, f := range ct.Functions {
			assert.Contains(t, catalog.FunctionLanguages, f, "%s function language = %q; want one of %v", name, f, catalog.FunctionLanguages)
		}
		if ct.Kind == catalog.Live {
			assert.Empty(t, ct.Runtimes, "%s runtimes = %v; want none: the matrix runs the default build, which has no %s", name, ct.Runtimes, ct.Name)
		}
	}
	for _, c := range catalog.All() {
		if c.Pending == "" {
			assert.NotEmpty(t, deciding[c.ID], "tests deciding %s = none; want at least one in catalog.Tests (its entry has no Pending)", c.ID)
		} else {
			assert.Empty(t, deciding[c.ID], "tests deciding %s = %v; want none while it is pending (clear its Pending %q)", c.ID, deciding[c.ID], c.Pending)
		}
	}
	named := namedIDs(t, root)
	for _, id := range slices.Sorted(maps.Keys(named)) {
		_, err := catalog.Lookup(id)
		assert.NoError(t, err, "claim %s named at %v = not in the catalog; want a registered ID", id, named[id])
	}
}

// makeRef is a reference to another Makefile variable, $(NAME), in a value.
var makeRef = regexp.MustCompile(`\$\(([A-Z_]+)\)`)

// makeVar returns the value of the Makefile's `name := value` line, with the variables it
// references expanded, as make expands them.
func makeVar(t *testing.T, root, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, name+" := "); ok {
			return makeRef.ReplaceAllStringFunc(strings.TrimSpace(v), func(ref string) string {
				return makeVar(t, root, makeRef.FindStringSubmatch(ref)[1])
			})
		}
	}
	require.Failf(t, "no Makefile variable", "Makefile has no line %q", name+" := ...")
	return ""
}

// testsOfKind are the names of catalog.Tests of kind k, sorted.
func testsOfKind(k catalog.Kind) []string {
	var names []string
	for _, ct := range catalog.Tests() {
		if ct.Kind == k && strings.HasPrefix(ct.Name, "Test") {
			names = append(names, ct.Name)
		}
	}
	slices.Sort(names)
	return names
}

func TestMakefileSelectionsAreTheCatalogsClaimTests(t *testing.T) {
	root := repoRoot(t)
	// The selections come from the catalog, through the file the Makefile writes and includes:
	// the Makefile assigns none of them itself.
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	assert.Contains(t, string(makefile), "\ninclude $(SELECTIONS)\n", "Makefile: want it to include the selections cmd/selections writes")
	var generated strings.Builder
	require.NoError(t, catalog.WriteMakefile(&generated))
	for _, sel := range catalog.Selections() {
		assigned := regexp.MustCompile(`(?m)^` + sel.Name + `\s*[:?]?=`)
		assert.False(t, assigned.Match(makefile), "Makefile assigns %s itself; want it from the catalog (catalog.Selections)", sel.Name)
		assert.Contains(t, generated.String(), "\n"+sel.Name+" := "+strings.Join(sel.Value, "|")+"\n", "the generated %s", sel.Name)
		assert.NotEmpty(t, sel.Value, "selection %s = none; want at least one name", sel.Name)
	}
	sel := map[string][]string{}
	for _, s := range catalog.Selections() {
		sel[s.Name] = slices.Sorted(slices.Values(s.Value))
	}
	assert.Equal(t, testsOfKind(catalog.Both), sel["LIVE_CLAIMS"], "LIVE_CLAIMS; want catalog.Tests of kind %s", catalog.Both)
	assert.Equal(t, testsOfKind(catalog.Live), sel["ROUTER_CLAIMS"], "ROUTER_CLAIMS; want catalog.Tests of kind %s", catalog.Live)
	assert.Equal(t, slices.Sorted(slices.Values(catalog.FunctionLanguages[1:])), sel["OTHER_FUNCTION_LANGUAGES"], "OTHER_FUNCTION_LANGUAGES; want catalog.FunctionLanguages but go")
	var goOnly []string
	for _, ct := range catalog.Tests() {
		if len(ct.Functions) > 0 && !ct.EveryLanguageInTest {
			goOnly = append(goOnly, ct.Name)
		}
	}
	slices.Sort(goOnly)
	assert.Equal(t, goOnly, sel["GO_FUNCTION_ONLY_CLAIMS"], "GO_FUNCTION_ONLY_CLAIMS; want every test with Functions but those make test runs on every language")

	// NOT_CLAIMS is `make experiments`' -skip: go test matches it against each top-level name.
	notClaims := makeVar(t, root, "NOT_CLAIMS")
	skip, err := regexp.Compile(notClaims)
	require.NoError(t, err, "Makefile NOT_CLAIMS = %q", notClaims)
	for _, ct := range catalog.Tests() {
		assert.False(t, skip.MatchString(ct.Name), "Makefile NOT_CLAIMS = %q skips %s.%s; want no claim test left out of `make experiments`", notClaims, ct.Package, ct.Name)
	}
	// BUSY_BROKEN_CASES are the tests of the claim tests that `make test` runs on a busy machine
	// (catches) and leaves out of its claim stage: each must be one; the others run in that stage.
	busy := strings.Split(makeVar(t, root, "BUSY_BROKEN_CASES"), "|")
	brokenTests := map[string]bool{}
	broken := 0
	for pkg, funcs := range testFuncs(t, root) {
		for name, where := range funcs {
			if strings.HasPrefix(name, brokenTestPrefix) {
				broken++
				brokenTests[name] = true
				assert.True(t, skip.MatchString(name), "Makefile NOT_CLAIMS = %q runs %s.%s (%s); want the tests of the claim tests left out of `make experiments`", notClaims, pkg, name, where)
			}
		}
	}
	for _, name := range busy {
		assert.True(t, brokenTests[name], "Makefile BUSY_BROKEN_CASES names %s = not a %s... test under experiments/; want only tests of the claim tests, by their names", name, brokenTestPrefix)
	}
	assert.NotZero(t, broken, "%s... tests under experiments/ = none; want one per package", brokenTestPrefix)
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

// TestReadmeTablesAreGenerated: README.md's claim tables are what the catalog generates
// (catalog.UpdateReadme, which `go generate ./catalog` writes), so that no statement or test
// name in them is typed by hand; and, since the tables list tests by package and kind, every
// claim that has a test has a row in them.
func TestReadmeTablesAreGenerated(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	want, err := catalog.UpdateReadme(raw)
	require.NoError(t, err, "README.md's markers of the generated tables")
	if line, got, wanted := firstDifference(string(raw), string(want)); line != 0 {
		assert.Failf(t, "README.md tables differ from what the catalog generates; run go generate ./catalog",
			"README.md:%d = %q; want %q (the first line that differs)", line, got, wanted)
	}

	listed := map[string]int{}
	for _, r := range claimRows(t, root) {
		first := r.cells[0]
		if claimID.MatchString(first) {
			listed[first]++
			continue
		}
		assert.Empty(t, anyClaimID.FindAllString(first, -1), "README.md:%d first cell = %q; want exactly one claim ID", r.line, first)
	}
	for _, c := range catalog.All() {
		if c.Pending == "" {
			assert.NotZero(t, listed[c.ID], "README rows for %s = none; want one in %q (it has a test: a table of catalog.ReadmeTables must list its tests)", c.ID, claimsSection)
		}
	}
}

// TestUpdateReadmeRefusesBadMarkers: a table whose markers are missing, unclosed or misnamed
// fails the generation, rather than leaving README.md without that table unseen.
func TestUpdateReadmeRefusesBadMarkers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	require.NoError(t, err)
	readme := string(raw)
	const begin = "<!-- generated by go generate ./catalog: the routing claims; do not edit -->"
	require.Contains(t, readme, begin, "README.md's markers")
	for name, broken := range map[string]string{
		"missing":  strings.Replace(readme, begin, "", 1),
		"misnamed": strings.Replace(readme, begin, strings.Replace(begin, "routing", "rooting", 1), 1),
		"twice":    strings.Replace(readme, begin, begin+"\n<!-- end generated -->\n"+begin, 1),
		"unclosed": readme[:strings.Index(readme, begin)+len(begin)+1],
	} {
		_, err := catalog.UpdateReadme([]byte(broken))
		assert.Error(t, err, "UpdateReadme of README.md with the routing claims' marker %s = nil error; want it refused", name)
	}
}

// firstDifference is the first line, 1-based, where got and want differ, with each one's text
// there ("" past its end).
func firstDifference(got, want string) (line int, gotLine, wantLine string) {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		at := func(lines []string) string {
			if i < len(lines) {
				return lines[i]
			}
			return ""
		}
		if at(g) != at(w) || i >= len(g) || i >= len(w) {
			return i + 1, at(g), at(w)
		}
	}
	return 0, "", ""
}

// TestEveryFunctionLanguageHasItsFunction: functions names a folder of the GetItem function for
// each of the catalog's languages, which harness/lambda/lambdazip builds (lambdazip.Languages is
// made from them).
func TestEveryFunctionLanguageHasItsFunction(t *testing.T) {
	for _, l := range lambdazip.Languages {
		_, err := functions.GetItem(l)
		assert.NoError(t, err, "the GetItem function in %s", l)
	}
}

// TestLanguageName: the report's and the pages' name of a function language is the catalog's, and
// a language the catalog does not list keeps the name it was given.
func TestLanguageName(t *testing.T) {
	for l, want := range map[string]string{"go": "Go", "node": "Node.js", "java": "java"} {
		assert.Equal(t, want, catalog.LanguageName(l), "LanguageName(%q)", l)
	}
}

// testNameInText is a test's name, or a prefix of names that a -run pattern matches, in prose or
// in a Makefile's patterns.
var testNameInText = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9]*`)

// TestMakefileAndReadmeNameOnlyTestsThatExist: a name in the Makefile's patterns, the README or
// docs/ that no test has (a test renamed, or removed) would select nothing and say nothing; each must be
// a test function of the repository, or a prefix that names some (TestCatchesBroken...).
func TestMakefileAndReadmeNameOnlyTestsThatExist(t *testing.T) {
	root := repoRoot(t)
	var names []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "results":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names = append(names, fn.Name.Name)
			}
		}
		return nil
	})
	require.NoError(t, err, "reading the repository's tests")
	files := []string{"Makefile", "README.md"}
	docs, err := fs.Glob(os.DirFS(root), "docs/*.md")
	require.NoError(t, err)
	for _, file := range append(files, docs...) {
		raw, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for i, line := range strings.Split(string(raw), "\n") {
			for _, named := range testNameInText.FindAllString(line, -1) {
				assert.True(t, slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, named) }),
					"%s:%d names %s = no test of the repository; want a test function's name, or a prefix of some", file, i+1, named)
			}
		}
	}
}
