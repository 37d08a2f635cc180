package claimtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// fatalRecorder catches Fatalf and keeps Logf, so a test can read what a Record said.
type fatalRecorder struct {
	testing.TB
	fatal  string
	logged []string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	panic("fatal")
}

func (f *fatalRecorder) Logf(format string, args ...any) {
	f.logged = append(f.logged, fmt.Sprintf(format, args...))
}

// testdataResult is results' testdata result, which validates.
func testdataResult(t *testing.T) results.Result {
	t.Helper()
	path, err := repo.Path("harness/claim/results/testdata/eventloop-result.json")
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var res results.Result
	require.NoError(t, json.Unmarshal(data, &res))
	return res
}

// record runs Record on a fatalRecorder, stopping where it fails the test.
func record(t *testing.T, res results.Result) *fatalRecorder {
	t.Helper()
	f := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Record(f, res)
	}()
	return f
}

func TestRecordLogsTheVerdictAndWhereItWent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(results.DirEnv, dir)
	f := record(t, testdataResult(t))
	require.Empty(t, f.fatal, "Record failed the test")
	want := filepath.Join(dir, "eventloop", results.FileName(testdataResult(t).Experiment))
	require.Len(t, f.logged, 1, "lines Record logged = %q; want one", f.logged)
	e, err := results.ParseEvent(f.logged[0])
	require.NoError(t, err, "Record's line = %q; want a results.Event", f.logged[0])
	assert.Equal(t, want, e.Path, "where Record's event says the result went")
	assert.FileExists(t, want)
}

func TestRecordFailsTheTestOnASecret(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(results.DirEnv, dir)
	res := testdataResult(t)
	res.Target = map[string]any{"role": "arn:aws:iam::123456789012:role/x"}
	f := record(t, res)
	assert.Contains(t, f.fatal, "account id in an ARN", "Record's failure = %q; want it to name the finding", f.fatal)
	assert.Empty(t, f.logged, "lines Record logged = %q; want none for a result not written", f.logged)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "written under %s = %v; want nothing", dir, entries)
}
