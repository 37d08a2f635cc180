package lambdazip

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/provision"
)

// withoutBuilds empties the process's record of what was built for the test, so that a zip an
// earlier test built is not returned in place of the prebuilt one.
func withoutBuilds(t *testing.T) {
	t.Helper()
	buildMu.Lock()
	saved := built
	built = map[string]Package{}
	buildMu.Unlock()
	t.Cleanup(func() {
		buildMu.Lock()
		built = saved
		buildMu.Unlock()
	})
}

// TestPrebuiltZipsAreTakenNotBuilt: with provision.PrebuiltEnv set, a function in a language
// other than Go is the zip make package left there, byte for byte, and no toolchain is asked;
// a zip that is not there, a function with build tags and a relative folder are refused, naming
// the setting.
func TestPrebuiltZipsAreTakenNotBuilt(t *testing.T) {
	withoutBuilds(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, string(ARM64)), 0o755))
	zip := filepath.Join(dir, string(ARM64), "getitem-python.zip")
	data := []byte("not built here: the build job's zip")
	require.NoError(t, os.WriteFile(zip, data, 0o644))
	t.Setenv(provision.PrebuiltEnv, dir)

	p, err := Build("functions/getitem-python", ARM64)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	assert.Equal(t, zip, p.Path, "the zip's path")
	assert.Equal(t, hex.EncodeToString(sum[:]), p.SHA256, "the zip's SHA-256")
	assert.Equal(t, int64(len(data)), p.Size)
	assert.Equal(t, Python, p.Language)
	assert.Equal(t, Python.Runtime(), p.Runtime)
	assert.NoError(t, CanBuild(Rust, ARM64), "a Rust function, prebuilt")

	_, err = Build("functions/getitem-python", X8664)
	assert.ErrorContains(t, err, filepath.Join(dir, string(X8664), "getitem-python.zip"), "a zip make package did not build")
	assert.ErrorContains(t, err, provision.PrebuiltEnv)
	assert.ErrorContains(t, CanBuild(Rust, X8664), provision.PrebuiltEnv, "no zips for the architecture")
	_, err = Build("functions/getitem-python", ARM64, "sometag")
	assert.ErrorContains(t, err, "with build tags sometag")

	withoutBuilds(t)
	t.Setenv(provision.PrebuiltEnv, "relative/package")
	_, err = Build("functions/getitem-python", ARM64)
	assert.ErrorContains(t, err, provision.PrebuiltEnv+` = "relative/package": want an absolute path`)
}
