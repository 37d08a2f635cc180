package lambdazip

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// rustPkg is the Rust function.
const rustPkg = "functions/getitem-rust"

// TestRustBuildRefusesWhatItDoesNotKnow: a tag that is no broken build is named, before cargo
// runs.
func TestRustBuildRefusesWhatItDoesNotKnow(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	err = buildRust(root, rustPkg, X8664, []string{"brokentrace", "lukewarm"}, t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"lukewarm"`)
	assert.Contains(t, err.Error(), "brokenwarmclient")
}

// TestRustNamesTheDebianPackagesItLacks: a build for an architecture this machine has no Rust
// standard library and no cross gcc for says which Debian packages those are, and how to install
// a foreign architecture's.
func TestRustNamesTheDebianPackagesItLacks(t *testing.T) {
	riscv := rustArch{triple: "riscv64gc-unknown-linux-gnu", deb: "riscv64", gnu: "riscv64-linux-gnu-claims-test", gcc: "gcc-riscv64-linux-gnu", libc: "libc6-dev-riscv64-cross"}
	missing := rustMissing(riscv, true)
	assert.Contains(t, missing, "libstd-rust-web-dev:riscv64")
	assert.Contains(t, missing, "gcc-riscv64-linux-gnu")
	assert.Contains(t, missing, "libc6-dev-riscv64-cross")
	hint := rustInstallHint(missing)
	assert.True(t, strings.HasPrefix(hint, "dpkg --add-architecture riscv64; apt-get update; apt-get install "), "hint %q", hint)
	assert.Equal(t, "apt-get install a b", rustInstallHint([]string{"a", "b"}))
}

// TestRustBuildIsReproducibleForEachArchitecture builds the function twice for each architecture
// Lambda runs, into different folders: the same bytes, an executable for that machine, and a
// broken build that differs. Where this machine lacks what an architecture's build needs, the
// build's error must name the Debian packages missing.
func TestRustBuildIsReproducibleForEachArchitecture(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	machines := map[Arch]elf.Machine{X8664: elf.EM_X86_64, ARM64: elf.EM_AARCH64}
	for _, arch := range []Arch{X8664, ARM64} {
		t.Run(string(arch), func(t *testing.T) {
			ra := rustArches[arch]
			if missing := rustMissing(ra, ra.goarch != runtime.GOARCH); len(missing) > 0 {
				err := buildRust(root, rustPkg, arch, nil, t.TempDir())
				require.Error(t, err)
				for _, m := range missing {
					assert.Contains(t, err.Error(), m)
				}
				t.Skipf("%s: this machine lacks %v; the error names them", arch, missing)
			}
			var bins [][]byte
			for range 2 {
				dir := t.TempDir()
				require.NoError(t, buildRust(root, rustPkg, arch, nil, dir))
				bin := filepath.Join(dir, "bootstrap")
				info, err := os.Stat(bin)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "bootstrap's mode")
				f, err := elf.Open(bin)
				require.NoError(t, err)
				assert.Equal(t, machines[arch], f.Machine, "bootstrap's machine")
				require.NoError(t, f.Close())
				data, err := os.ReadFile(bin)
				require.NoError(t, err)
				assert.False(t, bytes.Contains(data, []byte(root)), "bootstrap holds the repository's path %s", root)
				bins = append(bins, data)
			}
			assert.True(t, bytes.Equal(bins[0], bins[1]), "two builds differ")
			dir := t.TempDir()
			require.NoError(t, buildRust(root, rustPkg, arch, []string{"brokenwarmclient"}, dir))
			broken, err := os.ReadFile(filepath.Join(dir, "bootstrap"))
			require.NoError(t, err)
			assert.False(t, bytes.Equal(bins[0], broken), "the brokenwarmclient build is the plain one")
		})
	}
}
