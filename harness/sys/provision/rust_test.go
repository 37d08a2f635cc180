package provision

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRustPackagesByDistribution: Debian 12 builds with rustc-web (its rustc is too old for the
// crates), Debian 13 and Ubuntu with rustc; each machine gets the other architecture's cross gcc.
func TestRustPackagesByDistribution(t *testing.T) {
	bookworm := rustPackages(map[string]string{"ID": "debian", "VERSION_ID": "12"}, "amd64")
	assert.Equal(t, []string{"rustc-web", "cargo-web", "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross", "debian-archive-keyring"}, bookworm)
	trixie := rustPackages(map[string]string{"ID": "debian", "VERSION_ID": "13"}, "amd64")
	assert.Equal(t, []string{"rustc", "cargo"}, trixie[:2], "Debian 13's toolchain")
	noble := rustPackages(map[string]string{"ID": "ubuntu", "VERSION_ID": "24.04"}, "arm64")
	assert.Equal(t, []string{"rustc", "cargo", "gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross", "debian-archive-keyring"}, noble)
}

// TestOSReleaseFields: quoted and bare values, comments skipped; no file is no fields.
func TestOSReleaseFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "os-release")
	require.NoError(t, os.WriteFile(path, []byte("# c\nID=debian\nVERSION_ID=\"12\"\nNAME='Debian GNU/Linux'\n"), 0o644))
	assert.Equal(t, map[string]string{"ID": "debian", "VERSION_ID": "12", "NAME": "Debian GNU/Linux"}, OSRelease(path))
	assert.Empty(t, OSRelease(filepath.Join(t.TempDir(), "none")))
}
