// Package lambdazip builds a Lambda function of this repository as the zip Lambda takes: a Go or
// Rust function as the one executable named bootstrap that provided.al2023 runs, a Node.js or
// Python function as its handler's module with what it imports, for the managed runtime
// (language.go). The zip is byte-for-byte
// reproducible (same source, toolchain, architecture and tags give the same bytes), so that its
// SHA-256 names what was deployed and two runs can tell whether they ran the same code.
package lambdazip

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// Arch is a Lambda architecture, spelled as Lambda spells it: "arm64" or "x86_64".
type Arch string

// The architectures Lambda runs provided.al2023 on.
const (
	ARM64 Arch = "arm64"
	X8664 Arch = "x86_64"
)

// ParseArch reads an architecture as Lambda names it; "" is arm64, Lambda's cheaper one per
// GB-second. Anything else is refused, named in the error.
func ParseArch(s string) (Arch, error) {
	switch Arch(s) {
	case "":
		return ARM64, nil
	case ARM64, X8664:
		return Arch(s), nil
	}
	return "", fmt.Errorf("architecture %q: Lambda runs %q or %q", s, ARM64, X8664)
}

// GOARCH is the Go toolchain's name for the architecture (arm64, amd64).
func (a Arch) GOARCH() string {
	if a == X8664 {
		return "amd64"
	}
	return string(a)
}

// Package is a built function zip.
type Package struct {
	Path    string // the zip file
	SHA256  string // hex SHA-256 of the zip's bytes
	Size    int64  // the zip's size in bytes
	Arch    Arch
	Package string // the folder it was built from, repository-relative ("functions/getitem")
	// Language is the function's, and Runtime and Handler are what CreateFunction takes for it.
	Language Language
	Runtime  string
	Handler  string
	// Dir is the zip's content, unzipped: the task root a local platform runs the function
	// from ("" for BuildWeb's zips).
	Dir string
}

// Bytes reads the zip, as CreateFunction's Code.ZipFile takes it.
func (p Package) Bytes() ([]byte, error) { return os.ReadFile(p.Path) }

// zipTime is the modification time of the zip's entry: the zip format's earliest, so that the
// build time never reaches the bytes.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	buildMu sync.Mutex
	built   = map[string]Package{} // build description -> what it made
)

// Build builds the function in pkg (a repository folder, slash-separated, e.g.
// "functions/getitem") for Linux on arch with the given build tags, once per test binary per
// (pkg, arch, tags), into .cache/lambdazip: the zip, and beside it the same files unzipped
// (Package.Dir). Its language (LanguageOf) says how. A Go function is built with build.NoRPC,
// static (cgo off), with no paths of this machine (-trimpath), no VCS stamp and no build id, so
// that the zip depends on the source and toolchain only; the other languages' builders say what
// theirs depend on. With provision.PrebuiltEnv set, a function in another language than Go is
// not built but taken from the zips `make package` built there (prebuilt).
func Build(pkg string, arch Arch, tags ...string) (Package, error) {
	return buildPackage(pkg, arch, true, tags)
}

// Unzipped is Build without the zip: the function's files alone (Package.Dir; Path is ""), for
// a local platform, which runs them where they lie and would only pay for compressing them.
func Unzipped(pkg string, arch Arch, tags ...string) (Package, error) {
	return buildPackage(pkg, arch, false, tags)
}

// buildPackage is Build, with the zip or without it.
func buildPackage(pkg string, arch Arch, zipped bool, tags []string) (Package, error) {
	if arch != ARM64 && arch != X8664 {
		return Package{}, fmt.Errorf("building %s: architecture %q: Lambda runs %q or %q", pkg, arch, ARM64, X8664)
	}
	joined := strings.Join(tags, ",")
	return cached(fmt.Sprintf("%s|%s|%s|%t", pkg, arch, joined, zipped), func(root string) (Package, error) {
		l, err := LanguageOf(filepath.Join(root, filepath.FromSlash(pkg)))
		if err != nil {
			return Package{}, err
		}
		if dir := os.Getenv(provision.PrebuiltEnv); dir != "" && zipped && l != Go {
			p, err := prebuilt(dir, pkg, arch, tags)
			p.Language, p.Runtime, p.Handler = l, l.Runtime(), l.Handler()
			return p, err
		}
		if l == Go {
			// provided.al2023 only speaks the Runtime API: aws-lambda-go's go1.x RPC mode is
			// dead code.
			tags = build.WithNoRPC(tags)
		}
		name := strings.ReplaceAll(pkg, "/", "_") + "-" + string(arch)
		if joined != "" {
			name += "-" + strings.ReplaceAll(joined, ",", "-")
		}
		p, err := buildBundle(root, filepath.Join(root, ".cache", "lambdazip"), name, pkg, l, arch, tags, zipped)
		p.Language, p.Runtime, p.Handler = l, l.Runtime(), l.Handler()
		return p, err
	})
}

// prebuilt is the zip of pkg for arch that `make package` built into dir (provision.PrebuiltEnv):
// dir/<arch>/<last element of pkg>.zip, as cmd/package names it. make package builds no zip with
// build tags, so a function with tags is refused, as is a zip that is not there.
func prebuilt(dir, pkg string, arch Arch, tags []string) (Package, error) {
	if !filepath.IsAbs(dir) {
		return Package{}, fmt.Errorf("%s = %q: want an absolute path (each test binary runs in its own package's folder)", provision.PrebuiltEnv, dir)
	}
	if len(tags) > 0 {
		return Package{}, fmt.Errorf("%s is set: no prebuilt zip of %s with build tags %s (make package builds none)", provision.PrebuiltEnv, pkg, strings.Join(tags, ","))
	}
	file := filepath.Join(dir, string(arch), path.Base(pkg)+".zip")
	data, err := os.ReadFile(file)
	if err != nil {
		return Package{}, fmt.Errorf("%s is set: the prebuilt zip of %s for %s: %w (make package builds it)", provision.PrebuiltEnv, pkg, arch, err)
	}
	sum := sha256.Sum256(data)
	return Package{Path: file, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Arch: arch, Package: pkg}, nil
}

// buildGo is Go's builder: the main package pkg as taskRoot/bootstrap.
func buildGo(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	return goBuild(root, filepath.Join(taskRoot, "bootstrap"), pkg, arch, strings.Join(tags, ","))
}

// cached returns what make built for key in this process, or builds it now in the repository
// root and keeps it.
func cached(key string, make func(root string) (Package, error)) (Package, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[key]; ok {
		return p, nil
	}
	root, err := repo.Root()
	if err != nil {
		return Package{}, err
	}
	p, err := make(root)
	if err != nil {
		return Package{}, err
	}
	built[key] = p
	return p, nil
}

// place writes data to dir/file through tmp (a private name renamed into place, so that another
// test binary never reads half a zip) and describes it.
func place(tmp, dir, file string, data []byte, arch Arch, pkg string) (Package, error) {
	tmpZip := filepath.Join(tmp, file)
	if err := os.WriteFile(tmpZip, data, 0o644); err != nil {
		return Package{}, err
	}
	out := filepath.Join(dir, file)
	if err := os.Rename(tmpZip, out); err != nil {
		return Package{}, err
	}
	sum := sha256.Sum256(data)
	return Package{Path: out, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Arch: arch, Package: pkg}, nil
}

// goBuild builds the main package pkg (repository-relative) for Linux on arch into out, with
// build.Command: static (cgo off), no paths of this machine, no VCS stamp and no build id, so
// that the binary depends on the source and toolchain only.
func goBuild(root, out, pkg string, arch Arch, tags string) error {
	var tagList []string
	if tags != "" {
		tagList = strings.Split(tags, ",")
	}
	cmd := build.Command(out, pkg, arch.GOARCH(), tagList)
	cmd.Dir = root
	if msg, err := build.Run(arch.GOARCH(), cmd); err != nil {
		return fmt.Errorf("building %s for %s: %s: %w\n%s", pkg, arch, strings.Join(cmd.Args, " "), err, msg)
	}
	return nil
}

// zipLevel is the deflate level of every zip Zip makes.
const zipLevel = 6

// Entry is one file of a zip that Zip makes.
type Entry struct {
	Name string      // the path inside the zip, slash-separated
	Mode os.FileMode // 0o644 or 0o755: a zip carries no owner, and Lambda needs only the x bit
	Path string      // the file whose bytes the entry holds
}

// Zip makes a zip of entries that depends on their names, modes and bytes only: entries sorted by
// name, each deflated at a fixed level and dated zipTime, so that the same files always give the
// same bytes. A duplicate name, an absolute or dotted path, or a mode other than 0644 or 0755 is
// refused, named in the error.
func Zip(entries []Entry) ([]byte, error) {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	for i, e := range sorted {
		if e.Name == "" || path.IsAbs(e.Name) || path.Clean(e.Name) != e.Name || strings.HasPrefix(e.Name, "../") || strings.Contains(e.Name, "\\") {
			return nil, fmt.Errorf("zip entry %q: want a relative slash-separated path", e.Name)
		}
		if i > 0 && sorted[i-1].Name == e.Name {
			return nil, fmt.Errorf("zip entry %q: named twice", e.Name)
		}
		if e.Mode != 0o644 && e.Mode != 0o755 {
			return nil, fmt.Errorf("zip entry %q: mode %#o; want 0644 or 0755", e.Name, e.Mode)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// A fixed compression level, named rather than flate.DefaultCompression, which could change
	// with the toolchain. Level 6, flate's own default, compresses a large bundle (botocore's
	// models) much faster than level 9, for a zip hardly larger.
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, zipLevel)
	})
	for _, e := range sorted {
		if err := addEntry(zw, e); err != nil {
			return nil, fmt.Errorf("zip entry %q: %w", e.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// addEntry copies e's file into zw.
func addEntry(zw *zip.Writer, e Entry) error {
	f, err := os.Open(e.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: zipTime}
	h.SetMode(e.Mode)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}
