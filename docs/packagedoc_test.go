package docs_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// experimentOf is the experiment package that decides the claims of each ID prefix.
var experimentOf = map[byte]string{'W': "eventloop", 'T': "coldstart", 'P': "threadpool"}

// TestExperimentDocsNameTheirClaims keeps each experiment package's doc.go, what `go doc` shows
// of a package that is otherwise tests only, saying what it decides: every claim of its prefix
// that a test decides is named there on its own (a range such as W6-W9 names only its ends).
func TestExperimentDocsNameTheirClaims(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	docs := map[string]string{}
	for _, pkg := range experimentOf {
		path := filepath.Join(root, "experiments", pkg, "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		require.NoError(t, err, "parsing %s", path)
		require.NotNil(t, f.Doc, "package doc of experiments/%s = none in doc.go; want what it decides and how", pkg)
		docs[pkg] = f.Doc.Text()
	}
	for _, c := range catalog.All() {
		if c.Pending != "" {
			continue
		}
		pkg, ok := experimentOf[c.ID[0]]
		if !assert.True(t, ok, "claim %s = no experiment package for its prefix; want one in experimentOf", c.ID) {
			continue
		}
		named := regexp.MustCompile(`\b` + c.ID + `\b`).MatchString(docs[pkg])
		assert.True(t, named, "experiments/%s/doc.go names %s = no; want it named with its test and how it is decided (go doc ./experiments/%s)", pkg, c.ID, pkg)
	}
}
