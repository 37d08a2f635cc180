package lambdazip

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// The Rust function's crates come from Debian's archive, as Debian 13 packages them
// (librust-*-dev, each crate's source as a directory registry entry): the versions its
// Cargo.lock names, the same on every machine whatever its distribution packages, fetched by apt
// with an apt configuration of this package's own (never the machine's sources) and checked by
// apt against the archive's signatures.
const (
	// rustCrateSuite is the Debian suite whose crates Cargo.lock names.
	rustCrateSuite = "trixie"
	// debianKeyring is the archive's keyring (package debian-archive-keyring), the only key
	// apt accepts the suite's index from.
	debianKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
	// debianArchiveEnv, when set, is the URL of the Debian archive to fetch from, instead of the
	// one among this machine's apt sources.
	debianArchiveEnv = "CLAIMS_DEBIAN_ARCHIVE"
)

// lockedCrate is a package of Cargo.lock from a registry.
type lockedCrate struct{ name, version string }

// lockedCrates are the registry packages Cargo.lock's text names, in its order.
func lockedCrates(lock []byte) ([]lockedCrate, error) {
	var crates []lockedCrate
	var cur lockedCrate
	var registry bool
	flush := func() {
		if cur.name != "" && registry {
			crates = append(crates, cur)
		}
		cur, registry = lockedCrate{}, false
	}
	sc := bufio.NewScanner(bytes.NewReader(lock))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "[[package]]":
			flush()
		case strings.HasPrefix(line, "name = "):
			cur.name = strings.Trim(strings.TrimPrefix(line, "name = "), `"`)
		case strings.HasPrefix(line, "version = "):
			cur.version = strings.Trim(strings.TrimPrefix(line, "version = "), `"`)
		case strings.HasPrefix(line, "source = "):
			registry = strings.HasPrefix(strings.Trim(strings.TrimPrefix(line, "source = "), `"`), "registry+")
		}
	}
	flush()
	if len(crates) == 0 {
		return nil, errors.New("Cargo.lock names no crate from a registry")
	}
	return crates, sc.Err()
}

// debPackage is the name of the virtual package by which a Debian librust-*-dev package provides
// crate c at exactly its version.
func (c lockedCrate) debPackage() string {
	return "librust-" + strings.ReplaceAll(strings.ToLower(c.name), "_", "-") + "-" + c.version + "-dev"
}

// rustVendor is a cargo directory source holding exactly the crates of the Cargo.lock at lock,
// each Debian's, in the shared cache under a name digesting the lockfile's crates: fetched once,
// placed whole, then used offline by every checkout.
func rustVendor(lock string) (string, error) {
	text, err := os.ReadFile(lock)
	if err != nil {
		return "", fmt.Errorf("rust: the function's lockfile: %w", err)
	}
	crates, err := lockedCrates(text)
	if err != nil {
		return "", fmt.Errorf("rust: %s: %w", lock, err)
	}
	h := sha256.New()
	for _, c := range crates {
		fmt.Fprintf(h, "%s %s\n", c.name, c.version)
	}
	parent, err := sharedCache("cargo-vendor")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, rustCrateSuite+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	err = withLock(filepath.Join(parent, ".fetch.lock"), func() error {
		if _, err := os.Stat(dir); err == nil {
			return nil // another build fetched it meanwhile
		}
		return fetchCrates(crates, dir)
	})
	return dir, err
}

// fetchCrates downloads the Debian packages providing crates from the crate suite, unpacks them
// and moves each crate's folder into a new vendor folder dir.
func fetchCrates(crates []lockedCrate, dir string) error {
	apt, err := newPrivateApt(rustCrateSuite, "main", hostDebArch())
	if err != nil {
		return err
	}
	virtual := make([]string, len(crates))
	for i, c := range crates {
		virtual[i] = c.debPackage()
	}
	providers, err := apt.providers(virtual)
	if err != nil {
		return err
	}
	var pkgs, unknown []string
	for i, c := range crates {
		p, ok := providers[virtual[i]]
		if !ok {
			unknown = append(unknown, c.name+" "+c.version)
			continue
		}
		pkgs = append(pkgs, p)
	}
	if len(unknown) > 0 {
		return fmt.Errorf("rust: Cargo.lock names crates Debian %s does not package at those versions: %s", rustCrateSuite, strings.Join(unknown, ", "))
	}
	slices.Sort(pkgs)
	pkgs = slices.Compact(pkgs)
	unpacked, err := apt.downloadAndUnpack(pkgs)
	if err != nil {
		return err
	}
	defer os.RemoveAll(unpacked)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	registry := filepath.Join(unpacked, "usr", "share", "cargo", "registry")
	for _, c := range crates {
		name := c.name + "-" + c.version
		if _, err := os.Stat(filepath.Join(registry, name, ".cargo-checksum.json")); err != nil {
			return fmt.Errorf("rust: Debian's package of %s %s holds no %s/.cargo-checksum.json: %w", c.name, c.version, name, err)
		}
		if err := os.Rename(filepath.Join(registry, name), filepath.Join(tmp, name)); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dir)
}

// rustTargetStd is a sysroot holding the Rust standard library for target triple deb
// architecture deb of this machine's Debian-packaged rustc (rustcPkg at version), fetched from
// the archive this machine's apt got rustc from, in the shared cache.
func rustTargetStd(rustcPkg, version, triple, deb string) (string, error) {
	stdPkg := map[string]string{"rustc": "libstd-rust-dev", "rustc-web": "libstd-rust-web-dev"}[rustcPkg]
	if stdPkg == "" {
		return "", fmt.Errorf("rust: no standard library package known for Debian's %s", rustcPkg)
	}
	parent, err := sharedCache("rust-sysroot")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, stdPkg+"_"+strings.ReplaceAll(version, ":", "%3a")+"_"+deb)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	err = withLock(filepath.Join(parent, ".fetch.lock"), func() error {
		if _, err := os.Stat(dir); err == nil {
			return nil
		}
		uri, suite, component, err := aptOrigin(stdPkg, version)
		if err != nil {
			return err
		}
		apt, err := newPrivateAptAt(uri, suite, component, deb)
		if err != nil {
			return err
		}
		unpacked, err := apt.downloadAndUnpack([]string{stdPkg + ":" + deb + "=" + version})
		if err != nil {
			return err
		}
		defer os.RemoveAll(unpacked)
		lib := filepath.Join(unpacked, "usr", "lib", "rustlib", triple, "lib")
		if m, _ := filepath.Glob(filepath.Join(lib, "libstd-*.rlib")); len(m) == 0 {
			return fmt.Errorf("rust: %s:%s %s holds no %s standard library", stdPkg, deb, version, triple)
		}
		tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := os.MkdirAll(filepath.Join(tmp, "lib", "rustlib"), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(unpacked, "usr", "lib", "rustlib", triple), filepath.Join(tmp, "lib", "rustlib", triple)); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	})
	return dir, err
}

// aptOrigin is where this machine's apt finds pkg at version (apt-cache madison): the archive's
// URI, the suite and the component.
func aptOrigin(pkg, version string) (uri, suite, component string, err error) {
	out, err := exec.Command("apt-cache", "madison", pkg).Output()
	if err != nil {
		return "", "", "", fmt.Errorf("rust: apt-cache madison %s: %w", pkg, err)
	}
	uri, suite, component, ok := parseMadison(string(out), version)
	if !ok {
		return "", "", "", fmt.Errorf("rust: this machine's apt sources have no %s %s (apt-cache madison %s); its target standard library comes from the same archive", pkg, version, pkg)
	}
	return uri, suite, component, nil
}

// parseMadison reads apt-cache madison's output for the source of version: its archive's URI,
// suite and component.
func parseMadison(out, version string) (uri, suite, component string, ok bool) {
	for line := range strings.Lines(out) {
		f := strings.Split(line, "|")
		if len(f) != 3 || strings.TrimSpace(f[1]) != version {
			continue
		}
		// " URI suite/component arch Packages"
		where := strings.Fields(f[2])
		if len(where) < 2 {
			continue
		}
		if suite, component, ok := strings.Cut(where[1], "/"); ok {
			return where[0], suite, component, true
		}
	}
	return "", "", "", false
}

// privateApt is an apt configuration of this package's own, in the shared cache: one source,
// its lists, its downloads; the machine's apt configuration and dpkg database are not used.
type privateApt struct {
	dir  string // its root: apt.conf, sources.list, state/, cache/
	conf string // apt.conf, for APT_CONFIG
}

// newPrivateApt is an apt configuration for suite's component in the Debian archive of this
// machine's apt sources (or debianArchiveEnv), for architecture deb.
func newPrivateApt(suite, component, deb string) (*privateApt, error) {
	uri, err := debianArchive()
	if err != nil {
		return nil, err
	}
	return newPrivateAptAt(uri, suite, component, deb)
}

// newPrivateAptAt is an apt configuration for one source, uri suite component, for
// architecture deb, whose index apt accepts only when signed by a key of debianKeyring (or,
// on Ubuntu, Ubuntu's archive keyring), with its lists fresh from the archive.
func newPrivateAptAt(uri, suite, component, deb string) (*privateApt, error) {
	keyring := debianKeyring
	if provision.OSRelease("/etc/os-release")["ID"] == "ubuntu" && !strings.Contains(uri, "debian") {
		keyring = "/usr/share/keyrings/ubuntu-archive-keyring.gpg"
	}
	if _, err := os.Stat(keyring); err != nil {
		return nil, fmt.Errorf("rust: apt checks the archive's packages with %s, which is missing (apt-get install %s)", keyring, strings.TrimSuffix(filepath.Base(keyring), ".gpg"))
	}
	source := fmt.Sprintf("deb [signed-by=%s arch=%s] %s %s %s\n", keyring, deb, uri, suite, component)
	sum := sha256.Sum256([]byte(source))
	dir, err := sharedCache("apt", suite+"-"+deb+"-"+hex.EncodeToString(sum[:])[:12])
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"etc/apt.conf.d", "etc/preferences.d", "etc/sources.list.d", "etc/trusted.gpg.d", "state/lists/partial", "cache/archives/partial"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	conf := fmt.Sprintf(`Dir::Etc "%[1]s/etc";
Dir::Etc::sourcelist "%[1]s/etc/sources.list";
Dir::Etc::sourceparts "%[1]s/etc/sources.list.d";
Dir::Etc::parts "%[1]s/etc/apt.conf.d";
Dir::Etc::preferencesparts "%[1]s/etc/preferences.d";
Dir::Etc::trustedparts "%[1]s/etc/trusted.gpg.d";
Dir::State "%[1]s/state";
Dir::State::status "%[1]s/state/status";
Dir::Cache "%[1]s/cache";
APT::Architecture "%[2]s";
APT::Architectures { "%[2]s"; };
Acquire::Languages "none";
`, dir, deb)
	if os.Geteuid() == 0 {
		// apt would drop to _apt to download into folders only root may write.
		conf += "APT::Sandbox::User \"root\";\n"
	}
	files := map[string]string{"etc/sources.list": source, "apt.conf": conf, "state/status": ""}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	a := &privateApt{dir: dir, conf: filepath.Join(dir, "apt.conf")}
	if _, err := a.run("apt-get", "update"); err != nil {
		return nil, err
	}
	return a, nil
}

// run runs an apt command in this configuration and returns its standard output.
func (a *privateApt) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "APT_CONFIG="+a.conf, "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("rust: %s %s (APT_CONFIG=%s): %w\n%s", name, strings.Join(args, " "), a.conf, err, stderr.Bytes())
	}
	return out, nil
}

// providers maps each of the virtual packages to a real package=version that provides it; one
// that none provides is missing from the map.
func (a *privateApt) providers(virtual []string) (map[string]string, error) {
	out, err := a.run("apt-cache", append([]string{"showpkg"}, virtual...)...)
	if err != nil {
		return nil, err
	}
	return parseProviders(string(out)), nil
}

// parseProviders reads apt-cache showpkg's output: each package's first reverse provider, as
// package=version.
func parseProviders(out string) map[string]string {
	found := map[string]string{}
	var cur string
	var reverse bool
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "Package: "):
			cur, reverse = strings.TrimPrefix(line, "Package: "), false
		case strings.HasPrefix(line, "Reverse Provides:"):
			reverse = true
		case reverse && line != "":
			// "librust-cfg-if-dev 1.0.0-1+b2 (= 1.0.0-1+b2)"
			if f := strings.Fields(line); len(f) >= 2 {
				if _, ok := found[cur]; !ok {
					found[cur] = f[0] + "=" + f[1]
				}
			}
		}
	}
	return found
}

// downloadAndUnpack downloads pkgs (name[:arch]=version) with apt-get download, which checks
// each against the signed index, and unpacks them all into a new temporary folder it returns.
func (a *privateApt) downloadAndUnpack(pkgs []string) (string, error) {
	debs, err := os.MkdirTemp(a.dir, "debs.")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(debs)
	cmd := exec.Command("apt-get", append([]string{"download"}, pkgs...)...)
	cmd.Dir = debs
	cmd.Env = append(os.Environ(), "APT_CONFIG="+a.conf, "LC_ALL=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rust: apt-get download %s (APT_CONFIG=%s): %w\n%s", strings.Join(pkgs, " "), a.conf, err, out)
	}
	files, err := filepath.Glob(filepath.Join(debs, "*.deb"))
	if err != nil {
		return "", err
	}
	if len(files) != len(pkgs) {
		return "", fmt.Errorf("rust: apt-get download gave %d files for %d packages", len(files), len(pkgs))
	}
	unpacked, err := os.MkdirTemp(a.dir, "unpacked.")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if out, err := exec.Command("dpkg-deb", "-x", f, unpacked).CombinedOutput(); err != nil {
			os.RemoveAll(unpacked)
			return "", fmt.Errorf("rust: dpkg-deb -x %s: %w\n%s", filepath.Base(f), err, out)
		}
	}
	return unpacked, nil
}

// debianArchive is the URL of the Debian archive to fetch from: debianArchiveEnv's, else the
// first source among this machine's apt sources whose path ends in /debian.
func debianArchive() (string, error) {
	if u := os.Getenv(debianArchiveEnv); u != "" {
		return u, nil
	}
	var files []string
	for _, pattern := range []string{"/etc/apt/sources.list", "/etc/apt/sources.list.d/*.list", "/etc/apt/sources.list.d/*.sources"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return "", err
		}
		if u := debianURI(string(text)); u != "" {
			return u, nil
		}
	}
	return "", fmt.Errorf("rust: the function's crates come from Debian's archive (suite %s), and none of this machine's apt sources is one: set %s to a Debian archive's URL", rustCrateSuite, debianArchiveEnv)
}

// debianURI is the first URI in an apt sources file's text (one-line or deb822 format) whose
// path ends in /debian, or "".
func debianURI(text string) string {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		var uris []string
		switch {
		case len(f) >= 2 && f[0] == "deb":
			// deb [options] URI suite components
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "deb"))
			if strings.HasPrefix(rest, "[") {
				_, rest, _ = strings.Cut(rest, "]")
			}
			uris = strings.Fields(rest)[:min(1, len(strings.Fields(rest)))]
		case len(f) >= 2 && f[0] == "URIs:":
			uris = f[1:]
		}
		for _, u := range uris {
			if strings.HasSuffix(strings.TrimRight(u, "/"), "/debian") {
				return strings.TrimRight(u, "/")
			}
		}
	}
	return ""
}

// hostDebArch is Debian's name of this machine's architecture, as the crates are fetched for it
// (their sources are the same for every architecture).
func hostDebArch() string {
	for _, ra := range rustArches {
		if ra.goarch == runtime.GOARCH {
			return ra.deb
		}
	}
	return "amd64"
}
