package report

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// reportDirEnv names a results folder whose results the sample tests draw and check:
// `make test` sets it to the results the run just wrote. Unset, they use the repository's
// results folder (results.Dir), which holds whatever the last runs here wrote.
const reportDirEnv = "CLAIMS_REPORT_DIR"

// sampleDir is the folder of real results the sample tests read.
func sampleDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(reportDirEnv); d != "" {
		return d
	}
	root, err := repo.Root()
	require.NoError(t, err)
	return results.Dir(root)
}

// sampleEntries are the real results of group (eventloop, threadpool, coldstart) in the sample
// folder; with none there (a fresh clone before any run), the test skips naming the folder.
func sampleEntries(t *testing.T, group string) []Entry {
	t.Helper()
	dir := sampleDir(t)
	s, err := Load(dir)
	if err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			t.Skipf("no results folder %s (set %s to one)", dir, reportDirEnv)
		}
	}
	var out []Entry
	for _, e := range s.Entries {
		if e.Group() == group {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Skipf("no %s results under %s (run its experiments, or set %s to a folder of results)", group, dir, reportDirEnv)
	}
	return out
}
