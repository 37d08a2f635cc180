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

// TestRustNamesWhatItLacks: a cross build for an architecture this machine has no cross gcc
// for names its packages; a toolchain that no Debian package installed and that has no standard
// library for the target names the rustup command, a Debian-packaged one does not (its package's
// standard library is fetched). A native build lacks nothing.
func TestRustNamesWhatItLacks(t *testing.T) {
	riscv := rustArch{triple: "riscv64gc-unknown-linux-gnu", deb: "riscv64", gnu: "riscv64-linux-gnu-claims-test", gcc: "gcc-riscv64-linux-gnu", libc: "libc6-dev-riscv64-cross"}
	rustup := rustToolchain{cargo: "/nonexistent/cargo", rustc: "/nonexistent/rustc"}
	missing := strings.Join(rustMissing(rustup, riscv, true), "; ")
	assert.Contains(t, missing, "rustup target add riscv64gc-unknown-linux-gnu")
	assert.Contains(t, missing, "apt-get install gcc-riscv64-linux-gnu libc6-dev-riscv64-cross")
	debian := rustToolchain{cargo: "/nonexistent/cargo", rustc: "/nonexistent/rustc", pkg: "rustc", version: "1.85.1+dfsg1-1+deb13u1"}
	assert.NotContains(t, strings.Join(rustMissing(debian, riscv, true), "; "), "rustup")
	assert.Empty(t, rustMissing(rustup, riscv, false), "a native build's lacks")
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
			tc, err := findRustToolchain()
			require.NoError(t, err, "this machine's Rust toolchain (make setup installs it)")
			if missing := rustMissing(tc, ra, ra.goarch != runtime.GOARCH); len(missing) > 0 {
				err := buildRust(root, rustPkg, arch, nil, t.TempDir())
				require.Error(t, err)
				for _, m := range missing {
					assert.Contains(t, err.Error(), m)
				}
				t.Skipf("%s: this machine lacks %v (the error names them): run make setup", arch, missing)
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

// TestCanBuildAnswersWithoutBuilding: an architecture Lambda does not run is refused, named; a
// language whose build does not depend on the architecture can always be built; Rust's answer
// is rustMissing's for this machine's toolchain.
func TestCanBuildAnswersWithoutBuilding(t *testing.T) {
	err := CanBuild(Rust, Arch("riscv64"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"riscv64"`)
	assert.NoError(t, CanBuild(Go, ARM64))
	tc, err := findRustToolchain()
	require.NoError(t, err, "this machine's Rust toolchain (make setup installs it)")
	for arch, ra := range rustArches {
		missing := rustMissing(tc, ra, ra.goarch != runtime.GOARCH)
		if err := CanBuild(Rust, arch); len(missing) > 0 {
			assert.ErrorContains(t, err, missing[0], "CanBuild(Rust, %s)", arch)
		} else {
			assert.NoError(t, err, "CanBuild(Rust, %s)", arch)
		}
	}
}
