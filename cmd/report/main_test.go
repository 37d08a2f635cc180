package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

func TestRunWritesBothFilesBesideTheResults(t *testing.T) {
	dir := t.TempDir()
	_, err := results.Write(filepath.Join(dir, "eventloop"), "a.json", results.Result{
		Experiment: "TestGoPingDoesNotWait/cpu=2", Claims: []string{"W5"}, Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: verdict.Pass, Reason: "1 check holds"}})
	require.NoError(t, err)
	require.NoError(t, run(dir, "", ""))
	for _, name := range []string{"report.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if assert.NoError(t, err, "%s not written", name) {
			assert.Contains(t, string(data), "TestGoPingDoesNotWait/cpu=2", "%s does not show the result", name)
		}
	}
}

func TestRunWritesNothingWithoutResults(t *testing.T) {
	dir := t.TempDir()
	assert.ErrorContains(t, run(dir, "", ""), "no results under", "run over an empty folder = nil error; want it named")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "run over an empty folder wrote %v", left)
}
