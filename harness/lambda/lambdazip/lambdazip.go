// Package lambdazip builds a Go Lambda function of this repository as the zip that Lambda's
// provided.al2023 runtime takes: one executable named bootstrap. The zip is byte-for-byte
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
	Package string // the Go package it was built from, repository-relative ("functions/getitem")
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

// Build builds the main package pkg (a repository folder, slash-separated, e.g.
// "functions/getitem") for Linux on arch with the given build tags and build.NoRPC, once per
// test binary per (pkg, arch, tags), and zips it into .cache/lambdazip. The binary is static (cgo
// off), has no paths of this machine (-trimpath), no VCS stamp and no build id, so that the zip
// depends on the source and toolchain only.
func Build(pkg string, arch Arch, tags ...string) (Package, error) {
	if arch != ARM64 && arch != X8664 {
		return Package{}, fmt.Errorf("building %s: architecture %q: Lambda runs %q or %q", pkg, arch, ARM64, X8664)
	}
	joined := strings.Join(tags, ",")
	// provided.al2023 only speaks the Runtime API: aws-lambda-go's go1.x RPC mode is dead code.
	withNoRPC := strings.Join(build.WithNoRPC(tags), ",")
	return cached(pkg+"|"+string(arch)+"|"+withNoRPC, func(root string) (Package, error) {
		name := strings.ReplaceAll(pkg, "/", "_") + "-" + string(arch)
		if joined != "" {
			name += "-" + strings.ReplaceAll(joined, ",", "-")
		}
		return buildZip(root, filepath.Join(root, ".cache", "lambdazip"), name, pkg, arch, withNoRPC)
	})
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

// buildZip does Build's work without the cache: go build into a temporary folder under dir, zip,
// rename the zip into place as dir/name.zip.
func buildZip(root, dir, name, pkg string, arch Arch, tags string) (Package, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Package{}, err
	}
	tmp, err := os.MkdirTemp(dir, "."+name+".*")
	if err != nil {
		return Package{}, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bootstrap")
	if err := goBuild(root, bin, pkg, arch, tags); err != nil {
		return Package{}, err
	}
	data, err := Zip([]Entry{{Name: "bootstrap", Mode: 0o755, Path: bin}})
	if err != nil {
		return Package{}, fmt.Errorf("zipping %s for %s: %w", pkg, arch, err)
	}
	return place(tmp, dir, name+".zip", data, arch, pkg)
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
	// A fixed compression level: the default could change with the toolchain's default.
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
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
