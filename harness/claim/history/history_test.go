package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

var t0 = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// result is a result of experiment in mode with outcome and, where margin is not nil, one check
// at least 5 whose figure is 5+margin.
func result(experiment, mode string, outcome verdict.Outcome, margin *float64) results.Result {
	r := results.Result{Experiment: experiment, Mode: mode, Claims: []string{"T2"}, Headline: "first Duration / Init",
		Verdict:     verdict.Verdict{Outcome: outcome, Reason: "because"},
		Environment: results.Environment{Go: "go1.26.8", OS: "linux/amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2, LoadAvg1: 0.3}}
	if margin != nil {
		r.Verdict.Checks = []verdict.Check{verdict.AtLeast("ratio", 5+*margin, 5, "", "")}
	}
	return r
}

func ptr(v float64) *float64 { return &v }

// runOf is a run of kind at t0 plus hours, of the given results.
func runOf(t *testing.T, kind string, hours int, rs ...results.Result) Run {
	t.Helper()
	var loaded []Loaded
	for _, r := range rs {
		loaded = append(loaded, Loaded{Path: r.Experiment + ".json", Result: r, Runtime: "Go 1.26.8"})
	}
	run, err := NewRun(Run{Kind: kind, Trigger: "schedule", StartedAt: t0.Add(time.Duration(hours) * time.Hour), Commit: "abc123456789"}, loaded)
	require.NoError(t, err)
	return run
}

func TestNewRunKeepsEachResultSmall(t *testing.T) {
	long := result("TestA", results.ModeLocal, verdict.Pass, ptr(2.2))
	long.Headline = strings.Repeat("é", MaxTextBytes)
	other := result("TestB", results.ModeLocal, verdict.Fail, nil)
	other.Environment.LoadAvg1 = 1.7 // the load is not the machine
	run := runOf(t, "claims", 0, long, other)

	require.Len(t, run.Records, 2)
	assert.Len(t, run.Machines, 1, "machines = %v; want one, shared by both records (the load differs)", run.Machines)
	a := run.Records[0]
	assert.LessOrEqual(t, len(a.Headline), MaxTextBytes+len("…"), "headline bytes")
	assert.True(t, strings.HasSuffix(a.Headline, "é…"), "headline = %q; want cut on a rune boundary, marked", a.Headline[len(a.Headline)-8:])
	require.NotNil(t, a.Margin)
	assert.InDelta(t, 2.2, a.Margin.Margin, 1e-9, "margin of a figure 7.2 at least 5")
	assert.Equal(t, "ratio", a.Margin.Check)
	assert.Nil(t, run.Records[1].Margin, "margin of a result without a bound")
}

func TestNewRunRefusesWhatIsNotAFinding(t *testing.T) {
	broken := result("TestA", results.ModeLocal, verdict.Fail, nil)
	broken.Broken = "a probe broken on purpose"
	_, err := NewRun(Run{Kind: "claims"}, []Loaded{{Path: "a.json", Result: broken}})
	assert.ErrorContains(t, err, "broken on purpose")

	a := result("TestA", results.ModeLocal, verdict.Pass, nil)
	_, err = NewRun(Run{Kind: "claims"}, []Loaded{{Path: "a.json", Result: a}, {Path: "b.json", Result: a}})
	assert.ErrorContains(t, err, "are both", "two results of one key")

	_, err = NewRun(Run{Kind: "claims"}, nil)
	assert.ErrorContains(t, err, "no results")
	_, err = NewRun(Run{}, []Loaded{{Path: "a.json", Result: a}})
	assert.ErrorContains(t, err, "kind")
}

func TestFlipsNeverCountInconclusive(t *testing.T) {
	for _, tc := range []struct {
		was, now verdict.Outcome
		want     bool
	}{
		{verdict.Pass, verdict.Fail, true},
		{verdict.Fail, verdict.Pass, true},
		{verdict.Pass, verdict.Pass, false},
		{verdict.Pass, verdict.Inconclusive, false},
		{verdict.Inconclusive, verdict.Fail, false},
		{verdict.Inconclusive, verdict.Inconclusive, false},
	} {
		assert.Equal(t, tc.want, Flipped(tc.was, tc.now), "Flipped(%s, %s)", tc.was, tc.now)
	}
	last := runOf(t, "claims", 0, result("TestA", results.ModeLocal, verdict.Pass, nil), result("TestB", results.ModeLocal, verdict.Pass, nil),
		result("TestC", results.ModeLocal, verdict.Pass, nil))
	now := runOf(t, "claims", 24, result("TestA", results.ModeLocal, verdict.Fail, nil), result("TestB", results.ModeLocal, verdict.Inconclusive, nil),
		result("TestC", results.ModeLiveStandIn, verdict.Fail, nil))
	flips := Flips([]Run{last}, now)
	require.Len(t, flips, 1, "flips = %v; want TestA's only (TestB inconclusive, TestC another mode)", flips)
	assert.Equal(t, Flip{Key: Key{Experiment: "TestA", Mode: results.ModeLocal}, Claims: []string{"T2"}, Was: verdict.Pass, Now: verdict.Fail, Since: last.ID()}, flips[0])
	assert.Empty(t, Flips([]Run{now}, now), "a run against itself")
}

// TestAFlipIsAgainstTheLastDecidedVerdict checks that pass, then inconclusive, then fail is one
// flip, on the fail, against the pass; that a run without the record (a failed shard) in
// between does not hide it either; and that the inconclusive run in between is no flip.
func TestAFlipIsAgainstTheLastDecidedVerdict(t *testing.T) {
	a := func(o verdict.Outcome) results.Result { return result("TestA", results.ModeLocal, o, nil) }
	b := func(o verdict.Outcome) results.Result { return result("TestB", results.ModeLocal, o, nil) }
	runs := []Run{
		runOf(t, "claims", 0, a(verdict.Pass), b(verdict.Pass)),
		runOf(t, "claims", 24, a(verdict.Inconclusive), b(verdict.Pass)),
		runOf(t, "claims", 48, b(verdict.Pass)), // TestA's shard failed: no record
		runOf(t, "claims", 72, a(verdict.Fail), b(verdict.Pass)),
		runOf(t, "claims", 96, a(verdict.Inconclusive), b(verdict.Pass)),
		runOf(t, "claims", 120, a(verdict.Fail), b(verdict.Pass)),
	}
	var alerted []string
	for i := 1; i < len(runs); i++ {
		for _, f := range Flips(runs[:i], runs[i]) {
			alerted = append(alerted, fmt.Sprintf("run %d: %s since %s", i, f, f.Since))
		}
	}
	want := []string{fmt.Sprintf("run 3: [T2] TestA (local): pass → fail since %s", runs[0].ID())}
	assert.Equal(t, want, alerted, "flips over pass, inconclusive, no record, fail, inconclusive, fail; want one, on the first fail, against the pass")

	// The flip's baseline is the pass's run: what changed is told against it.
	f := Flips(runs[:3], runs[3])[0]
	assert.Equal(t, runs[0].ID(), f.Baseline(runs[:3]).ID(), "the flip's baseline run")
}

// TestARecordMissingFromARunIsNamed checks that a record the last runs held and this one does
// not (a shard that failed) is named with the last run that held it, and one absent from more
// than ExpectRuns runs is taken as retired.
func TestARecordMissingFromARunIsNamed(t *testing.T) {
	a := result("TestA", results.ModeLocal, verdict.Pass, nil)
	b := result("TestB", results.ModeLocal, verdict.Pass, nil)
	past := []Run{runOf(t, "claims", 0, a, b), runOf(t, "claims", 24, a)}
	now := runOf(t, "claims", 48, a)
	absent := Absent(past, now)
	require.Len(t, absent, 1, "absent = %v; want TestB, held by the first run", absent)
	assert.Equal(t, Absence{Key: Key{Experiment: "TestB", Mode: results.ModeLocal}, Claims: []string{"T2"}, LastSeen: past[0].ID(), Runs: 2}, absent[0])
	assert.Empty(t, Absent(past[:1], runOf(t, "claims", 24, a, b)), "a run holding every record")

	for h := 2; len(past) <= ExpectRuns; h++ {
		past = append(past, runOf(t, "claims", 24*h, a))
	}
	assert.Empty(t, Absent(past, runOf(t, "claims", 24*(len(past)+1), a)), "TestB, last held %d runs before: retired, not missing", ExpectRuns+1)
}

// rerun answers each key with a fixed outcome, or an error.
type rerun map[string]verdict.Outcome

func (r rerun) Rerun(_ context.Context, k Key) (verdict.Outcome, string, error) {
	o, ok := r[k.Experiment]
	if !ok {
		return "", "", errors.New("no result")
	}
	return o, "/again/" + k.Experiment + ".json", nil
}

func TestConfirmAsksTheSecondRun(t *testing.T) {
	last := runOf(t, "claims", 0, result("TestA", results.ModeLocal, verdict.Pass, nil), result("TestB", results.ModeLocal, verdict.Pass, nil),
		result("TestC", results.ModeLocal, verdict.Fail, nil))
	now := runOf(t, "claims", 24, result("TestA", results.ModeLocal, verdict.Fail, nil), result("TestB", results.ModeLocal, verdict.Fail, nil),
		result("TestC", results.ModeLocal, verdict.Pass, nil))
	now.Commit = "def456"
	now.Machines[0].Kernel = "6.8"
	past := []Run{last}
	cs, files := Confirm(t.Context(), past, now, Flips(past, now), rerun{"TestA": verdict.Fail, "TestB": verdict.Pass})
	require.Len(t, cs, 3)
	assert.True(t, cs[0].Confirmed, "TestA: failed again: confirmed")
	assert.False(t, cs[1].Confirmed, "TestB: passed again, as before the flip: not confirmed")
	assert.False(t, cs[2].Confirmed, "TestC: no second verdict: not confirmed")
	assert.Contains(t, cs[2].Why, "no result")
	assert.Equal(t, map[Key]string{{Experiment: "TestA", Mode: "local"}: "/again/TestA.json", {Experiment: "TestB", Mode: "local"}: "/again/TestB.json"}, files)
	assert.Equal(t, []Change{{What: "kernel", Was: "6.1", Now: "6.8"}, {What: "commit", Was: "abc123456789", Now: "def456"}}, cs[0].Changes)

	as := Alerts(past, now, cs, map[Key]string{{Experiment: "TestA", Mode: "local"}: "/run/TestA.json"}, files)
	require.Len(t, as, 1, "alerts = %v; want one, of the confirmed flip", as)
	assert.Equal(t, "Claim T2 flipped: pass → fail", as[0].Title)
	assert.Equal(t, []string{"/run/TestA.json", "/again/TestA.json"}, as[0].Files)
	assert.Contains(t, as[0].Body, "- kernel: 6.1 → 6.8")
	assert.NotContains(t, as[0].Body, "Same code, different platform", "the commit changed")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	cs, _ = Confirm(ctx, past, now, Flips(past, now), rerun{"TestA": verdict.Fail})
	assert.False(t, cs[0].Confirmed, "a flip not run again, interrupted: confirmed")
}

func TestSameCodeDifferentPlatformIsSaid(t *testing.T) {
	last := runOf(t, "claims", 0, result("TestA", results.ModeLocal, verdict.Pass, nil))
	now := runOf(t, "claims", 24, result("TestA", results.ModeLocal, verdict.Fail, nil))
	now.Machines[0].CPUModel = "Xeon"
	past := []Run{last}
	cs, _ := Confirm(t.Context(), past, now, Flips(past, now), rerun{"TestA": verdict.Fail})
	as := Alerts(past, now, cs, nil, nil)
	require.Len(t, as, 1)
	assert.Contains(t, as[0].Body, "Same code, different platform")
	assert.Contains(t, as[0].Body, "cpu model: EPYC → Xeon")
}

func TestAppendReadAndPrune(t *testing.T) {
	dir := t.TempDir()
	for h := range 4 {
		_, err := Append(dir, runOf(t, "claims", h*24, result("TestA", results.ModeLocal, verdict.Pass, nil)), 3)
		require.NoError(t, err)
	}
	_, err := Append(dir, runOf(t, "live", 100, result("TestA", results.ModeLive, verdict.Pass, nil)), 3)
	require.NoError(t, err)
	runs, err := Read(dir)
	require.NoError(t, err)
	require.Len(t, runs, 4, "runs kept: the newest 3 claims runs and the live one")
	assert.Equal(t, t0.Add(24*time.Hour), runs[0].StartedAt.UTC(), "the oldest run left; want the first pruned")
	last, ok := Last(runs, "claims")
	require.True(t, ok)
	assert.Equal(t, t0.Add(72*time.Hour), last.StartedAt.UTC())
	assert.FileExists(t, filepath.Join(dir, "2026", last.ID()+".json"), "a run's file in its year's folder")

	_, err = Append(dir, last, 3)
	assert.ErrorContains(t, err, "already there", "a run appended twice")

	secret := runOf(t, "claims", 200, result("TestA", results.ModeLocal, verdict.Pass, nil))
	secret.URL = "https://example.invalid/?X-Amz-Signature=abc"
	_, err = Append(dir, secret, 3)
	assert.ErrorIs(t, err, results.ErrSecret, "a run holding a signed URL")

	none, err := Read(filepath.Join(dir, "missing"))
	assert.NoError(t, err, "a history not yet made")
	assert.Empty(t, none)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "2026", "bad.json"), []byte("{"), 0o644))
	_, err = Read(dir)
	assert.ErrorContains(t, err, "bad.json", "an unreadable run is named")
}

func TestAppendRefusesARunPastItsBound(t *testing.T) {
	var rs []results.Result
	for i := range 2000 {
		r := result("TestA/"+strings.Repeat("x", 200)+string(rune('a'+i%26))+strings.Repeat("y", i), results.ModeLocal, verdict.Pass, nil)
		rs = append(rs, r)
	}
	_, err := Append(t.TempDir(), runOf(t, "claims", 0, rs...), 0)
	assert.ErrorContains(t, err, "above the bound")
}

func TestStreaksShrinksAndMissingRuns(t *testing.T) {
	var runs []Run
	margins := []float64{4, 4.2, 3.8, 1.5}
	for i, m := range margins {
		runs = append(runs, runOf(t, "claims", 24*i,
			result("TestA", results.ModeLocal, verdict.Pass, ptr(m)),
			result("TestB", results.ModeLocal, verdict.Inconclusive, nil),
			result("TestC", results.ModeLocal, map[bool]verdict.Outcome{true: verdict.Inconclusive, false: verdict.Pass}[i > 0], nil)))
	}
	streaks := Streaks(runs, "claims")
	require.Len(t, streaks, 2, "streaks = %v; want TestB (4 runs) and TestC (3)", streaks)
	assert.Equal(t, 4, streaks[0].N)
	assert.Equal(t, "TestC", streaks[1].Experiment)
	assert.Equal(t, 3, streaks[1].N)

	shrinks := Shrinks(runs, "claims")
	require.Len(t, shrinks, 1, "shrinks = %v; want TestA's 1.5 against a median of 4", shrinks)
	assert.Equal(t, 4.0, shrinks[0].Before)
	assert.Equal(t, 1.5, shrinks[0].Now)
	assert.Empty(t, Shrinks(runs[:3], "claims"), "3.8 against a median of 4.1: not shrunk by half")

	last := runs[len(runs)-1].StartedAt
	_, missing := Missing(runs, "claims", last.Add(47*time.Hour))
	assert.False(t, missing, "47 h after the last daily run: one late run is not yet missing")
	at, missing := Missing(runs, "claims", last.Add(49*time.Hour))
	assert.True(t, missing, "49 h after the last daily run")
	assert.Equal(t, last, at)
	_, missing = Missing(runs, "live", last.Add(1000*time.Hour))
	assert.False(t, missing, "a kind with no scheduled run has nothing to miss")
}

// TestAKindsPeriodIsItsOwn checks that the weekly live runs are never missing six days after
// the last, nor at thirteen, and are at fifteen; that the daily claims runs are at three days;
// and that a kind with no schedule is never missing.
func TestAKindsPeriodIsItsOwn(t *testing.T) {
	week, ok := Period(KindLive)
	require.True(t, ok, "the live kind has a period")
	assert.Equal(t, 7*24*time.Hour, week, "the live kind's period")
	day, ok := Period(KindClaims)
	require.True(t, ok, "the claims kind has a period")
	assert.Equal(t, 24*time.Hour, day, "the claims kind's period")

	live := []Run{runOf(t, KindLive, 0, result("TestA", results.ModeLive, verdict.Pass, nil))}
	for _, days := range []int{1, 6, 13} {
		_, missing := Missing(live, KindLive, t0.Add(time.Duration(days)*24*time.Hour))
		assert.False(t, missing, "the weekly live runs, %d days after the last: missing", days)
	}
	_, missing := Missing(live, KindLive, t0.Add(15*24*time.Hour))
	assert.True(t, missing, "the weekly live runs, 15 days after the last: missing")

	claims := []Run{runOf(t, KindClaims, 0, result("TestA", results.ModeLocal, verdict.Pass, nil))}
	_, missing = Missing(claims, KindClaims, t0.Add(3*24*time.Hour))
	assert.True(t, missing, "the daily claims runs, 3 days after the last: missing")

	other := []Run{runOf(t, "test", 0, result("TestA", results.ModeLocal, verdict.Pass, nil))}
	_, missing = Missing(other, "test", t0.Add(1000*24*time.Hour))
	assert.False(t, missing, "a kind with no schedule, 1000 days after its last run: missing")
}

func TestFileSinkWritesTheAlertAndItsFiles(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	f := filepath.Join(src, "eventloop", "TestA.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
	require.NoError(t, os.WriteFile(f, []byte("{}"), 0o644))
	require.NoError(t, FileSink{Dir: dir}.Send(t.Context(), Alert{Claim: "W2,W3", Title: "Claim W2,W3 flipped", Body: "body", Files: []string{f}}))
	md, err := os.ReadFile(filepath.Join(dir, "W2-W3.md"))
	require.NoError(t, err)
	assert.Equal(t, "# Claim W2,W3 flipped\n\nbody", string(md))
	assert.FileExists(t, filepath.Join(dir, "W2-W3", "eventloop-TestA.json"))
}

func TestRunRoundTrips(t *testing.T) {
	run := runOf(t, "claims", 0, result("TestA", results.ModeLocal, verdict.Pass, ptr(1)))
	run.Confirmations = []Confirmation{{Flip: Flip{Key: run.Records[0].Key, Claims: []string{"T2"}, Was: verdict.Fail, Now: verdict.Pass},
		Again: verdict.Pass, Confirmed: true, Changes: []Change{{What: "commit", Was: "a", Now: "b"}}}}
	path, err := Append(t.TempDir(), run, 0)
	require.NoError(t, err)
	back, err := ReadRun(path)
	require.NoError(t, err)
	want, _ := json.Marshal(run)
	got, _ := json.Marshal(back)
	assert.JSONEq(t, string(want), string(got), "the run read back")
}

// TestARuntimeBumpIsAChangeNotANewSeries checks that a matrix column's runtime moving from Node
// v24.22.3 to v24.23.0 keeps its record's key (the series node-v24): the fail after it is a flip
// from the pass before, with the runtime among what changed; the record is not missing; and the
// bump is named. Two columns of one run in one series keep their own names.
func TestARuntimeBumpIsAChangeNotANewSeries(t *testing.T) {
	run := func(hours int, column, runtime string, o verdict.Outcome) Run {
		t.Helper()
		r := result("TestA", results.ModeLocal, o, nil)
		run, err := NewRun(Run{Kind: "claims", Trigger: "schedule", StartedAt: t0.Add(time.Duration(hours) * time.Hour)},
			[]Loaded{{Path: "a.json", Column: column, Runtime: runtime, Result: r}})
		require.NoError(t, err)
		return run
	}
	past := []Run{run(0, "node-v24.22.3", "Node v24.22.3", verdict.Pass)}
	now := run(24, "node-v24.23.0", "Node v24.23.0", verdict.Fail)
	assert.Equal(t, "node-v24", now.Records[0].Column, "the record's column: its series")
	assert.Equal(t, "Node v24.23.0", now.Records[0].Runtime, "the record's runtime: its exact version")

	flips := Flips(past, now)
	require.Len(t, flips, 1, "flips across the bump; want the pass → fail of node-v24")
	assert.Contains(t, Changes(flips[0].Baseline(past), now, flips[0].Key), Change{What: "runtime", Was: "Node v24.22.3", Now: "Node v24.23.0"},
		"what else changed with the flip")
	assert.Empty(t, Absent(past, now), "records missing after the bump")
	assert.Equal(t, []Bump{{Key: Key{Experiment: "TestA", Mode: results.ModeLocal, Column: "node-v24"}, Claims: []string{"T2"},
		Was: "Node v24.22.3", Now: "Node v24.23.0", Since: past[0].ID()}}, Bumps(past, now), "the bump")
	assert.Empty(t, Bumps([]Run{now}, now), "a run against itself: bumps")

	for column, want := range map[string]string{"node-v22.11.0": "node-v22", "go1.26.8": "go1.26", "go1.27": "go1.27", "function-rust": "function-rust", "": ""} {
		assert.Equal(t, want, Series(column), "Series(%q)", column)
	}
	a := result("TestA", results.ModeLocal, verdict.Pass, nil)
	keys := KeysOf([]Loaded{{Column: "go1.27.1", Result: a}, {Column: "go1.27.3", Result: a}, {Column: "go1.26.8", Result: a}})
	assert.Equal(t, []string{"go1.27.1", "go1.27.3", "go1.26"}, []string{keys[0].Column, keys[1].Column, keys[2].Column},
		"the columns of a run with two Go 1.27 releases")
}

// TestWarningsAreOnePerClaim makes runs where T2's TestA held by 4, 4.2, 3.8 then 1.5 and its
// TestB was inconclusive from the second run on: one warning for T2, labelled claim-warning,
// naming both findings with a section each. Due then drops a kept warning of T2 that a new one
// repeats, and never a kept flip.
func TestWarningsAreOnePerClaim(t *testing.T) {
	var runs []Run
	for i, m := range []float64{4, 4.2, 3.8, 1.5} {
		runs = append(runs, runOf(t, "claims", 24*i,
			result("TestA", results.ModeLocal, verdict.Pass, ptr(m)),
			result("TestB", results.ModeLocal, map[bool]verdict.Outcome{true: verdict.Inconclusive, false: verdict.Pass}[i > 0], nil)))
	}
	assert.Empty(t, Warnings(runs[:3], "claims"), "warnings after three runs, no margin shrunk, TestB inconclusive twice")
	as := Warnings(runs, "claims")
	require.Len(t, as, 1, "warnings = %v; want one, T2's", as)
	a := as[0]
	assert.True(t, a.IsWarning(), "T2's alert is a warning (label %q)", a.Label)
	assert.Equal(t, "Claim T2 may flip: margin shrank, inconclusive 3 runs in a row", a.Title, "T2's warning's title")
	assert.Contains(t, a.Body, "## TestA (local): margin shrank by more than half", "T2's warning's body")
	assert.Contains(t, a.Body, "## TestB (local): inconclusive 3 runs in a row", "T2's warning's body")
	assert.Empty(t, Warnings(runs, "live"), "warnings of a kind with no run")

	flip := Unsent{Alert: Alert{Claim: "T2", Subject: "Claim T2 flipped", Label: FlipLabel, Title: "Claim T2 flipped: pass → fail"}, From: "r1"}
	old := Unsent{Alert: a, From: "r1"}
	other := Unsent{Alert: Alert{Claim: "T3", Subject: "Claim T3 may flip", Label: WarningLabel, Title: "Claim T3 may flip: margin shrank"}, From: "r1"}
	assert.Equal(t, []Unsent{flip, other}, Due([]Unsent{flip, old, other}, as), "kept alerts still due beside T2's new warning")
	assert.Equal(t, []Unsent{flip, old, other}, Due([]Unsent{flip, old, other}, nil), "kept alerts still due when nothing new warns")
}
