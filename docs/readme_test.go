package docs_test

import (
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

// measured is what a figure from a run looks like in prose: a number with a unit of time or a
// percentage, a multiple, or a date.
var measured = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|s|%|minutes?|min|times)(\W|$)|\b\d+m\d+s\b|\b20\d\d-\d\d-\d\d\b`)

// TestReadmeQuotesNoRunsFigures keeps one run's figures out of the front page: they go stale,
// and they live in the generated results/report.md and results/matrix.md, which it links.
func TestReadmeQuotesNoRunsFigures(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	for i, line := range strings.Split(string(raw), "\n") {
		text := line
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			// A claim table's row: its statement is the catalog's, which may quote the article's
			// figures (the table is generated: TestReadmeTablesAreGenerated); every other cell is checked.
			cells := mdtable.SplitRow(line)
			if len(cells) > 1 {
				cells = slices.Delete(cells, 1, 2)
			}
			text = strings.Join(cells, " | ")
		}
		m := measured.FindString(text)
		assert.Empty(t, m, "README.md:%d figure = %q; want none outside the claims' statements (a run's figures belong in results/report.md): %q", i+1, m, line)
	}
}
