package lambdazip

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/provision"
)

// PythonDebianPackages are the Debian packages whose modules a Python function's bundle vendors
// (pythonVendored), Debian's Python with them, as provisioning installs them.
var PythonDebianPackages = provision.PythonPackages

// pythonDistPackages is where Debian's python3-* packages put their modules.
var pythonDistPackages = "/usr/lib/python3/dist-packages"

// pythonVendored are the entries of pythonDistPackages a Python function's bundle holds, each
// with the Debian package it comes from: boto3 and every module boto3 and a DynamoDB client's
// calls import from dist-packages (python_test.go finds them again by importing boto3 in an
// isolated interpreter). Debian's botocore imports requests (its botocore.vendored is replaced
// by the system's modules), and requests brings certifi, idna, chardet and charset_normalizer;
// s3transfer is boto3's dependency, imported for S3 only, vendored so that boto3 is whole.
var pythonVendored = []struct{ entry, pkg string }{
	{"boto3", "python3-boto3"},
	{"botocore", "python3-botocore"},
	{"s3transfer", "python3-s3transfer"},
	{"jmespath", "python3-jmespath"},
	{"dateutil", "python3-dateutil"},
	{"six.py", "python3-six"},
	{"urllib3", "python3-urllib3"},
	{"requests", "python3-requests"},
	{"certifi", "python3-certifi"},
	{"idna", "python3-idna"},
	{"chardet", "python3-chardet"},
	{"charset_normalizer", "python3-charset-normalizer"},
}

// PythonRecord is the file, in a Python function's bundle, that records the distribution its
// vendored modules came from and each Debian package's version as the distribution packages it
// (PythonVendoredRecord): the function's answer names boto3's in its stack (handler.py), where
// upstream's __version__ alone would not tell one distribution's build from another's.
const PythonRecord = "vendored.json"

// PythonVendoredRecord is PythonRecord's content.
type PythonVendoredRecord struct {
	// Distribution is the build machine's os-release PRETTY_NAME, as "Debian GNU/Linux 12
	// (bookworm)".
	Distribution string `json:"distribution"`
	// Packages is each vendored Debian package's version, as dpkg names it ("1.26.27+dfsg-1").
	Packages map[string]string `json:"packages"`
}

// osRelease is the file that names the build machine's distribution.
var osRelease = "/etc/os-release"

// pythonOptional are the modules of dist-packages that boto3 imports when they are there but
// does without, which the bundle leaves out: botocore.httpsession tries urllib3.contrib.pyopenssl
// (pyOpenSSL, cryptography and cffi's backend) only to reach urllib3's original SSLContext,
// which it takes from urllib3.util.ssl_ when the import fails, the same class when nothing
// injected pyOpenSSL. They are native code built for Debian's glibc and OpenSSL on this
// machine's architecture, which Lambda's python3.11 (Amazon Linux 2) could not load anyway.
var pythonOptional = []string{"OpenSSL", "cryptography", "_cffi_backend"}

// pythonSkipped are files of the vendored entries the bundle leaves out, slash-separated from
// dist-packages: Debian's certifi.where() returns the system's bundle
// (/etc/ssl/certs/ca-certificates.crt), never its own cacert.pem. botocore's cacert.pem, its
// bundle when certifi cannot be imported, stays with botocore.
var pythonSkipped = []string{"certifi/cacert.pem"}

// pythonBrokenDir is the folder of a Python function's broken builds: broken/<tag>/ holds the
// modules that replace the function's own of the same name in that build.
const pythonBrokenDir = "broken"

// buildPython is Python's builder: the function's modules (the .py files of its folder) with the
// broken build's replacements (broken/<tag>/*.py) and Debian's boto3 vendored
// (pythonVendored), into taskRoot, without __pycache__: what Lambda's python3.11 runtime imports
// handler.handler from. The bundle is pure Python, the same for both architectures, and depends
// on the function's files and the Debian packages' files only.
func buildPython(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	dir := filepath.Join(root, filepath.FromSlash(pkg))
	known, err := pythonBrokenBuilds(dir)
	if err != nil {
		return err
	}
	if err := tagsKnown(Python, tags, known...); err != nil {
		return err
	}
	own, err := filepath.Glob(filepath.Join(dir, "*.py"))
	if err != nil {
		return err
	}
	if len(own) == 0 {
		return fmt.Errorf("%s: no .py file", pkg)
	}
	for _, f := range own {
		if err := copyFile(f, filepath.Join(taskRoot, filepath.Base(f))); err != nil {
			return err
		}
	}
	replacedBy := map[string]string{}
	for _, tag := range tags {
		repl, err := filepath.Glob(filepath.Join(dir, pythonBrokenDir, tag, "*.py"))
		if err != nil {
			return err
		}
		if len(repl) == 0 {
			return fmt.Errorf("%s: build tag %q: no module in %s/%s", pkg, tag, pythonBrokenDir, tag)
		}
		for _, f := range repl {
			name := filepath.Base(f)
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("%s: build tag %q: %s/%s/%s replaces no module of the function", pkg, tag, pythonBrokenDir, tag, name)
			}
			if other, ok := replacedBy[name]; ok {
				return fmt.Errorf("%s: build tags %q and %q both replace %s", pkg, other, tag, name)
			}
			replacedBy[name] = tag
			if err := copyFile(f, filepath.Join(taskRoot, name)); err != nil {
				return err
			}
		}
	}
	for _, v := range pythonVendored {
		if _, err := os.Stat(filepath.Join(taskRoot, v.entry)); err == nil {
			return fmt.Errorf("%s: the function's %s would be hidden by %s's", pkg, v.entry, v.pkg)
		}
	}
	if _, err := os.Stat(filepath.Join(taskRoot, PythonRecord)); err == nil {
		return fmt.Errorf("%s: the function's %s would be replaced by the bundle's record of what it vendors", pkg, PythonRecord)
	}
	if err := vendorPython(taskRoot); err != nil {
		return err
	}
	return recordPythonVendored(taskRoot)
}

// recordPythonVendored writes PythonRecord into taskRoot: the distribution, from osRelease, and
// the version dpkg holds installed of each package of pythonVendored.
func recordPythonVendored(taskRoot string) error {
	rec := PythonVendoredRecord{Packages: map[string]string{}}
	release, err := os.ReadFile(osRelease)
	if err != nil {
		return fmt.Errorf("naming the distribution the Python function's packages come from: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(release))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			rec.Distribution = strings.Trim(v, `"'`)
		}
	}
	if rec.Distribution == "" {
		return fmt.Errorf("%s names no PRETTY_NAME: the Python function's record needs the distribution", osRelease)
	}
	var pkgs []string
	for _, v := range pythonVendored {
		if !slices.Contains(pkgs, v.pkg) {
			pkgs = append(pkgs, v.pkg)
		}
	}
	out, err := exec.Command("dpkg-query", append([]string{"-W", "-f", "${Package} ${Version}\n"}, pkgs...)...).Output()
	if err != nil {
		return fmt.Errorf("dpkg-query -W %s: %w (the Python function vendors Debian's packages, and records their versions)", strings.Join(pkgs, " "), err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, version, ok := strings.Cut(line, " "); ok && version != "" {
			rec.Packages[strings.Split(name, ":")[0]] = version
		}
	}
	for _, p := range pkgs {
		if rec.Packages[p] == "" {
			return fmt.Errorf("dpkg holds no version of %s: install Debian's %s (apt-get install %s)", p, p, p)
		}
	}
	b, err := json.MarshalIndent(rec, "", "  ") // map keys sorted: the same packages, the same bytes
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(taskRoot, PythonRecord), append(b, '\n'), 0o644)
}

// pythonBrokenBuilds are the broken builds a Python function in dir knows: the folders of its
// broken/.
func pythonBrokenBuilds(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, pythonBrokenDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var known []string
	for _, e := range entries {
		if e.IsDir() {
			known = append(known, e.Name())
		}
	}
	return known, nil
}

// vendorPython copies pythonVendored from pythonDistPackages into taskRoot, naming the Debian
// package of an entry that is missing.
func vendorPython(taskRoot string) error {
	for _, v := range pythonVendored {
		src := filepath.Join(pythonDistPackages, v.entry)
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("%s is missing (%v): install Debian's %s (apt-get install %s)", src, err, v.pkg, v.pkg)
		}
		if err := pythonCopyTree(src, filepath.Join(taskRoot, v.entry), v.entry); err != nil {
			return fmt.Errorf("vendoring %s from %s: %w", v.entry, v.pkg, err)
		}
	}
	return nil
}

// pythonCopyTree copies src (a file or a folder) to dst, following symbolic links so that the
// bundle holds their targets' bytes, and leaving out __pycache__ folders, .pyc files and
// pythonSkipped; rel is src's path from dist-packages, slash-separated.
func pythonCopyTree(src, dst, rel string) error {
	if slices.Contains(pythonSkipped, rel) {
		return nil
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	switch {
	case info.IsDir():
		if filepath.Base(src) == "__pycache__" {
			return nil
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := pythonCopyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), rel+"/"+e.Name()); err != nil {
				return err
			}
		}
		return nil
	case info.Mode().IsRegular():
		if strings.HasSuffix(src, ".pyc") {
			return nil
		}
		return copyFile(src, dst)
	}
	return fmt.Errorf("%s: %v; want regular files and folders", src, info.Mode().Type())
}
