package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// The records of the tests below: W2's and W3's subtests of flipTest, whose verdicts the tests
// write themselves, so that the history's rules are what is checked, not the claim.
var (
	w2 = flipTest + "/cpu=1"
	w3 = flipTest + "/cpu=2"
)

// resultSet writes a results folder holding a local result of each experiment with its outcome.
func resultSet(t *testing.T, outcomes map[string]verdict.Outcome) string {
	t.Helper()
	dir := t.TempDir()
	for experiment, o := range outcomes {
		claim := map[string]string{w2: "W2", w3: "W3"}[experiment]
		r := results.Result{Experiment: experiment, Mode: results.ModeLocal, Claims: []string{claim}, Headline: "ping behind cpu",
			Verdict:     verdict.Verdict{Outcome: o, Reason: "written by the test"},
			Environment: results.Environment{Go: "go1.26.8", Node: "24.1.0", OS: "linux/amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2}}
		_, err := results.Write(filepath.Join(dir, "eventloop"), results.FileName(experiment), r)
		require.NoError(t, err)
	}
	return dir
}

// againCommand is a -rerun command whose second run gives each flipped record outcome.
func againCommand(t *testing.T, outcome verdict.Outcome) string {
	t.Helper()
	set := resultSet(t, map[string]verdict.Outcome{w2: outcome, w3: outcome})
	return "cp -r " + filepath.Join(set, "eventloop") + " {dir}/"
}

// pastRun appends to hist a run of kind and trigger that started at, of the results in set.
func pastRun(t *testing.T, hist, kind, trigger string, at time.Time, set string) history.Run {
	t.Helper()
	loaded, err := loadResults(set)
	require.NoError(t, err)
	run, err := history.NewRun(history.Run{Kind: kind, Trigger: trigger, StartedAt: at, Commit: "abc123456789"}, loaded)
	require.NoError(t, err)
	_, err = history.Append(hist, run, 0)
	require.NoError(t, err)
	return run
}

// TestPassInconclusiveFailIsAlertedOnce records pass, inconclusive, a run without W3 (its shard
// failed), fail, inconclusive and fail again: the first fail is one flip from the pass, alerted;
// the inconclusive runs are no flip; W3's absence is named; the second fail alerts no one.
func TestPassInconclusiveFailIsAlertedOnce(t *testing.T) {
	hist := t.TempDir()
	steps := []struct {
		name     string
		outcomes map[string]verdict.Outcome
		status   int
		alerted  []string
		says     string
	}{
		{"pass", map[string]verdict.Outcome{w2: verdict.Pass, w3: verdict.Pass}, exitOK, nil, "nothing to compare"},
		{"inconclusive", map[string]verdict.Outcome{w2: verdict.Inconclusive, w3: verdict.Pass}, exitOK, nil, "0 flipped"},
		{"no W3", map[string]verdict.Outcome{w2: verdict.Inconclusive}, exitOK, nil, "missing from this run: [W3] " + w3 + " (local)"},
		{"fail", map[string]verdict.Outcome{w2: verdict.Fail, w3: verdict.Pass}, exitConfirmed, []string{"W2.md"}, "flip confirmed: [W2] " + w2 + " (local): pass → fail"},
		{"inconclusive again", map[string]verdict.Outcome{w2: verdict.Inconclusive, w3: verdict.Pass}, exitOK, nil, "0 flipped"},
		{"fail again", map[string]verdict.Outcome{w2: verdict.Fail, w3: verdict.Pass}, exitOK, nil, "0 flipped"},
	}
	var alerts []string
	for _, s := range steps {
		dir := t.TempDir()
		code, out := runHistory(t, "record", "-history", hist, "-results", resultSet(t, s.outcomes), "-kind", "selftest",
			"-trigger", "local", "-alerts", dir, "-rerun", againCommand(t, verdict.Fail))
		assert.Equal(t, s.status, code, "%s: exit status (output:\n%s)", s.name, out)
		assert.Contains(t, out, s.says, "%s: the report", s.name)
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, f := range files {
			alerts = append(alerts, s.name+": "+filepath.Base(f))
		}
	}
	assert.Equal(t, []string{"fail: W2.md"}, alerts, "alerts over pass, inconclusive, no W3, fail, inconclusive, fail; want one, W2's on the first fail")
}

// TestAWeeklyKindIsNotMissingAfterSixDays records a scheduled live run into histories whose last
// scheduled live run started six days and fifteen days before: the first is on time for a weekly
// kind, with no flag to say so; the second is missing, reported and alerted.
func TestAWeeklyKindIsNotMissingAfterSixDays(t *testing.T) {
	set := resultSet(t, map[string]verdict.Outcome{w2: verdict.Pass})
	for _, tc := range []struct {
		days    int
		missing bool
	}{{6, false}, {15, true}} {
		hist, alerts := t.TempDir(), t.TempDir()
		pastRun(t, hist, history.KindLive, "schedule", time.Now().Add(-time.Duration(tc.days)*24*time.Hour), set)
		code, out := runHistory(t, "record", "-history", hist, "-results", set, "-kind", history.KindLive, "-trigger", "schedule", "-alerts", alerts)
		require.Equal(t, exitOK, code, "%d days: exit status (output:\n%s)", tc.days, out)
		said := strings.Contains(out, "missing: the last scheduled run")
		assert.Equal(t, tc.missing, said, "%d days after the last weekly run: reported missing (output:\n%s)", tc.days, out)
		files, _ := filepath.Glob(filepath.Join(alerts, "*.md"))
		assert.Equal(t, tc.missing, len(files) == 1, "%d days after the last weekly run: alerted (alerts %v)", tc.days, files)
	}
}

// TestTheWorkflowsScheduleEachKindAtItsPeriod reads the schedules of the workflows that record
// each scheduled kind: their cron must run the kind as often as its period says, or the history
// would call runs missing that were never due, or miss a schedule that stopped.
func TestTheWorkflowsScheduleEachKindAtItsPeriod(t *testing.T) {
	for file, kind := range map[string]string{"claims.yml": history.KindClaims, "live.yml": history.KindLive} {
		data, err := os.ReadFile(repoPath(t, filepath.Join(".github", "workflows", file)))
		require.NoError(t, err)
		m := regexp.MustCompile(`cron:\s*"([^"]+)"`).FindStringSubmatch(string(data))
		require.NotNil(t, m, "%s: no cron schedule", file)
		f := strings.Fields(m[1])
		require.Len(t, f, 5, "%s: cron %q", file, m[1])
		var every time.Duration
		switch {
		case f[2] == "*" && f[3] == "*" && f[4] == "*":
			every = 24 * time.Hour
		case f[2] == "*" && f[3] == "*" && regexp.MustCompile(`^[0-6]$`).MatchString(f[4]):
			every = 7 * 24 * time.Hour
		}
		period, ok := history.Period(kind)
		require.True(t, ok, "kind %s has a period", kind)
		assert.Equal(t, period, every, "%s's cron %q runs kind %s every %v; want its period (history.Period)", file, m[1], kind, every)
	}
}

// TestAMissingRunIsOneIssue records two scheduled claims runs into a history whose last
// scheduled run is three days old, with issues through the fake gh: both say the schedule went
// missing, and the second updates the issue the first opened instead of opening another.
func TestAMissingRunIsOneIssue(t *testing.T) {
	state := installFakeGH(t)
	hist := t.TempDir()
	set := resultSet(t, map[string]verdict.Outcome{w2: verdict.Pass})
	pastRun(t, hist, history.KindClaims, "schedule", time.Now().Add(-72*time.Hour), set)
	for i := range 2 {
		// The second run is by hand: the last scheduled run is still three days old.
		code, out := runHistory(t, "record", "-history", hist, "-results", set, "-kind", history.KindClaims,
			"-trigger", "workflow_dispatch", "-github", "owner/claims")
		require.Equal(t, exitOK, code, "run %d: exit status (output:\n%s)", i+1, out)
		require.Contains(t, out, "missing: the last scheduled run", "run %d: the report", i+1)
	}
	st := readGH(t, state)
	require.Len(t, st.Issues, 1, "issues opened over two runs that found the schedule missing; want one (calls %v)", st.Calls)
	assert.Equal(t, history.MissingLabel, st.Issues[0].Label, "the issue's label")
	assert.Equal(t, 1, st.Issues[0].Comments, "comments on the issue; want the second run's")
	assert.Contains(t, st.Issues[0].Title, "Scheduled runs of kind claims went missing", "the issue's title")
}

// TestAnAlertNotSentIsSentByTheNextRun records a flip while gh fails: the run is in the
// history with the alert kept unsent, and the command fails saying so; the next run, with gh
// back, sends it (an issue opened with the flip's title, from the run that raised it) and keeps
// nothing unsent.
func TestAnAlertNotSentIsSentByTheNextRun(t *testing.T) {
	state := installFakeGH(t)
	hist := t.TempDir()
	pastRun(t, hist, "selftest", "local", time.Now().Add(-time.Hour), resultSet(t, map[string]verdict.Outcome{w2: verdict.Pass}))
	failed := resultSet(t, map[string]verdict.Outcome{w2: verdict.Fail})
	record := func() (int, string) {
		return runHistory(t, "record", "-history", hist, "-results", failed, "-kind", "selftest", "-trigger", "local",
			"-github", "owner/claims", "-rerun", againCommand(t, verdict.Fail))
	}

	t.Setenv(fakeGHFailEnv, "1")
	code, out := record()
	assert.Equal(t, exitUsage, code, "the flip's run, gh failing: exit status (output:\n%s)", out)
	assert.Contains(t, out, "1 kept unsent", "the flip's run: the report")
	flipped := lastRun(t, hist)
	require.Len(t, flipped.Unsent, 1, "the flip's run in the history: alerts kept unsent")
	assert.Equal(t, "Claim W2 flipped: pass → fail", flipped.Unsent[0].Title, "the alert kept")
	assert.Contains(t, flipped.Unsent[0].Why, "error connecting", "why it was not sent")
	assert.Empty(t, readGH(t, state).Issues, "issues while gh fails")

	t.Setenv(fakeGHFailEnv, "")
	code, out = record()
	assert.Equal(t, exitOK, code, "the next run, gh back, no flip of its own: exit status (output:\n%s)", out)
	assert.Contains(t, out, "1 sent, 0 kept unsent", "the next run: the report")
	assert.Empty(t, lastRun(t, hist).Unsent, "the next run in the history: alerts kept unsent")
	issues := readGH(t, state).Issues
	require.Len(t, issues, 1, "issues once gh is back; want the flip's")
	assert.Equal(t, "Claim W2 flipped: pass → fail", issues[0].Title, "the issue's title")
	assert.Equal(t, history.FlipLabel, issues[0].Label, "the issue's label")
	assert.Contains(t, issues[0].Bodies[0], flipped.ID(), "the issue's body names the run that raised it")
}

// matrixSet writes a results folder holding W2's result with outcome in the runtime matrix's
// column of Node node (results/matrix/node-v<node>), as cmd/matrix lays it out.
func matrixSet(t *testing.T, node string, outcome verdict.Outcome) string {
	t.Helper()
	dir := t.TempDir()
	r := results.Result{Experiment: w2, Mode: results.ModeLocal, Claims: []string{"W2"}, Headline: "ping behind cpu",
		Verdict:     verdict.Verdict{Outcome: outcome, Reason: "written by the test"},
		Environment: results.Environment{Go: "go1.26.8", Node: "v" + node, OS: "linux/amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2}}
	_, err := results.Write(filepath.Join(dir, results.MatrixDir, "node-v"+node, "eventloop"), results.FileName(w2), r)
	require.NoError(t, err)
	return dir
}

// TestARuntimeBumpIsReportedAsAChange records W2 in the matrix's Node 24 column, then after Node
// 24 moved from 24.22.3 to 24.23.0: the second run names the runtime that changed, and nothing
// missing; the fail after it is a flip from the pass, whose alert names the runtime's change.
func TestARuntimeBumpIsReportedAsAChange(t *testing.T) {
	hist, alerts := t.TempDir(), t.TempDir()
	record := func(set string) (int, string) {
		return runHistory(t, "record", "-history", hist, "-results", set, "-kind", "selftest", "-trigger", "local",
			"-alerts", alerts, "-rerun", "mkdir -p {dir}/x && cp -r "+set+"/matrix {dir}/x/")
	}
	code, out := record(matrixSet(t, "24.22.3", verdict.Pass))
	require.Equal(t, exitOK, code, "the first run: exit status (output:\n%s)", out)

	code, out = record(matrixSet(t, "24.23.0", verdict.Pass))
	assert.Equal(t, exitOK, code, "the run after the bump: exit status (output:\n%s)", out)
	assert.Contains(t, out, "runtime changed since", "the run after the bump: the report")
	assert.Contains(t, out, "[W2] "+w2+" (local, node-v24): Node v24.22.3 → Node v24.23.0", "the run after the bump: the report")
	assert.NotContains(t, out, "missing from this run", "the run after the bump: the report")

	code, out = record(matrixSet(t, "24.23.1", verdict.Fail))
	assert.Equal(t, exitConfirmed, code, "the failing run: exit status (output:\n%s)", out)
	assert.Contains(t, out, "flip confirmed: [W2] "+w2+" (local, node-v24): pass → fail", "the failing run: the report")
	alert, err := os.ReadFile(filepath.Join(alerts, "W2.md"))
	require.NoError(t, err, "W2's alert")
	assert.Contains(t, string(alert), "runtime: Node v24.23.0 → Node v24.23.1", "W2's alert: what else changed")
}
