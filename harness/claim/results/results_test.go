package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
)

func sample() Result {
	return Result{
		Experiment: "TestPingWaitsBehindCPU/one-cpu",
		Claims:     []string{"W2"},
		Parameters: map[string]any{"trials": 20},
		Verdict:    verdict.Verdict{Outcome: verdict.Pass, Reason: "ok"},
		Published:  []Published{{Claim: "W2", Figure: "waited 20/20"}},
	}
}

func TestWriteThenRead(t *testing.T) {
	dir := t.TempDir()
	path, err := Write(dir, "a.json", sample())
	require.NoError(t, err)
	got, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, Schema, got.Schema)
	assert.Equal(t, []string{"W2"}, got.Claims)
	assert.Equal(t, verdict.Pass, got.Verdict.Outcome)
	assert.JSONEq(t, `{"trials": 20}`, string(got.Parameters.(json.RawMessage)), "the family's parts come back as the raw JSON written")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file may be left beside the result")
}

func TestWriteLosesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	path, err := Write(dir, "a.json", sample())
	require.NoError(t, err)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	bad := sample()
	bad.Summary = map[string]any{"unencodable": func() {}}
	_, err = Write(dir, "a.json", bad)
	require.Error(t, err)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "a failed write must leave the old result whole")
}

func TestWriteRefusesSecrets(t *testing.T) {
	for name, leak := range map[string]string{
		"access key id": "AKIAIOSFODNN7EXAMPLE",
		"signed url":    "https://x.lambda-url.example/?X-Amz-Signature=abc",
		"account id":    "arn:aws:lambda:ap-northeast-1:123456789012:function:probe",
		"secret field":  "",
	} {
		t.Run(name, func(t *testing.T) {
			r := sample()
			r.Target = map[string]any{"url": leak}
			if leak == "" {
				r.Target = map[string]any{"secret_access_key": "wJalrXUtnFEMI"}
			}
			dir := t.TempDir()
			_, err := Write(dir, "a.json", r)
			assert.ErrorIs(t, err, ErrSecret)
			_, statErr := os.Stat(filepath.Join(dir, "a.json"))
			assert.True(t, os.IsNotExist(statErr), "nothing may be written")
		})
	}
}

func TestFileName(t *testing.T) {
	assert.Equal(t, "TestPingWaitsBehindCPU--node--one-cpu.json", FileName("TestPingWaitsBehindCPU/node/one-cpu"))
	assert.Equal(t, "TestX--mode=worker.json", FileName("TestX/mode=worker"))
	assert.Equal(t, "TestX--a_b.json", FileName("TestX/a b"))
}

func TestFingerprint(t *testing.T) {
	e := Fingerprint()
	assert.NotEmpty(t, e.Go)
	assert.Positive(t, e.Cores)
	assert.Positive(t, e.GOMAXPROCS)
	// The cgroup line is the package's own answer, whatever this machine allows: a hierarchy
	// and how its quota is made, or none and why (the schema's pattern).
	assert.Equal(t, cgroup.DescribeMachine(), e.Cgroup)
	assert.Regexp(t, `^(v1 |v2 |none: )`, e.Cgroup, "environment.cgroup = %q; want a hierarchy or none", e.Cgroup)
}
