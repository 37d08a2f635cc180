package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// marginSet writes a results folder holding W2's local result with outcome and, where margin is
// not nil, one check 5 ms at least, measured margin ms above it.
func marginSet(t *testing.T, outcome verdict.Outcome, margin *float64) string {
	t.Helper()
	dir := t.TempDir()
	r := results.Result{Experiment: w2, Mode: results.ModeLocal, Claims: []string{"W2"}, Headline: "ping behind cpu",
		Verdict:     verdict.Verdict{Outcome: outcome, Reason: "written by the test"},
		Environment: results.Environment{Go: "go1.26.8", OS: "linux/amd64", Kernel: "6.1", CPUModel: "EPYC", Cores: 2}}
	if margin != nil {
		r.Verdict.Checks = []verdict.Check{verdict.AtLeast("p50 gap", 5+*margin, 5, "ms", "")}
	}
	_, err := results.Write(filepath.Join(dir, "eventloop"), results.FileName(w2), r)
	require.NoError(t, err)
	return dir
}

func ms(v float64) *float64 { return &v }

// runURL is the page of the test's run n, as GitHub's would be.
func runURL(n int) string { return fmt.Sprintf("https://github.com/owner/claims/actions/runs/%d", n) }

// pastRuns appends to hist a run of kind selftest an hour apart, the last an hour ago, per set,
// each with its runURL, and gives them.
func pastRuns(t *testing.T, hist string, sets ...string) []history.Run {
	t.Helper()
	var out []history.Run
	for i, set := range sets {
		loaded, err := loadResults(set)
		require.NoError(t, err)
		run, err := history.NewRun(history.Run{Kind: "selftest", Trigger: "local", Commit: "abc123456789", URL: runURL(i + 1),
			StartedAt: time.Now().Add(-time.Duration(len(sets)-i) * time.Hour)}, loaded)
		require.NoError(t, err)
		_, err = history.Append(hist, run, 0)
		require.NoError(t, err)
		out = append(out, run)
	}
	return out
}

// recordWarning records set into hist as run n of kind selftest, with issues through the fake
// gh, and gives the exit status and the output.
func recordWarning(t *testing.T, hist, set string, n int) (int, string) {
	t.Helper()
	return runHistory(t, "record", "-history", hist, "-results", set, "-kind", "selftest", "-trigger", "local",
		"-url", runURL(n), "-github", "owner/claims")
}

// TestAShrinkingMarginOpensOneWarningIssue records W2 holding by 1.5 ms after runs where it held
// by 4, 4.2 and 3.8, then by 1.4: the first opens one issue labelled claim-warning, whose body
// holds each run's margin with its link; the second comments on it instead of opening another;
// neither changes the exit status.
func TestAShrinkingMarginOpensOneWarningIssue(t *testing.T) {
	state := installFakeGH(t)
	hist := t.TempDir()
	past := pastRuns(t, hist, marginSet(t, verdict.Pass, ms(4)), marginSet(t, verdict.Pass, ms(4.2)), marginSet(t, verdict.Pass, ms(3.8)))

	code, out := recordWarning(t, hist, marginSet(t, verdict.Pass, ms(1.5)), 4)
	assert.Equal(t, exitOK, code, "the run whose margin shrank: exit status (output:\n%s)", out)
	assert.Contains(t, out, "margin shrank by more than half", "the run whose margin shrank: the report")
	first := lastRun(t, hist)
	st := readGH(t, state)
	require.Len(t, st.Issues, 1, "issues after the margin shrank; want one (calls %v)", st.Calls)
	issue := st.Issues[0]
	assert.Equal(t, history.WarningLabel, issue.Label, "the issue's label")
	assert.Equal(t, "Claim W2 may flip: margin shrank", issue.Title, "the issue's title")
	for _, r := range past {
		assert.Contains(t, issue.Bodies[0], fmt.Sprintf("[%s](%s)", r.ID(), r.URL), "the issue's body: a run before, linked (body:\n%s)", issue.Bodies[0])
	}
	assert.Contains(t, issue.Bodies[0], fmt.Sprintf("[%s](%s)", first.ID(), runURL(4)), "the issue's body: the run that warned, linked")
	for _, m := range []string{"4.00 ms", "4.20 ms", "3.80 ms", "1.50 ms"} {
		assert.Contains(t, issue.Bodies[0], m, "the issue's body: each run's margin (body:\n%s)", issue.Bodies[0])
	}

	code, out = recordWarning(t, hist, marginSet(t, verdict.Pass, ms(1.4)), 5)
	assert.Equal(t, exitOK, code, "the next run, margin still shrunk: exit status (output:\n%s)", out)
	st = readGH(t, state)
	require.Len(t, st.Issues, 1, "issues after two runs whose margin shrank; want one (calls %v)", st.Calls)
	assert.Equal(t, 1, st.Issues[0].Comments, "comments on the warning's issue; want the second run's")
	assert.Contains(t, st.Issues[0].Bodies[1], lastRun(t, hist).ID(), "the comment names the second run")
}

// TestAnInconclusiveStreakOpensOneWarningIssue records W2 inconclusive a third and a fourth time
// in a row: the third opens one issue labelled claim-warning saying how long the streak is, the
// fourth comments on it with the streak one longer; neither changes the exit status.
func TestAnInconclusiveStreakOpensOneWarningIssue(t *testing.T) {
	state := installFakeGH(t)
	hist := t.TempDir()
	undecided := marginSet(t, verdict.Inconclusive, nil)
	pastRuns(t, hist, marginSet(t, verdict.Pass, nil), undecided, undecided)

	code, out := recordWarning(t, hist, undecided, 4)
	assert.Equal(t, exitOK, code, "the third inconclusive run: exit status (output:\n%s)", out)
	assert.Contains(t, out, "inconclusive 3 runs in a row", "the third inconclusive run: the report")
	st := readGH(t, state)
	require.Len(t, st.Issues, 1, "issues after three inconclusive runs; want one (calls %v)", st.Calls)
	assert.Equal(t, history.WarningLabel, st.Issues[0].Label, "the issue's label")
	assert.Equal(t, "Claim W2 may flip: inconclusive 3 runs in a row", st.Issues[0].Title, "the issue's title")
	assert.Contains(t, st.Issues[0].Bodies[0], "("+runURL(4)+")", "the issue's body links the run that warned")

	code, out = recordWarning(t, hist, undecided, 5)
	assert.Equal(t, exitOK, code, "the fourth inconclusive run: exit status (output:\n%s)", out)
	st = readGH(t, state)
	require.Len(t, st.Issues, 1, "issues after four inconclusive runs; want one (calls %v)", st.Calls)
	assert.Equal(t, 1, st.Issues[0].Comments, "comments on the warning's issue; want the fourth run's")
	assert.Contains(t, st.Issues[0].Bodies[1], "inconclusive 4 runs in a row", "the comment: the streak's length")
}

// TestAWarningNotSentIsKeptWithoutFailing records two runs whose margin shrank while gh fails,
// then one whose margin recovered with gh back: the first two exit 0, say on stderr that the
// warning was kept, and the history keeps one warning (the second run's, which replaced the
// first's); the third sends it, opening the warning's issue from the run that raised it, and
// keeps nothing.
func TestAWarningNotSentIsKeptWithoutFailing(t *testing.T) {
	state := installFakeGH(t)
	hist := t.TempDir()
	pastRuns(t, hist, marginSet(t, verdict.Pass, ms(4)), marginSet(t, verdict.Pass, ms(4.2)), marginSet(t, verdict.Pass, ms(3.8)))

	t.Setenv(fakeGHFailEnv, "1")
	for i, margin := range []float64{1.5, 1.2} {
		code, out := recordWarning(t, hist, marginSet(t, verdict.Pass, ms(margin)), 4+i)
		assert.Equal(t, exitOK, code, "run %d, margin shrank, gh failing: exit status (output:\n%s)", i+1, out)
		assert.Contains(t, out, "warning not sent, kept in the history for the next run: Claim W2 may flip", "run %d: what it says", i+1)
		kept := lastRun(t, hist)
		require.Len(t, kept.Unsent, 1, "run %d in the history: alerts kept unsent; want its warning only (%v)", i+1, kept.Unsent)
		assert.Equal(t, history.WarningLabel, kept.Unsent[0].Label, "run %d: the alert kept", i+1)
		assert.Equal(t, kept.ID(), kept.Unsent[0].From, "run %d: the kept warning's run; want its own, which replaced the one before", i+1)
		assert.Contains(t, kept.Unsent[0].Why, "error connecting", "run %d: why it was not sent", i+1)
	}
	raised := lastRun(t, hist)
	assert.Empty(t, readGH(t, state).Issues, "issues while gh fails")

	t.Setenv(fakeGHFailEnv, "")
	code, out := recordWarning(t, hist, marginSet(t, verdict.Pass, ms(4.1)), 6)
	assert.Equal(t, exitOK, code, "the next run, margin back, gh back: exit status (output:\n%s)", out)
	assert.Contains(t, out, "1 sent, 0 kept unsent", "the next run: the report")
	assert.Empty(t, lastRun(t, hist).Unsent, "the next run in the history: alerts kept unsent")
	issues := readGH(t, state).Issues
	require.Len(t, issues, 1, "issues once gh is back; want the kept warning's")
	assert.Equal(t, history.WarningLabel, issues[0].Label, "the issue's label")
	assert.Equal(t, "Claim W2 may flip: margin shrank", issues[0].Title, "the issue's title")
	assert.Contains(t, issues[0].Bodies[0], raised.ID(), "the issue's body names the run that raised it")
	assert.Contains(t, issues[0].Bodies[0], "1.20 ms", "the issue's body: that run's margin")
}
