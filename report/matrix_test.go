package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// matrixColumns are three Node versions and one Go, given out of order: the matrix puts them in
// version order.
var matrixColumns = []Column{
	{Name: "node-v24.22.3", Kind: "node", Runtime: "Node v24.22.3"},
	{Name: "go1.27.3", Kind: "go", Runtime: "Go go1.27.3"},
	{Name: "node-v20.20.2", Kind: "node", Runtime: "Node v20.20.2"},
	{Name: "node-v22.11.0", Kind: "node", Runtime: "Node v22.11.0"},
}

// writeMatrixResult writes a result of claims with outcome into column's folder under dir.
func writeMatrixResult(t *testing.T, dir, column, experiment string, outcome verdict.Outcome, claims ...string) {
	t.Helper()
	r := results.Result{Experiment: experiment, Claims: claims, Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: outcome, Reason: string(outcome)}}
	name := strings.ReplaceAll(experiment, "/", "--") + ".json"
	_, err := results.Write(filepath.Join(dir, results.MatrixDir, column, "threadpool"), name, r)
	require.NoError(t, err)
}

// writeMatrixRefutation writes a failed result whose test asserts the refutation.
func writeMatrixRefutation(t *testing.T, dir, column, experiment string, claims ...string) {
	t.Helper()
	r := results.Result{Experiment: experiment, Claims: claims, Mode: results.ModeLocal,
		Verdict:  verdict.Verdict{Outcome: verdict.Fail, Reason: "refuted"},
		Expected: &results.Expected{Outcome: verdict.Fail, Why: "a reason"}}
	name := strings.ReplaceAll(experiment, "/", "--") + ".json"
	_, err := results.Write(filepath.Join(dir, results.MatrixDir, column, "threadpool"), name, r)
	require.NoError(t, err)
}

// matrixRowOf is the row of claim in m.
func matrixRowOf(t *testing.T, m Matrix, claim string) MatrixRow {
	t.Helper()
	for _, r := range m.Rows {
		if r.Claim == claim {
			return r
		}
	}
	require.Failf(t, "no row", "claim %s has no row in the matrix", claim)
	return MatrixRow{}
}

func TestMatrixMarksOnlyTheRowsWhoseVerdictDiffers(t *testing.T) {
	dir := t.TempDir()
	// P1 passes everywhere; P5 passes on 20 and 22 and fails on 24; P3 has no result on 22 and
	// two results on 24, one failed.
	writeMatrixResult(t, dir, "node-v20.20.2", "TestSyncBlocksLoop/node20", verdict.Pass, "P1")
	writeMatrixResult(t, dir, "node-v22.11.0", "TestSyncBlocksLoop/node22", verdict.Pass, "P1")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestSyncBlocksLoop/node24", verdict.Pass, "P1")
	writeMatrixResult(t, dir, "node-v20.20.2", "TestPoolSizeFromInsideProgram", verdict.Pass, "P5")
	writeMatrixResult(t, dir, "node-v22.11.0", "TestPoolSizeFromInsideProgram", verdict.Pass, "P5")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestPoolSizeFromInsideProgram", verdict.Fail, "P5")
	writeMatrixResult(t, dir, "node-v20.20.2", "TestPoolSlots/node20/default", verdict.Pass, "P3")
	writeMatrixRefutation(t, dir, "node-v20.20.2", "TestSharedPoolInterference/node20/P7", "P7")
	writeMatrixRefutation(t, dir, "node-v24.22.3", "TestSharedPoolInterference/node24/P7", "P7")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestThreadpoolAPITable/node24", verdict.Fail, "P2", "P7")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestPoolSlots/node24/default", verdict.Pass, "P3")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestPoolSlots/node24/UV_THREADPOOL_SIZE=8", verdict.Inconclusive, "P3")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestPoolWaves/node24", verdict.Pass, "P3")

	m, err := BuildMatrix(dir, matrixColumns, []SkippedRun{{Runtime: "Node 99.0.0", Reason: "npm: no such version"}})
	require.NoError(t, err)
	var names []string
	for _, c := range m.Columns {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"node-v20.20.2", "node-v22.11.0", "node-v24.22.3", "go1.27.3"}, names, "columns: Node's by version, then Go's")

	p1 := matrixRowOf(t, m, "P1")
	assert.False(t, p1.Differs(), "P1 passes on every runtime; marked as differing: %v", p1.Changes)
	for _, c := range p1.Cells {
		assert.False(t, c.Changed, "P1's cell %s marked as changed", c.Column)
	}

	p5 := matrixRowOf(t, m, "P5")
	require.Len(t, p5.Cells, 3, "P5's cells: one per Node column, none for Go")
	assert.Equal(t, []string{"Node v22.11.0 (pass) → Node v24.22.3 (fail)"}, p5.Changes, "where P5 changed")
	assert.Equal(t, []bool{false, false, true}, []bool{p5.Cells[0].Changed, p5.Cells[1].Changed, p5.Cells[2].Changed})
	want, err := catalog.Lookup("P5")
	require.NoError(t, err)
	assert.Equal(t, want.VersionChange, p5.Why, "a row that differs carries the catalog's cause")
	assert.NotEmpty(t, p5.Why)

	p3 := matrixRowOf(t, m, "P3")
	assert.Equal(t, verdict.Outcome(""), p3.Cells[1].Outcome, "P3 on Node 22 has no result")
	assert.Equal(t, verdict.Inconclusive, p3.Cells[2].Outcome, "one pass and one inconclusive make the cell inconclusive")
	assert.Equal(t, []string{"Node v20.20.2 (pass) → Node v24.22.3 (inconclusive)"}, p3.Changes, "a change is read across a column without a result")
	assert.Empty(t, p3.Why, "P3 has no known cause in the catalog")
	require.Len(t, p3.Cells[2].Results, 3)
	var labels []string
	for _, l := range p3.Cells[2].Results {
		labels = append(labels, l.Label)
	}
	assert.ElementsMatch(t, []string{"UV_THREADPOOL_SIZE=8", "default", "TestPoolWaves"}, labels,
		"a result's label is its subtests without the runtime, else its test without the runtime")

	p7 := matrixRowOf(t, m, "P7")
	assert.True(t, p7.Cells[0].Asserted, "a refutation its test asserts is marked so")
	assert.False(t, p7.Cells[2].Asserted, "a cell with a failed result that no test asserts is a plain fail")
	assert.Equal(t, verdict.Fail, p7.Cells[2].Outcome)

	var md bytes.Buffer
	require.NoError(t, WriteMatrixMarkdown(&md, m))
	out := md.String()
	assert.Contains(t, out, "| P7 | [fail (refutation asserted)](matrix/node-v20.20.2/threadpool/TestSharedPoolInterference--node20--P7.json) | — | fail: ")
	assert.Contains(t, out, "| claim | Node v20.20.2 | Node v22.11.0 | Node v24.22.3 |")
	assert.Contains(t, out, "| P5 ≠ | [pass](matrix/node-v20.20.2/threadpool/TestPoolSizeFromInsideProgram.json) | [pass](matrix/node-v22.11.0/threadpool/TestPoolSizeFromInsideProgram.json) | [**fail**](matrix/node-v24.22.3/threadpool/TestPoolSizeFromInsideProgram.json) |")
	assert.Contains(t, out, "| P1 | [pass]", "a row whose verdicts agree is not marked")
	assert.Contains(t, out, "| P3 ≠ | [pass](matrix/node-v20.20.2/threadpool/TestPoolSlots--node20--default.json) | — | **inconclusive**: [UV_THREADPOOL_SIZE=8]")
	assert.Contains(t, out, "P5: Node v22.11.0 (pass) → Node v24.22.3 (fail). Why: "+want.VersionChange)
	assert.Contains(t, out, "P3: Node v20.20.2 (pass) → Node v24.22.3 (inconclusive). Why: cause not found yet.")
	assert.Contains(t, out, "- Node 99.0.0: npm: no such version", "a runtime that could not be installed is named")
	assert.Contains(t, out, "| claim | Go go1.27.3 |", "a column with no results keeps its place")
}

func TestReportShowsTheMatrixAndLeavesItsResultsOutOfTheSummary(t *testing.T) {
	dir := t.TempDir()
	writeMatrixResult(t, dir, "node-v20.20.2", "TestPoolSizeFromInsideProgram", verdict.Pass, "P5")
	writeMatrixResult(t, dir, "node-v24.22.3", "TestPoolSizeFromInsideProgram", verdict.Fail, "P5")
	_, err := results.Write(filepath.Join(dir, "threadpool"), "TestSyncBlocksLoop--node24.json",
		results.Result{Experiment: "TestSyncBlocksLoop/node24", Claims: []string{"P1"}, Mode: results.ModeLocal, Verdict: verdict.Verdict{Outcome: verdict.Pass}})
	require.NoError(t, err)
	m, err := BuildMatrix(dir, matrixColumns, nil)
	require.NoError(t, err)
	m.Generated = "2026-12-02T00:00:00Z"
	data, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, MatrixFile), data, 0o644))

	s, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, s.Entries, 1, "the summary's results; the matrix's runtimes' results are not among them")
	require.NotNil(t, s.Matrix, "Load reads matrix.json")
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, s, time.Now()))
	html := page.String()
	assert.Contains(t, html, `<h2 id="matrix">Runtime matrix</h2>`)
	assert.Contains(t, html, `<tr data-claim="P5" class="differs">`)
	assert.Contains(t, html, `<td class="verdict fail changed" data-column="node-v24.22.3"><a href="matrix/node-v24.22.3/threadpool/TestPoolSizeFromInsideProgram.json">fail</a></td>`,
		"the cell where P5 changed links to its result")
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, s))
	assert.Contains(t, md.String(), "The runtime matrix (`make matrix`, 2026-12-02T00:00:00Z)")
}

// TestFunctionColumnsFollowTheGoVersions: the cold-start function's language columns come after
// the Go versions, in the catalog's order, so that adjacent Go columns stay adjacent versions.
func TestFunctionColumnsFollowTheGoVersions(t *testing.T) {
	cols := []Column{
		{Name: "function-python", Kind: "go", Runtime: "Go go1.26.8"},
		{Name: "go-go1.27.3", Kind: "go", Runtime: "Go go1.27.3"},
		{Name: "function-rust", Kind: "go", Runtime: "Go go1.26.8"},
		{Name: "go-local", Kind: "go", Runtime: "Go go1.26.8"},
		{Name: "node-24", Kind: "node", Runtime: "Node v24.22.3"},
	}
	slices.SortStableFunc(cols, CompareColumns)
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"node-24", "go-local", "go-go1.27.3", "function-rust", "function-python"}, names, "column order")
}
