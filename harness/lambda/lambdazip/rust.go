package lambdazip

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/provision"
)

// RustPackages are the distribution's packages a Rust function (functions/getitem-rust) is
// built with on this machine, as provisioning installs them (provision.RustPackages): its own
// Rust toolchain, the other architecture's cross gcc, and Debian's archive keyring, with which
// apt checks the crates fetched for the function's Cargo.lock (rustdeb.go). There is no AWS SDK
// for Rust among the crates: the function signs its DynamoDB calls itself and sends them through
// hyper on tokio, as the SDK does.
var RustPackages = provision.RustPackages

// The distribution's Rust toolchain, by absolute path, preferred to one on PATH: a machine
// provisioned with RustPackages builds with it even where a rustup toolchain comes first on PATH.
const (
	rustCargo = "/usr/bin/cargo"
	rustRustc = "/usr/bin/rustc"
)

// rustToolchain is the rustc and cargo that build the function, and the Debian package and
// version of that rustc ("" for a toolchain no package installed, as rustup's).
type rustToolchain struct {
	cargo, rustc string
	pkg, version string
}

// findRustToolchain is this machine's Rust toolchain: the distribution's (rustRustc and
// rustCargo) where installed, else the rustc and cargo on PATH (a rustup toolchain).
func findRustToolchain() (rustToolchain, error) {
	tc := rustToolchain{cargo: rustCargo, rustc: rustRustc}
	_, errCargo := os.Stat(rustCargo)
	_, errRustc := os.Stat(rustRustc)
	if errCargo == nil && errRustc == nil {
		if out, err := exec.Command("dpkg-query", "-S", rustRustc).Output(); err == nil {
			// "rustc-web: /usr/bin/rustc"
			tc.pkg, _, _ = strings.Cut(strings.TrimSpace(string(out)), ":")
			if v, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", tc.pkg).Output(); err == nil {
				tc.version = strings.TrimSpace(string(v))
			}
		}
		return tc, nil
	}
	cargo, err1 := exec.LookPath("cargo")
	rustc, err2 := exec.LookPath("rustc")
	if err1 != nil || err2 != nil {
		return tc, fmt.Errorf("rust: no Rust toolchain: neither %s and %s nor cargo and rustc on PATH (apt-get install %s, or rustup)", rustCargo, rustRustc, strings.Join(RustPackages[:2], " "))
	}
	return rustToolchain{cargo: cargo, rustc: rustc}, nil
}

// sysroot is the toolchain's sysroot (rustc --print sysroot).
func (tc rustToolchain) sysroot() (string, error) {
	out, err := exec.Command(tc.rustc, "--print", "sysroot").Output()
	if err != nil {
		return "", fmt.Errorf("rust: %s --print sysroot: %w", tc.rustc, err)
	}
	return strings.TrimSpace(string(out)), nil
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

// buildRust is Rust's builder: the Cargo package pkg built with this machine's Rust toolchain
// (findRustToolchain), offline, in release mode, for arch, with one Cargo feature per tag, as
// taskRoot/bootstrap, against exactly the crates its Cargo.lock names (--locked), each Debian
// 13's, from a vendor folder in the machine's shared cache (rustVendor) that replaces Cargo's
// default registry. CARGO_HOME and the target folder are in the shared cache, named by the
// function's source, and cargo builds a copy of that source kept there (sourceCopy); the build
// sees only what it is given (PATH, the toolchain, no RUSTFLAGS of the caller's), so that the
// binary depends on the source, the crates, the toolchain, the architecture and the tags only.
// A build for the other architecture than this machine's cross-compiles with the cross gcc and
// the target's standard library for this rustc: the toolchain's own where it has one, else, for
// a Debian-packaged rustc, its package's arm64 or amd64 standard library fetched into the shared
// cache (rustTargetStd), no foreign architecture added to the machine. What it lacks is named
// before cargo runs.
func buildRust(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	if err := tagsKnown(Rust, tags, rustFeatures...); err != nil {
		return err
	}
	ra, ok := rustArches[arch]
	if !ok {
		return fmt.Errorf("rust: no target for architecture %q", arch)
	}
	tc, err := findRustToolchain()
	if err != nil {
		return fmt.Errorf("%s Rust: %w", arch, err)
	}
	cross := ra.goarch != runtime.GOARCH
	if missing := rustMissing(tc, ra, cross); len(missing) > 0 {
		return fmt.Errorf("%s Rust: this machine lacks %s", arch, strings.Join(missing, "; "))
	}
	src := filepath.Join(root, filepath.FromSlash(pkg))
	vendor, err := rustVendor(filepath.Join(src, "Cargo.lock"))
	if err != nil {
		return fmt.Errorf("%s Rust: %w", arch, err)
	}
	var targetSysroot string
	if cross && !tc.hasStd(ra.triple) {
		if targetSysroot, err = rustTargetStd(tc.pkg, tc.version, ra.triple, ra.deb); err != nil {
			return fmt.Errorf("%s Rust: %w", arch, err)
		}
	}

	buildDir, targetDir, err := rustFolders(src)
	if err != nil {
		return err
	}
	args := append([]string{"build", "--release", "--offline", "--locked", "--target", ra.triple}, vendoredCrates(vendor)...)
	if len(tags) > 0 {
		args = append(args, "--features", strings.Join(tags, ","))
	}
	built := filepath.Join(targetDir, ra.triple, "release", "bootstrap")
	out := filepath.Join(taskRoot, "bootstrap")
	cmd := exec.Command(tc.cargo, args...)
	cmd.Dir = buildDir
	more := map[string]string{
		"CARGO_HOME":       filepath.Join(targetDir, "cargo-home"),
		"CARGO_TARGET_DIR": targetDir,
	}
	if targetSysroot != "" {
		// The target's rustflags reach the function and its crates, not the build scripts and
		// proc macros, which cargo builds for this machine with the toolchain's own library.
		more["CARGO_TARGET_"+strings.ToUpper(strings.ReplaceAll(ra.triple, "-", "_"))+"_RUSTFLAGS"] = "--sysroot=" + targetSysroot
	}
	cmd.Env = rustEnv(tc, ra, cross, more)
	// cargo's build, then the copy of its binary, under one lock on the shared folder: a build
	// of other features, from any checkout, would otherwise overwrite the binary before it is
	// copied.
	err = withLock(filepath.Join(targetDir, ".claims-build-"+string(arch)+".lock"), func() error {
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s (in %s): %w\n%s", tc.cargo, strings.Join(args, " "), pkg, err, msg)
		}
		return copyFile(built, out)
	})
	if err != nil {
		return err
	}
	return os.Chmod(out, 0o755)
}

// rustFolders are where cargo works for the function whose source is src: a copy of the source
// (sourceCopy) and the target folder, both in the shared cache and named by the source's digest.
// The target folder is shared by every checkout, so that a fresh clone does not compile ring and
// rustls again; cargo's own fingerprints decide what to rebuild within it (a change of rustc
// among them). cargo builds the copy: a fresh clone's files are newer than the target folder's
// artifacts, which cargo would take for a change and compile the function again, for every
// feature and architecture; the copy's files keep the time they were first copied.
func rustFolders(src string) (buildDir, targetDir string, err error) {
	notSource := func(rel string) bool { return rel == "target" }
	digest, err := dirDigest(src, notSource)
	if err != nil {
		return "", "", err
	}
	name := filepath.Base(src) + "-" + digest
	if targetDir, err = sharedCache("cargo-target", name); err != nil {
		return "", "", err
	}
	buildDir, err = sourceCopy(src, name, notSource)
	return buildDir, targetDir, err
}

// vendoredCrates are cargo's flags that replace its default registry with the vendor folder.
func vendoredCrates(vendor string) []string {
	return []string{"--config", `source.crates-io.replace-with="claims-debian"`,
		"--config", fmt.Sprintf("source.claims-debian.directory=%q", vendor)}
}

// RustCargo runs cargo's command args (test, clippy, fmt --check: the function's own checks) on
// the Rust function at pkg, repository-relative under root, as buildRust builds it: with this
// machine's Rust toolchain, offline, against the vendored crates of its Cargo.lock, in the shared
// cache's copy of its source and its target folder, for this machine's architecture. It returns
// cargo's output; an error names the command and holds the output.
func RustCargo(ctx context.Context, root, pkg string, args ...string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("rust: RustCargo without a cargo command")
	}
	tc, err := findRustToolchain()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(root, filepath.FromSlash(pkg))
	vendor, err := rustVendor(filepath.Join(src, "Cargo.lock"))
	if err != nil {
		return nil, err
	}
	buildDir, targetDir, err := rustFolders(src)
	if err != nil {
		return nil, err
	}
	full := args
	if args[0] != "fmt" { // rustfmt reads no crate, and cargo fmt takes no --config
		full = append(append([]string{args[0]}, vendoredCrates(vendor)...), args[1:]...)
	}
	cmd := exec.CommandContext(ctx, tc.cargo, full...)
	cmd.Dir = buildDir
	// A native build: rustEnv reads no architecture.
	cmd.Env = rustEnv(tc, rustArch{}, false, map[string]string{
		"CARGO_HOME":       filepath.Join(targetDir, "cargo-home"),
		"CARGO_TARGET_DIR": targetDir,
	})
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s (in %s): %w", tc.cargo, strings.Join(args, " "), pkg, err)
	}
	return out, nil
}

// hasStd says whether the toolchain's own sysroot holds the standard library for triple.
func (tc rustToolchain) hasStd(triple string) bool {
	sysroot, err := tc.sysroot()
	if err != nil {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(sysroot, "lib", "rustlib", triple, "lib", "libstd-*.rlib"))
	return len(m) > 0
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

// rustEnv is the build's environment: PATH (the toolchain's folder, then /usr/bin and /bin) and
// HOME, rustup's settings where the caller has them, TMPDIR if set, the toolchain's rustc, and
// for a cross build the cross gcc as the linker and as ring's C compiler; then more. Nothing else
// of the caller's reaches cargo: no RUSTFLAGS, CARGO_* or CC that would change the binary. The
// repository's path reaches no binary (a release build has no debug information, and cargo
// names a package's own files relative to it), so that checkouts in other folders share one
// target folder.
func rustEnv(tc rustToolchain, ra rustArch, cross bool, more map[string]string) []string {
	env := []string{
		"PATH=" + filepath.Dir(tc.cargo) + ":/usr/bin:/bin",
		"HOME=" + os.Getenv("HOME"),
		"RUSTC=" + tc.rustc,
	}
	for _, k := range []string{"TMPDIR", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
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

// rustMissing is what building for ra with tc lacks on this machine, each with how to install
// it: for a cross build the cross gcc and its C library, and the target's standard library
// where the toolchain has none and no package of it can be fetched (a toolchain no Debian
// package installed).
func rustMissing(tc rustToolchain, ra rustArch, cross bool) []string {
	if !cross {
		return nil
	}
	var missing, pkgs []string
	if !tc.hasStd(ra.triple) && tc.pkg == "" {
		missing = append(missing, fmt.Sprintf("the %s standard library for %s (rustup target add %s)", ra.triple, tc.rustc, ra.triple))
	}
	if _, err := os.Stat("/usr/bin/" + ra.gnu + "-gcc"); errors.Is(err, fs.ErrNotExist) {
		pkgs = append(pkgs, ra.gcc)
	}
	// ring's C includes the C library's headers, and the linker wants its crt objects.
	if _, err := os.Stat(filepath.Join("/usr", ra.gnu, "include", "stdio.h")); errors.Is(err, fs.ErrNotExist) {
		pkgs = append(pkgs, ra.libc)
	}
	if len(pkgs) > 0 {
		missing = append(missing, fmt.Sprintf("%s (apt-get install %s, or make setup)", strings.Join(pkgs, " and "), strings.Join(pkgs, " ")))
	}
	return missing
}

// CanBuild says why this machine cannot build a function in language l for arch, without
// building it, or nil, so that a live run says so before it makes anything on AWS. Rust's is the
// one build whose prerequisites depend on the architecture (the toolchain, the cross gcc, the
// target's standard library); the others' are the packages provisioning checks for every
// architecture alike (provision.Check). With provision.PrebuiltEnv set, no function but Go's is
// built here (Build): the folder must hold the architecture's zips.
func CanBuild(l Language, arch Arch) error {
	if dir := os.Getenv(provision.PrebuiltEnv); dir != "" && l != Go {
		// Build takes the zip from dir: what must be there is its architecture's folder.
		if _, err := os.Stat(filepath.Join(dir, string(arch))); err != nil {
			return fmt.Errorf("%s is set, and holds no zips for %s: %w (make package builds them)", provision.PrebuiltEnv, arch, err)
		}
		return nil
	}
	if l != Rust {
		return nil
	}
	ra, ok := rustArches[arch]
	if !ok {
		return fmt.Errorf("rust: no target for architecture %q", arch)
	}
	tc, err := findRustToolchain()
	if err != nil {
		return err
	}
	if missing := rustMissing(tc, ra, ra.goarch != runtime.GOARCH); len(missing) > 0 {
		return fmt.Errorf("%s Rust: this machine lacks %s", arch, strings.Join(missing, "; "))
	}
	return nil
}
