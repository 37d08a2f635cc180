package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// git runs git in dir for the test's setup and gives its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// addRun writes a run's file into a writer's checkout, as record does.
func addRun(t *testing.T, dir, name string) {
	t.Helper()
	path := filepath.Join(dir, "2026", name+".json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(`{"schema":"claims-history/v1"}`+"\n"), 0o644))
}

// race pushes every writer's checkout at once, each with -tries tries, and gives their exit
// statuses and outputs.
func race(t *testing.T, writers []string, tries string) ([]int, []string) {
	t.Helper()
	codes, outs := make([]int, len(writers)), make([]string, len(writers))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, w := range writers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			codes[i], outs[i] = runHistory(t, "push", "-history", w, "-branch", "claims-history", "-tries", tries)
		}()
	}
	start.Done()
	done.Wait()
	return codes, outs
}

// TestTwoWritersRacingBothLand has two writers, each a clone of its own, record a run and push
// the history branch of a bare repository at the same moment, twice: when the branch does not
// exist yet (both make it) and when both start from its tip. Every run lands, in a line of
// commits (no merge), whichever pushed first. With one try each, one of them is refused: the
// race is real.
func TestTwoWritersRacingBothLand(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	bare := filepath.Join(t.TempDir(), "claims.git")
	require.NoError(t, os.MkdirAll(bare, 0o755))
	git(t, bare, "init", "-q", "--bare")
	var writers []string
	for _, name := range []string{"claims", "live"} {
		w := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.MkdirAll(w, 0o755))
		git(t, w, "init", "-q")
		git(t, w, "remote", "add", "origin", bare)
		writers = append(writers, w)
	}

	// The first runs: the branch is made by whichever pushes first.
	addRun(t, writers[0], "20261201T041700.000Z-claims")
	addRun(t, writers[1], "20261201T054100.000Z-live")
	codes, outs := race(t, writers, "10")
	for i := range writers {
		assert.Equal(t, exitOK, codes[i], "writer %d, first runs: exit status (output:\n%s)", i, outs[i])
	}

	// The next runs, both from the branch's tip as their jobs fetched it.
	for _, w := range writers {
		git(t, w, "fetch", "-q", "origin", "claims-history")
		git(t, w, "checkout", "-q", "--detach", "FETCH_HEAD")
	}
	addRun(t, writers[0], "20261202T041700.000Z-claims")
	addRun(t, writers[1], "20261202T054100.000Z-live")
	codes, outs = race(t, writers, "10")
	for i := range writers {
		assert.Equal(t, exitOK, codes[i], "writer %d, next runs: exit status (output:\n%s)", i, outs[i])
	}

	files := strings.Fields(git(t, bare, "ls-tree", "-r", "--name-only", "claims-history"))
	assert.ElementsMatch(t, []string{"2026/20261201T041700.000Z-claims.json", "2026/20261201T054100.000Z-live.json",
		"2026/20261202T041700.000Z-claims.json", "2026/20261202T054100.000Z-live.json"}, files, "the runs on the branch; want all four")
	assert.Equal(t, "4", git(t, bare, "rev-list", "--count", "claims-history"), "commits on the branch; want one per run")
	assert.Empty(t, git(t, bare, "rev-list", "--merges", "claims-history"), "merge commits on the branch")

	// One try each: the writer that comes second is refused, as it was above before its retry.
	for i, w := range writers {
		git(t, w, "fetch", "-q", "origin", "claims-history")
		git(t, w, "checkout", "-q", "--detach", "FETCH_HEAD")
		addRun(t, w, "20261203T0000"+string(rune('0'+i))+"0.000Z-x")
	}
	codes, _ = race(t, writers, "1")
	assert.ElementsMatch(t, []int{exitOK, exitUsage}, codes, "exit statuses of two writers with one try each; want one refused")
}

// TestPushWithNothingNewPushesNothing checks that a checkout with no run added and no commit is
// left alone, and that bad settings are refused naming them.
func TestPushWithNothingNewPushesNothing(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	w := t.TempDir()
	git(t, w, "init", "-q")
	code, out := runHistory(t, "push", "-history", w, "-branch", "claims-history")
	assert.Equal(t, exitOK, code, "an empty checkout: exit status (output:\n%s)", out)
	assert.Contains(t, out, "nothing to push")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"push", "-branch", "b"}, "-history"},
		{[]string{"push", "-history", w}, "-branch"},
		{[]string{"push", "-history", w, "-branch", "b", "-tries", "0"}, "-tries"},
		{[]string{"push", "-history", w, "-branch", "b", "-author", "nobody"}, "-author"},
	} {
		code, out := runHistory(t, tc.args...)
		assert.Equal(t, exitUsage, code, "%v: exit status (output: %s)", tc.args, out)
		assert.Contains(t, out, tc.want, "%v: the error names what is wrong", tc.args)
	}
}
