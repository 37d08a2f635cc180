package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// resultSet writes one local result of TestPoolSlots on node with outcome into a folder of its
// own, laid out as a run leaves it, and returns the folder.
func resultSet(t *testing.T, node string, outcome verdict.Outcome) string {
	t.Helper()
	dir := t.TempDir()
	experiment := "TestPoolSlots/" + node + "/default"
	_, err := results.Write(filepath.Join(dir, "threadpool"), results.FileName(experiment), results.Result{
		Experiment: experiment, Family: "threadpool.waves", Claims: []string{"P3"}, Mode: results.ModeLocal,
		Verdict:     verdict.Verdict{Outcome: outcome, Reason: "as the checks say"},
		Environment: results.Environment{Go: "go1.26.8", Node: "v" + strings.TrimPrefix(node, "node") + ".0.0"},
	})
	require.NoError(t, err)
	return dir
}

// compare runs the command on args and returns its exit status, stdout and stderr.
func compare(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestASetAgainstItselfHasNoDifferences(t *testing.T) {
	dir := resultSet(t, "node24", verdict.Pass)
	code, out, errOut := compare(t, dir, dir)
	assert.Equal(t, 0, code, "exit = %d; want 0 (stdout %q, stderr %q)", code, out, errOut)
	assert.Contains(t, out, "no differences")
	assert.Empty(t, errOut)
}

func TestAFlippedVerdictExitsOne(t *testing.T) {
	old, new := resultSet(t, "node20", verdict.Pass), resultSet(t, "node24", verdict.Fail)
	code, out, errOut := compare(t, old, new)
	assert.Equal(t, 1, code, "exit = %d; want 1 for a flipped verdict (stdout %q, stderr %q)", code, out, errOut)
	assert.Contains(t, out, "Verdicts that flipped (1)\n  P3 TestPoolSlots/node20/default → TestPoolSlots/node24/default "+
		"[local · Node v20.0.0 → local · Node v24.0.0]: verdict pass → fail")
}

func TestARuntimeChangeAloneExitsZero(t *testing.T) {
	code, out, _ := compare(t, resultSet(t, "node20", verdict.Pass), resultSet(t, "node24", verdict.Pass))
	assert.Equal(t, 0, code, "exit = %d; want 0: the runtimes differ, the verdicts do not (stdout %q)", code, out)
	assert.Contains(t, out, "no differences")
}

func TestBadInputExitsTwoNamingTheFolder(t *testing.T) {
	good := resultSet(t, "node24", verdict.Pass)
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, []byte("not a folder"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"no arguments", nil, []string{"usage: compare OLD NEW"}},
		{"one argument", []string{good}, []string{"usage: compare OLD NEW"}},
		{"OLD missing", []string{missing, good}, []string{"OLD", missing, "does not exist"}},
		{"NEW missing", []string{good, missing}, []string{"NEW", missing, "does not exist"}},
		{"NEW empty", []string{good, empty}, []string{"NEW", "no results under " + empty}},
		{"OLD a file", []string{file, good}, []string{"OLD", file, "is not a folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := compare(t, tc.args...)
			assert.Equal(t, 2, code, "exit = %d; want 2 (stderr %q)", code, errOut)
			assert.Empty(t, out, "a run on bad input printed a report")
			for _, w := range tc.want {
				assert.Contains(t, errOut, w, "stderr = %q; want %q in it", errOut, w)
			}
		})
	}
}
