package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// reportDirEnv names a results folder whose results the sample tests draw and check:
// `make test` sets it to the results the run just wrote. Unset, they use the repository's
// results folder (results.Dir), which holds whatever the last runs here wrote.
const reportDirEnv = "CLAIMS_REPORT_DIR"

// sampleDir is the folder of real results the sample tests read, and whether reportDirEnv
// named it.
func sampleDir(t *testing.T) (string, bool) {
	t.Helper()
	if d := os.Getenv(reportDirEnv); d != "" {
		return d, true
	}
	root, err := repo.Root()
	require.NoError(t, err)
	return results.Dir(root), false
}

// sampleEntries are the real results of group (eventloop, threadpool, coldstart) in the sample
// folder. A folder that does not load fails the test; a skip is only for a folder nobody named
// that holds no results at all, or none of group (loadSample).
func sampleEntries(t *testing.T, group string) []Entry {
	t.Helper()
	dir, named := sampleDir(t)
	entries, skip, err := loadSample(dir, named, group)
	require.NoError(t, err, "the sample results (%s=%q)", reportDirEnv, os.Getenv(reportDirEnv))
	if skip != "" {
		t.Skip(skip)
	}
	return entries
}

// loadSample decides what a sample test does with dir: its entries of group, a reason to skip,
// or an error that fails the test. A folder named by reportDirEnv is the results a run just
// wrote and wants checked (`make test` names the one it wrote), so anything short of results
// of group there is an error: the folder missing, empty, a result that does not read, a broken
// run among the findings, no result of group. Unnamed, the repository's results folder is
// whatever the last runs here left: none at all (a fresh clone) or none of group is a skip that
// says what is missing and how to make it; a result that is there and does not read is still an
// error, never a skip, since Load would refuse the same folder in `make report`.
func loadSample(dir string, named bool, group string) (entries []Entry, skip string, err error) {
	s, err := Load(dir)
	if err != nil {
		if _, statErr := os.Stat(dir); !named && (errors.Is(statErr, os.ErrNotExist) || errors.Is(err, ErrNoResults)) {
			return nil, fmt.Sprintf("no results under %s (run `make experiments`, or set %s to a folder of results)", dir, reportDirEnv), nil
		}
		return nil, "", fmt.Errorf("loading the sample results: %w", err)
	}
	for _, e := range s.Entries {
		if e.Group() == group {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		if named {
			return nil, "", fmt.Errorf("no %s results under %s, which %s names", group, dir, reportDirEnv)
		}
		return nil, fmt.Sprintf("no %s results under %s (run its experiments, or set %s to a folder of results)", group, dir, reportDirEnv), nil
	}
	return entries, "", nil
}

// TestASampleFolderThatDoesNotLoadFails: the sample tests fail, not skip, on a folder with a
// malformed result or a broken run among its findings, named or not; a named folder that is
// missing, empty or without the group fails too; only the repository's own folder, missing or
// without results (of the group), is a skip, saying what is missing.
func TestASampleFolderThatDoesNotLoadFails(t *testing.T) {
	good := results.Result{Experiment: "TestPoolSlots/node24", Claims: []string{"P3"}, Family: "threadpool.slots", Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: verdict.Pass}}
	other := results.Result{Experiment: "TestPingWaitsBehindCPU", Claims: []string{"W2"}, Family: "eventloop.ping", Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: verdict.Pass}}
	folder := func(t *testing.T, files map[string]string, res map[string]results.Result) string {
		t.Helper()
		dir := t.TempDir()
		for rel, r := range res {
			_, err := results.Write(filepath.Join(dir, filepath.Dir(rel)), filepath.Base(rel), r)
			require.NoError(t, err)
		}
		for rel, text := range files {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644))
		}
		return dir
	}
	malformed := map[string]string{"threadpool/TestPoolSlots--node20.json": `{"experiment": "TestPoolSlots/node20", "verdict": `}
	brokenRun := map[string]results.Result{"threadpool/TestX.json": {Experiment: "TestX", Claims: []string{"P3"}, Broken: "a broken probe"}}
	withGood := map[string]results.Result{"threadpool/TestPoolSlots--node24.json": good}
	for _, c := range []struct {
		name  string
		dir   func(t *testing.T) string
		named bool
		want  string // "entries", "skip" or "error"
	}{
		{"a malformed result, named", func(t *testing.T) string { return folder(t, malformed, withGood) }, true, "error"},
		{"a malformed result, unnamed", func(t *testing.T) string { return folder(t, malformed, withGood) }, false, "error"},
		{"a broken run among the findings, unnamed", func(t *testing.T) string { return folder(t, nil, brokenRun) }, false, "error"},
		{"a missing folder, named", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, true, "error"},
		{"a missing folder, unnamed", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, false, "skip"},
		{"an empty folder, named", func(t *testing.T) string { return t.TempDir() }, true, "error"},
		{"an empty folder, unnamed", func(t *testing.T) string { return t.TempDir() }, false, "skip"},
		{"no result of the group, named", func(t *testing.T) string { return folder(t, nil, map[string]results.Result{"eventloop/a.json": other}) }, true, "error"},
		{"no result of the group, unnamed", func(t *testing.T) string { return folder(t, nil, map[string]results.Result{"eventloop/a.json": other}) }, false, "skip"},
		{"results of the group, named", func(t *testing.T) string { return folder(t, nil, withGood) }, true, "entries"},
		{"results of the group, unnamed", func(t *testing.T) string { return folder(t, nil, withGood) }, false, "entries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			entries, skip, err := loadSample(dir, c.named, "threadpool")
			got := "entries"
			switch {
			case err != nil:
				got = "error"
			case skip != "":
				got = "skip"
			}
			assert.Equal(t, c.want, got, "loadSample = %s; want %s (entries %d, skip %q, error %v)", got, c.want, len(entries), skip, err)
			if got == "skip" {
				assert.Contains(t, skip, dir, "a skip names the folder it found nothing in")
			}
		})
	}
}
