package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

func TestRunWritesBothFilesBesideTheResults(t *testing.T) {
	dir := t.TempDir()
	_, err := results.Write(filepath.Join(dir, "eventloop"), "a.json", results.Result{
		Experiment: "TestGoPingDoesNotWait/cpu=2", Claims: []string{"W5"}, Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: verdict.Pass, Reason: "1 check holds"}})
	require.NoError(t, err)
	require.NoError(t, run(dir, "", "", "", ""))
	for _, name := range []string{"report.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if assert.NoError(t, err, "%s not written", name) {
			assert.Contains(t, string(data), "TestGoPingDoesNotWait/cpu=2", "%s does not show the result", name)
		}
	}
}

func TestRunWritesNothingWithoutResults(t *testing.T) {
	dir := t.TempDir()
	assert.ErrorContains(t, run(dir, "", "", "", ""), "no results under", "run over an empty folder = nil error; want it named")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "run over an empty folder wrote %v", left)
}

// writeResult writes one W5 result under dir, as the experiments do.
func writeResult(t *testing.T, dir string) {
	t.Helper()
	_, err := results.Write(filepath.Join(dir, "eventloop"), "a.json", results.Result{
		Experiment: "TestGoPingDoesNotWait/cpu=2", Claims: []string{"W5"}, Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: verdict.Pass, Reason: "1 check holds"}})
	require.NoError(t, err)
}

func TestRunShowsTheHistoryItIsGiven(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeResult(t, dir)
	for i, o := range []verdict.Outcome{verdict.Pass, verdict.Fail} {
		_, err := history.Append(hist, history.Run{Schema: history.Schema, Kind: "claims", Trigger: "schedule",
			StartedAt: time.Date(2026, 3, 1+i, 6, 0, 0, 0, time.UTC),
			Records: []history.Record{{Key: history.Key{Experiment: "TestGoPingDoesNotWait/cpu=2", Mode: results.ModeLocal},
				Claims: []string{"W5"}, Outcome: o}}}, 0)
		require.NoError(t, err)
	}
	require.NoError(t, run(dir, "", "", hist, ""))
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| W5 | `TestGoPingDoesNotWait/cpu=2` | local |  | pass fail |",
		"report.md's history = %q; want W5's row with both runs' verdicts", string(md[max(0, strings.Index(string(md), "## History")):]))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<h2 id="history">History</h2>`, "report.html has no History section; want one with -history")

	require.NoError(t, run(dir, "", "", "", ""))
	md, err = os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(md), "## History", "report.md without -history has a History section; want none")
}

func TestRunRefusesAHistoryFolderThatIsNotThere(t *testing.T) {
	dir := t.TempDir()
	writeResult(t, dir)
	missing := filepath.Join(t.TempDir(), "no-such-history")
	assert.ErrorContains(t, run(dir, "", "", missing, ""), "no-such-history", "run with a missing -history = nil error; want it named (a wrong path, not an empty history)")
	_, err := os.Stat(filepath.Join(dir, "report.md"))
	assert.ErrorIs(t, err, os.ErrNotExist, "report.md written with a missing -history; want nothing written")
}

func TestRunWritesTheSiteWithTheResultsItLinks(t *testing.T) {
	dir, hist := t.TempDir(), t.TempDir()
	writeResult(t, dir)
	site := filepath.Join(t.TempDir(), "site")
	assert.ErrorContains(t, run(dir, "", "", "", site), "without -history", "run with -site and no -history = nil error; want it refused")
	_, err := os.Stat(site)
	assert.ErrorIs(t, err, os.ErrNotExist, "the site written without a history; want nothing")

	_, err = history.Append(hist, history.Run{Schema: history.Schema, Kind: "claims", Trigger: "schedule",
		StartedAt: time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC),
		Records: []history.Record{{Key: history.Key{Experiment: "TestGoPingDoesNotWait/cpu=2", Mode: results.ModeLocal},
			Claims: []string{"W5"}, Outcome: verdict.Pass}}}, 0)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(site, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(site, "stale.json"), []byte("{}"), 0o644))
	require.NoError(t, run(dir, "", "", hist, site))
	page, err := os.ReadFile(filepath.Join(site, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `href="eventloop/a.json"`, "the site's page links to its result; want the link")
	_, err = os.Stat(filepath.Join(site, "eventloop", "a.json"))
	assert.NoError(t, err, "the result the site's page links to, in the site")
	_, err = os.Stat(filepath.Join(site, "stale.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a file of the previous site left in the new one; want the site replaced whole")

	require.NoError(t, os.Remove(filepath.Join(dir, "report.md")))
	for _, overlap := range []string{dir, filepath.Dir(dir), filepath.Join(dir, "site")} {
		assert.ErrorContains(t, run(dir, "", "", hist, overlap), "overlap", "run with -site %s over the results %s = nil error; want it refused", overlap, dir)
	}
	_, err = os.Stat(filepath.Join(dir, "eventloop", "a.json"))
	assert.NoError(t, err, "the result, after the sites refused over the results")
	_, err = os.Stat(filepath.Join(dir, "report.md"))
	assert.ErrorIs(t, err, os.ErrNotExist, "report.md written by a run whose site was refused; want nothing written")
}
