package webendpoints

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clearEnv unsets every variable Load reads.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range URLEnv {
		t.Setenv(k, "")
	}
	t.Setenv(AuthEnv, "")
}

func sample() Deployment {
	return Deployment{
		RunID: "0123abcd", Region: "us-east-1", CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		Bucket: "claims-0123abcd-web-code", Role: "claims-0123abcd-web-exec",
		Endpoints: []Endpoint{{
			Name: Node, URL: "https://abc.def.lambda-web.us-east-1.on.aws", Auth: AuthIAM, Region: "us-east-1",
			Runtime: Runtime, Arch: Arch, MaxEnvironments: 2, MaxConcurrencyPerEnvironment: 64, Function: "claims-0123abcd-node",
		}},
	}
}

func TestWriteThenReadGivesTheSameDeployment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live-web", "endpoints.json")
	require.NoError(t, Write(path, sample()))
	got, err := Read(path)
	require.NoError(t, err)
	want := sample()
	want.Source = path
	assert.Equal(t, want, got)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "files beside the endpoints file = %v; want none (the temporary one renamed)", entries)
}

// TestWriteIsWholeOrNothing: a write that cannot finish leaves the old file as it was and no
// temporary file behind.
func TestWriteIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "endpoints.json")
	require.NoError(t, Write(path, sample()))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	// The target is now a non-empty folder: the rename fails after the data was written.
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.MkdirAll(filepath.Join(path, "x"), 0o755))
	d := sample()
	d.RunID = "ffffffff"
	assert.Error(t, Write(path, d), "Write over a folder must fail")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "files left = %v; want only the folder (no temporary file)", entries)

	// And over a file, the file is either the old or the new one, never half of one.
	other := filepath.Join(dir, "e2.json")
	require.NoError(t, os.WriteFile(other, before, 0o644))
	require.NoError(t, Write(other, d))
	got, err := Read(other)
	require.NoError(t, err)
	assert.Equal(t, "ffffffff", got.RunID)
}

func TestLoadWithoutFileOrVariablesIsErrNoEndpoints(t *testing.T) {
	clearEnv(t)
	_, err := loadFrom(filepath.Join(t.TempDir(), "endpoints.json"))
	assert.ErrorIs(t, err, ErrNoEndpoints)
}

func TestVariablesWinOverTheFile(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "endpoints.json")
	require.NoError(t, Write(path, sample()))
	d, err := loadFrom(path)
	require.NoError(t, err)
	assert.Equal(t, path, d.Source, "without variables the file is read")

	t.Setenv(URLEnv[Go], "https://x.y.lambda-web.eu-west-1.on.aws")
	t.Setenv(URLEnv[GoConc1], "https://z.y.lambda-web.eu-west-1.on.aws")
	d, err = loadFrom(path)
	require.NoError(t, err)
	assert.Equal(t, "environment", d.Source, "source = %q; want the variables to win", d.Source)
	assert.Equal(t, "eu-west-1", d.Region, "region = %q; want the one the URL's host names", d.Region)
	require.Len(t, d.Endpoints, 2)
	_, ok := d.Endpoint(Node)
	assert.False(t, ok, "the file's node endpoint must not mix with the variables'")
	c1, ok := d.Endpoint(GoConc1)
	require.True(t, ok)
	assert.Equal(t, 1, c1.MaxConcurrencyPerEnvironment)
	assert.Equal(t, AuthIAM, c1.Auth)
}

func TestBadURLsAreRefusedNamingTheirSource(t *testing.T) {
	clearEnv(t)
	for _, raw := range []string{"http://x.lambda-web.us-east-1.on.aws", "https://", "https://u:p@x.on.aws", "https://x.on.aws/?X-Amz-Signature=abc"} {
		t.Setenv(URLEnv[Node], raw)
		_, err := loadFrom(filepath.Join(t.TempDir(), "none.json"))
		require.Error(t, err, "URL %q must be refused", raw)
		assert.Contains(t, err.Error(), URLEnv[Node])
		assert.NotContains(t, err.Error(), "X-Amz-Signature=abc", "the error prints a signature")
	}
	t.Setenv(URLEnv[Node], "")
	t.Setenv(AuthEnv, "NONE")
	t.Setenv(URLEnv[Go], "https://x.y.lambda-web.us-east-1.on.aws")
	_, err := loadFrom("")
	assert.ErrorContains(t, err, AuthEnv)

	clearEnv(t)
	path := filepath.Join(t.TempDir(), "endpoints.json")
	d := sample()
	d.Endpoints[0].URL = "ftp://x"
	require.NoError(t, Write(path, d))
	_, err = Read(path)
	assert.ErrorContains(t, err, "endpoint node")
	require.NoError(t, os.WriteFile(path, []byte(`{"region":"us-east-1","endpoints":[]}`), 0o644))
	_, err = Read(path)
	assert.ErrorIs(t, err, ErrNoEndpoints)
}
