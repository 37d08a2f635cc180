package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// onNode is a local threadpool result of experiment on the Node version given, with checks.
func onNode(experiment, node string, outcome verdict.Outcome, checks ...verdict.Check) results.Result {
	return results.Result{
		Experiment: experiment, Family: "threadpool.waves", Claims: []string{"P3"}, Mode: results.ModeLocal,
		Verdict:     verdict.Verdict{Outcome: outcome, Reason: "as the checks say", Checks: checks},
		Environment: results.Environment{Go: "go1.26.8", Node: node},
	}
}

// writeSet writes rs as a result set in a folder of its own (under threadpool/, or under the
// mode's folder for a result that is not local, as results.Save lays them out) and loads it.
func writeSet(t *testing.T, rs ...results.Result) Set {
	t.Helper()
	dir := t.TempDir()
	for _, r := range rs {
		sub := filepath.Join(dir, "threadpool")
		if r.Mode != results.ModeLocal {
			sub = filepath.Join(dir, r.Mode, "threadpool")
		}
		_, err := results.Write(sub, results.FileName(r.Experiment), r)
		require.NoError(t, err)
	}
	s, err := Load(dir)
	require.NoError(t, err)
	return s
}

// comparisonText is c as WriteComparison writes it.
func comparisonText(t *testing.T, c Comparison) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, WriteComparison(&b, c))
	return b.String()
}

func TestCompareASetWithItselfFindsNothing(t *testing.T) {
	band := verdict.Check{Name: "ratio", Got: "0.91 (0.78 to 1.09)", Want: "at most 1.20", Pass: true}
	s := writeSet(t,
		onNode("TestPoolSlots/node20/default", "v20.20.2", verdict.Pass, band),
		onNode("TestPoolSlots/node24/default", "v24.22.3", verdict.Pass, band),
		onNode("TestSharedPoolInterference/node24/P7", "v24.22.3", verdict.Fail))
	c := Compare(s, s)
	assert.Len(t, c.Pairs, 3, "pairs = %d; want every result with itself (%v)", len(c.Pairs), c.Pairs)
	for _, p := range c.Pairs {
		assert.Equal(t, p.Old.Path, p.New.Path, "a result paired with another of its own set")
	}
	assert.False(t, c.Differs(), "differs = true; want nothing for a set against itself (%+v)", c)
	assert.Contains(t, comparisonText(t, c), "no differences")
}

func TestCompareListsAFlippedVerdict(t *testing.T) {
	refuted := onNode("TestSharedPoolInterference/node24/P7", "v24.22.3", verdict.Fail)
	refuted.Expected = &results.Expected{Outcome: verdict.Fail, Why: "dns.lookup no longer waits for a slot"}
	old := writeSet(t,
		onNode("TestPoolSlots/node24/default", "v24.22.3", verdict.Pass),
		onNode("TestSharedPoolInterference/node24/P7", "v24.22.3", verdict.Fail))
	new := writeSet(t,
		onNode("TestPoolSlots/node24/default", "v24.22.3", verdict.Inconclusive),
		refuted)
	c := Compare(old, new)
	require.Len(t, c.Flips, 2, "flips = %+v; want the outcome of one result and the assertion of the other", c.Flips)
	assert.Equal(t, "TestPoolSlots/node24/default", c.Flips[0].Pair.New.Result.Experiment)
	assert.Equal(t, [2]string{"pass", "inconclusive"}, [2]string{c.Flips[0].Old, c.Flips[0].New})
	assert.False(t, c.Flips[0].Expected)
	assert.True(t, c.Flips[1].Expected, "flip = %+v; want the change of what the test asserts", c.Flips[1])

	out := comparisonText(t, c)
	assert.Contains(t, out, "Verdicts that flipped (2)")
	assert.Contains(t, out, "P3 TestPoolSlots/node24/default [local · Node v24.22.3]: verdict pass → inconclusive")
	assert.Contains(t, out, "asserted holds → refuted (fail): dns.lookup no longer waits for a slot")
	assert.NotContains(t, out, "no differences")
}

func TestComparePairsRuntimesByBase(t *testing.T) {
	// Node 22 live sorts before Node 24 local: only the mode decides which one pairs.
	live := onNode("TestPoolSlots/node22/default", "v22.22.0", verdict.Pass)
	live.Mode = results.ModeLive
	old := writeSet(t,
		onNode("TestPoolSlots/node20/default", "v20.20.2", verdict.Pass),
		onNode("TestPoolSlots/node20/UV_THREADPOOL_SIZE=8", "v20.20.2", verdict.Pass))
	new := writeSet(t,
		onNode("TestPoolSlots/node24/UV_THREADPOOL_SIZE=8", "v24.22.3", verdict.Fail),
		live,
		onNode("TestPoolSlots/node24/default", "v24.22.3", verdict.Pass))
	c := Compare(old, new)
	got := map[string]string{}
	for _, p := range c.Pairs {
		got[p.Old.Result.Experiment] = p.New.Result.Experiment + " " + p.New.Result.Mode
	}
	assert.Equal(t, map[string]string{
		"TestPoolSlots/node20/default":              "TestPoolSlots/node24/default local",
		"TestPoolSlots/node20/UV_THREADPOOL_SIZE=8": "TestPoolSlots/node24/UV_THREADPOOL_SIZE=8 local",
	}, got, "pairs by Base; want node20 with node24, a local result with the local one before the live one")
	require.Len(t, c.OnlyNew, 1)
	assert.Equal(t, results.ModeLive, c.OnlyNew[0].Result.Mode)

	out := comparisonText(t, c)
	assert.Contains(t, out, "P3 TestPoolSlots/node20/UV_THREADPOOL_SIZE=8 → TestPoolSlots/node24/UV_THREADPOOL_SIZE=8 "+
		"[local · Node v20.20.2 → local · Node v24.22.3]: verdict pass → fail", "a flip names both variants")

	// With no local result left in NEW, the local one pairs with its live one.
	c = Compare(old, writeSet(t, live))
	require.Len(t, c.Pairs, 1)
	assert.Equal(t, "TestPoolSlots/node20/default", c.Pairs[0].Old.Result.Experiment)
	assert.Equal(t, "local · Node v20.20.2 → live · Node v22.22.0", arrow(c.Pairs[0].Old.Variant(), c.Pairs[0].New.Variant()))
}

func TestCompareListsFiguresOutsideTheirBands(t *testing.T) {
	checks := func(crossed, inside, outside, count verdict.Check) []verdict.Check {
		return []verdict.Check{crossed, inside, outside, count}
	}
	old := writeSet(t, onNode("TestSyncBlocksLoop/node20", "v20.20.2", verdict.Pass, checks(
		verdict.Check{Name: "blocked / work", Got: "1.00", Want: "at least 0.90", Pass: true},
		verdict.Check{Name: "async / sync", Got: "0.91 (0.78 to 1.09)", Want: "at most 1.50", Pass: true},
		verdict.Check{Name: "async blocked / work", Got: "0.12 (0.05 to 0.30)", Want: "at most 0.50", Pass: true},
		verdict.Check{Name: "waited", Got: "20/20", Want: "20/20", Pass: true})...))
	new := writeSet(t, onNode("TestSyncBlocksLoop/node24", "v24.22.3", verdict.Fail, checks(
		verdict.Check{Name: "blocked / work", Got: "0.85", Want: "at least 0.90"},
		verdict.Check{Name: "async / sync", Got: "1.05 (0.70 to 1.60)", Want: "at most 1.50", Undecided: true},
		verdict.Check{Name: "async blocked / work", Got: "0.45 (0.40 to 0.50)", Want: "at most 0.50", Pass: true},
		verdict.Check{Name: "waited", Got: "19/20", Want: "20/20", Pass: true})...))
	c := Compare(old, new)
	require.Len(t, c.Moves, 3, "moves = %+v; want the crossed bound, the check left open and the figure outside", c.Moves)
	assert.Equal(t, "blocked / work", c.Moves[0].Old.Name)
	assert.True(t, c.Moves[0].Crossed)
	assert.Empty(t, c.Moves[0].Outside, "a figure without an interval is outside none")
	assert.Equal(t, "async / sync", c.Moves[1].Old.Name)
	assert.True(t, c.Moves[1].Crossed, "a check that held and is left open crossed its bound")
	assert.Empty(t, c.Moves[1].Outside, "1.05 lies inside (0.78 to 1.09)")
	assert.Equal(t, "async blocked / work", c.Moves[2].Old.Name)
	assert.False(t, c.Moves[2].Crossed)
	assert.Equal(t, "above", c.Moves[2].Outside, "0.45 lies above (0.05 to 0.30)")

	out := comparisonText(t, c)
	assert.Contains(t, out, "Figures outside their bands (3)")
	assert.Contains(t, out, "P3 TestSyncBlocksLoop/node20 → TestSyncBlocksLoop/node24 [local · Node v20.20.2 → local · Node v24.22.3]: "+
		"blocked / work: 1.00 → 0.85, want at least 0.90: crossed its bound (holds → fails)")
	assert.Contains(t, out, "async / sync: 0.91 (0.78 to 1.09) → 1.05 (0.70 to 1.60), want at most 1.50: crossed its bound (holds → open)")
	assert.Contains(t, out, "async blocked / work: 0.12 (0.05 to 0.30) → 0.45 (0.40 to 0.50), want at most 0.50: NEW's figure above OLD's interval")
	assert.NotContains(t, out, "waited", "a count that moved within its bound is not listed")
}

func TestCompareFigureBelowTheOldInterval(t *testing.T) {
	old := writeSet(t, onNode("TestX", "v24.22.3", verdict.Pass,
		verdict.Check{Name: "ratio", Got: "10.00 (8.00 to 12.00)", Want: "at least 2.00", Pass: true}))
	new := writeSet(t, onNode("TestX", "v24.22.3", verdict.Pass,
		verdict.Check{Name: "ratio", Got: "7.50 (interval open)", Want: "at least 2.00", Pass: true}))
	c := Compare(old, new)
	require.Len(t, c.Moves, 1)
	assert.Equal(t, "below", c.Moves[0].Outside, "7.50 against (8.00 to 12.00)")
	assert.Empty(t, c.Flips)
}

func TestCompareShowsTheEvidenceBehindAMovedCheck(t *testing.T) {
	old := writeSet(t, onNode("TestPoolSizeFromInsideProgram", "v20.20.2", verdict.Pass,
		verdict.Check{Name: "ignored", Got: "1/2", Want: "at least 1/2", Pass: true, Note: "v20.20.2 ES module: ignored (4 slots)"}))
	new := writeSet(t, onNode("TestPoolSizeFromInsideProgram", "v24.22.3", verdict.Fail,
		verdict.Check{Name: "ignored", Got: "0/2", Want: "at least 1/2", Note: "v24.22.3 ES module: honored (8 slots)"}))
	out := comparisonText(t, Compare(old, new))
	assert.Contains(t, out, "OLD: v20.20.2 ES module: ignored (4 slots)", "the old check's note")
	assert.Contains(t, out, "NEW: v24.22.3 ES module: honored (8 slots)", "the new check's note")
}

func TestCompareListsResultsOnOneSide(t *testing.T) {
	old := writeSet(t,
		onNode("TestPoolSlots/node20/default", "v20.20.2", verdict.Pass),
		onNode("TestGzipSyncVsAsync/node20", "v20.20.2", verdict.Pass))
	only := onNode("TestSyncOnRequestPath/node24", "v24.22.3", verdict.Pass)
	only.Claims = []string{"P10"}
	new := writeSet(t, onNode("TestPoolSlots/node24/default", "v24.22.3", verdict.Pass), only)
	c := Compare(old, new)
	require.Len(t, c.OnlyOld, 1)
	require.Len(t, c.OnlyNew, 1)
	assert.Empty(t, c.Flips)
	out := comparisonText(t, c)
	assert.Contains(t, out, "Only in OLD (1)\n  P3 TestGzipSyncVsAsync/node20 [local · Node v20.20.2]: pass\n")
	assert.Contains(t, out, "Only in NEW (1)\n  P10 TestSyncOnRequestPath/node24 [local · Node v24.22.3]: pass\n")
	assert.NotContains(t, out, "Verdicts that flipped", "a section with nothing in it is left out")
}

func TestIntervalAndLeadingFigure(t *testing.T) {
	for _, tc := range []struct {
		got         string
		lo, hi      float64
		hasInterval bool
		lead        float64
		hasLeading  bool
	}{
		{"0.91 (0.78 to 1.09)", 0.78, 1.09, true, 0.91, true},
		{"-0.20 (-1.50 to 0.40)", -1.5, 0.4, true, -0.2, true},
		{"0.15 %", 0, 0, false, 0.15, true},
		{"20/20", 0, 0, false, 0, false},
		{"3.00 (interval open)", 0, 0, false, 3, true},
		{"", 0, 0, false, 0, false},
	} {
		lo, hi, ok := interval(tc.got)
		assert.Equal(t, tc.hasInterval, ok, "interval(%q) found = %v; want %v", tc.got, ok, tc.hasInterval)
		assert.Equal(t, [2]float64{tc.lo, tc.hi}, [2]float64{lo, hi}, "interval(%q)", tc.got)
		v, ok := leading(tc.got)
		assert.Equal(t, tc.hasLeading, ok, "leading(%q) found = %v; want %v", tc.got, ok, tc.hasLeading)
		assert.Equal(t, tc.lead, v, "leading(%q)", tc.got)
	}
}
