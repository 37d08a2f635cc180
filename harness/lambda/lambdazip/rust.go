package lambdazip

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/provision"
)

// RustDebianPackages are the Debian packages a Rust function (functions/getitem-rust) is built
// with, offline, as provisioning installs them (provision.RustPackages): Debian's Rust toolchain
// and the crates the function uses, which Debian installs as a directory registry
// (rustDebianRegistry). There is no AWS SDK for Rust among Debian's crates: the function signs
// its DynamoDB calls itself and sends them through hyper on tokio, as the SDK does.
var RustDebianPackages = provision.RustPackages

// RustARM64DebianPackages are what building the Rust function for arm64 takes on an x86_64
// machine beside RustDebianPackages, after `dpkg --add-architecture arm64; apt-get update`:
// Debian's arm64 standard library for rustc-web and the cross gcc that links it and compiles
// ring's C, with its C library. The standard library is Multi-Arch: same, so it must be the
// installed rustc-web's version (apt-get install libstd-rust-web-dev:arm64=<that version>), or
// apt upgrades the whole toolchain to the newest one to match it.
var RustARM64DebianPackages = []string{"libstd-rust-web-dev:arm64", "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"}

// Debian's Rust toolchain, by absolute path: a rustup toolchain earlier on PATH (~/.cargo/bin)
// is not what a machine provisioned with RustDebianPackages has, and must not build the function.
const (
	rustCargo = "/usr/bin/cargo"
	rustRustc = "/usr/bin/rustc"
)

// rustDebianRegistry is where Debian's librust-*-dev packages put their crates; the function's
// .cargo/config.toml replaces Cargo's default registry with it.
const rustDebianRegistry = "/usr/share/cargo/registry"

// rustCrates are the crates the function depends on, each with the Debian package that installs
// it into rustDebianRegistry, so that a missing one is named by its package.
var rustCrates = map[string]string{
	"rustls":              "librust-rustls-dev",
	"ring":                "librust-ring-dev",
	"webpki":              "librust-webpki-dev",
	"rustls-native-certs": "librust-rustls-native-certs-dev",
	"rustls-pemfile":      "librust-rustls-pemfile-dev",
	"serde_json":          "librust-serde-json-dev",
	"libc":                "librust-libc-dev",
	"hyper":               "librust-hyper-dev",
	"tokio":               "librust-tokio-dev",
	"tokio-rustls":        "librust-tokio-rustls-dev",
	"tower-service":       "librust-tower-service-dev",
}

// rustFeatures are the Rust function's broken builds: each of functions.Broken's build tags is a
// Cargo feature of the same name.
var rustFeatures = []string{"brokentrace", "brokenwarmup", "brokenwarmclient"}

// rustArch is what building for one architecture takes: Rust's target, and the Debian
// architecture and GNU triple of its standard library and cross tools.
type rustArch struct {
	triple string // Rust's target triple
	deb    string // Debian's architecture name
	gnu    string // the GNU triple that prefixes Debian's cross tools (/usr/bin/<gnu>-gcc)
	gcc    string // the Debian package of that cross gcc
	libc   string // the Debian package of the C library's headers and objects it compiles and links with
	goarch string // the GOARCH of a machine that builds it natively
}

// rustArches are the architectures Lambda runs, as Rust and Debian name them.
var rustArches = map[Arch]rustArch{
	X8664: {triple: "x86_64-unknown-linux-gnu", deb: "amd64", gnu: "x86_64-linux-gnu", gcc: "gcc-x86-64-linux-gnu", libc: "libc6-dev-amd64-cross", goarch: "amd64"},
	ARM64: {triple: "aarch64-unknown-linux-gnu", deb: "arm64", gnu: "aarch64-linux-gnu", gcc: "gcc-aarch64-linux-gnu", libc: "libc6-dev-arm64-cross", goarch: "arm64"},
}

// buildRust is Rust's builder: the Cargo package pkg built with Debian's cargo-web, offline,
// in release mode, for arch, with one Cargo feature per tag, as taskRoot/bootstrap. CARGO_HOME
// and the target folder are in the machine's shared cache, named by the function's source, and
// cargo builds a copy of that source kept there (sourceCopy); the build sees only what it is
// given (PATH /usr/bin:/bin, Debian's rustc, no RUSTFLAGS of the caller's), so that the binary
// depends on the source, Debian's packages, the architecture and the tags only. A build for the other architecture than this
// machine's cross-compiles with Debian's multiarch standard library and cross gcc, and says
// which Debian packages it lacks where they are not installed.
func buildRust(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	if err := tagsKnown(Rust, tags, rustFeatures...); err != nil {
		return err
	}
	ra, ok := rustArches[arch]
	if !ok {
		return fmt.Errorf("rust: no target for architecture %q", arch)
	}
	cross := ra.goarch != runtime.GOARCH
	if missing := rustMissing(ra, cross); len(missing) > 0 {
		return fmt.Errorf("%s Rust: needs Debian's %s; not installed (%s)", arch, strings.Join(missing, " and "), rustInstallHint(missing))
	}

	// The target folder is shared by every checkout (sharedCache), named by the function's
	// source, so that a fresh clone does not compile ring and rustls again; cargo's own
	// fingerprints decide what to rebuild within it.
	src := filepath.Join(root, filepath.FromSlash(pkg))
	notSource := func(rel string) bool { return rel == "target" || rel == "Cargo.lock" }
	digest, err := dirDigest(src, notSource)
	if err != nil {
		return err
	}
	name := filepath.Base(src) + "-" + digest
	targetDir, err := sharedCache("cargo-target", name)
	if err != nil {
		return err
	}
	// cargo builds a copy of the source kept in the shared cache under the same name: a fresh
	// clone's files are newer than the target folder's artifacts, which cargo would take for a
	// change and compile the function again, for every feature and architecture; the copy's
	// files keep the time they were first copied.
	buildDir, err := sourceCopy(src, name, notSource)
	if err != nil {
		return err
	}
	args := []string{"build", "--release", "--offline", "--target", ra.triple}
	if len(tags) > 0 {
		args = append(args, "--features", strings.Join(tags, ","))
	}
	built := filepath.Join(targetDir, ra.triple, "release", "bootstrap")
	out := filepath.Join(taskRoot, "bootstrap")
	cmd := exec.Command(rustCargo, args...)
	cmd.Dir = buildDir
	cmd.Env = rustEnv(ra, cross, map[string]string{
		"CARGO_HOME":       filepath.Join(targetDir, "cargo-home"),
		"CARGO_TARGET_DIR": targetDir,
	})
	// cargo's build, then the copy of its binary, under one lock on the shared folder: a build
	// of other features, from any checkout, would otherwise overwrite the binary before it is
	// copied.
	err = withLock(filepath.Join(targetDir, ".claims-build-"+string(arch)+".lock"), func() error {
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s (in %s): %w\n%s", rustCargo, strings.Join(args, " "), pkg, err, msg)
		}
		return copyFile(built, out)
	})
	if err != nil {
		return err
	}
	return os.Chmod(out, 0o755)
}

// sourceCopy is a copy of the source folder src, but what notSource leaves out, in the shared
// cache as cargo-src/name (name digests the source), made once and renamed into place whole.
func sourceCopy(src, name string, notSource func(rel string) bool) (string, error) {
	parent, err := sharedCache("cargo-src")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, name)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		if notSource(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		return copyFile(path, filepath.Join(tmp, rel))
	})
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			return "", err
		}
		// Another build placed the same source first: keep it.
	}
	return dir, nil
}

// rustEnv is the build's environment: PATH and HOME, TMPDIR if set, Debian's rustc, and for a
// cross build the cross gcc as the linker and as ring's C compiler; then more. Nothing else of
// the caller's reaches cargo: no RUSTFLAGS, CARGO_* or CC that would change the binary. The
// repository's path reaches no binary without remapping it (a release build has no debug
// information, and cargo names a package's own files relative to it), so that checkouts in
// other folders share one target folder.
func rustEnv(ra rustArch, cross bool, more map[string]string) []string {
	env := []string{
		"PATH=/usr/bin:/bin",
		"HOME=" + os.Getenv("HOME"),
		"RUSTC=" + rustRustc,
	}
	if t := os.Getenv("TMPDIR"); t != "" {
		env = append(env, "TMPDIR="+t)
	}
	if cross {
		under := strings.ReplaceAll(ra.triple, "-", "_")
		gcc := "/usr/bin/" + ra.gnu + "-gcc"
		env = append(env,
			"CARGO_TARGET_"+strings.ToUpper(under)+"_LINKER="+gcc,
			"CC_"+under+"="+gcc,
			"AR_"+under+"=/usr/bin/"+ra.gnu+"-ar",
		)
	}
	for k, v := range more {
		env = append(env, k+"="+v)
	}
	return env
}

// rustMissing are the Debian packages building for ra lacks: the toolchain, the crates, and for
// a cross build the target's standard library and the cross gcc.
func rustMissing(ra rustArch, cross bool) []string {
	var missing []string
	for _, tool := range []struct{ path, pkg string }{{rustRustc, "rustc-web"}, {rustCargo, "cargo-web"}} {
		if _, err := os.Stat(tool.path); err != nil {
			missing = append(missing, tool.pkg)
		}
	}
	for _, crate := range sortedKeys(rustCrates) {
		if m, _ := filepath.Glob(filepath.Join(rustDebianRegistry, crate+"-[0-9]*")); len(m) == 0 {
			missing = append(missing, rustCrates[crate])
		}
	}
	if cross {
		if m, _ := filepath.Glob(filepath.Join("/usr/lib/rustlib", ra.triple, "lib", "libstd-*.rlib")); len(m) == 0 {
			missing = append(missing, "libstd-rust-web-dev:"+ra.deb)
		}
		if _, err := os.Stat("/usr/bin/" + ra.gnu + "-gcc"); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, ra.gcc)
		}
		// ring's C includes the C library's headers, and the linker wants its crt objects.
		if _, err := os.Stat(filepath.Join("/usr", ra.gnu, "include", "stdio.h")); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, ra.libc)
		}
	}
	return missing
}

// rustInstallHint says how to install missing, a foreign architecture's packages included.
func rustInstallHint(missing []string) string {
	hint := "apt-get install " + strings.Join(missing, " ")
	for _, p := range missing {
		if _, deb, ok := strings.Cut(p, ":"); ok {
			return "dpkg --add-architecture " + deb + "; apt-get update; " + hint
		}
	}
	return hint
}

// sortedKeys are m's keys in order, so that errors list them alike every time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
