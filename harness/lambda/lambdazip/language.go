package lambdazip

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/serverless-claims/claims/catalog"
)

// Language is what a function of this repository is written in, read from its folder
// (LanguageOf): it says how the function is built and which Lambda runtime runs it.
type Language string

// The languages of this repository's functions.
const (
	// Go is a Go main package (functions/getitem), built as bootstrap for provided.al2023.
	Go Language = "go"
	// Rust is a Cargo package (functions/getitem-rust, Cargo.toml), built offline with Debian's
	// Rust toolchain and crates as bootstrap for provided.al2023.
	Rust Language = "rust"
	// Node is an npm package (functions/getitem-node, package.json and its lockfile), its
	// handler index.handler for the managed nodejs24.x runtime.
	Node Language = "node"
	// Python is a Python package (functions/getitem-python, handler.py), its handler
	// handler.handler for a managed Python runtime, with boto3 from Debian's python3-boto3
	// vendored into the bundle.
	Python Language = "python"
)

// Languages are every language a function can be written in, Go first: the catalog's
// (catalog.FunctionLanguages, the languages the cold-start claims are decided on), each one of
// the constants above with a builder (builders; TestLanguagesAreTheBuilders).
var Languages = func() []Language {
	ls := make([]Language, len(catalog.FunctionLanguages))
	for i, l := range catalog.FunctionLanguages {
		ls[i] = Language(l)
	}
	return ls
}()

// ParseLanguage reads a language as Languages spell it; anything else is refused, named.
func ParseLanguage(s string) (Language, error) {
	for _, l := range Languages {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("function language %q; want one of %v", s, Languages)
}

// The Lambda runtimes a function of this repository can run on, as Lambda names them in
// CreateFunction's Runtime. They are declared here, where a function is packaged for one; the
// local platforms' stand-ins of the managed ones (harness/standin/managedruntime) take them from
// here, so that nothing that deploys to AWS links a stand-in.
const (
	// ProvidedAL2023 is the custom runtime the Go and Rust functions' bootstrap runs on.
	ProvidedAL2023 = "provided.al2023"
	// ProvidedAL2 is the older custom runtime, which the local platforms run too.
	ProvidedAL2 = "provided.al2"
	// NodeJS24 is the managed runtime of the Node.js function.
	NodeJS24 = "nodejs24.x"
	// Python311 is the managed runtime of the Python that Debian's python3-boto3 is built for
	// (Debian 12's Python 3.11), so that the vendored packages are what that runtime imports.
	Python311 = "python3.11"
)

// Runtime is the Lambda runtime a function in l runs on.
func (l Language) Runtime() string {
	switch l {
	case Node:
		return NodeJS24
	case Python:
		return Python311
	}
	return ProvidedAL2023
}

// Handler is the function's handler as CreateFunction's Handler names it: the module's
// exported function for a managed runtime; for provided.al2023, which runs bootstrap and reads
// no handler, the executable's name.
func (l Language) Handler() string {
	switch l {
	case Node:
		return "index.handler"
	case Python:
		return "handler.handler"
	}
	return "bootstrap"
}

// LanguageOf reads the language of the function in folder dir (an absolute path): Cargo.toml is
// Rust, package.json Node, handler.py Python, a .go file Go.
func LanguageOf(dir string) (Language, error) {
	for _, m := range []struct {
		file string
		l    Language
	}{{"Cargo.toml", Rust}, {"package.json", Node}, {"handler.py", Python}} {
		if _, err := os.Stat(filepath.Join(dir, m.file)); err == nil {
			return m.l, nil
		}
	}
	gofiles, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(gofiles) > 0 {
		return Go, nil
	}
	return "", fmt.Errorf("%s: no Cargo.toml, package.json, handler.py or .go file: not a function", dir)
}

// builder builds a function of one language into taskRoot, an empty folder that
// becomes the zip's top level (Lambda's LAMBDA_TASK_ROOT): root is the repository, pkg the
// function's folder in it, tags the broken build's tags, each a name the function's folder
// knows (its README says which).
type builder func(root, pkg string, arch Arch, tags []string, taskRoot string) error

// builders are the languages' builders (lambdazip.go, rust.go, node.go, python.go).
var builders = map[Language]builder{Go: buildGo, Rust: buildRust, Node: buildNode, Python: buildPython}

// buildBundle builds pkg, a function in language l, into a folder under dir named for name and
// its content's digest, and, where zipped, a zip of it dir/name.zip, each renamed into place
// once whole. A folder is never replaced: another test binary may be running the function from
// it, and a runtime that loads its modules lazily (Python) would find them gone; a build of the
// same content finds its folder there and keeps it.
func buildBundle(root, dir, name, pkg string, l Language, arch Arch, tags []string, zipped bool) (Package, error) {
	b, ok := builders[l]
	if !ok {
		return Package{}, fmt.Errorf("building %s: no builder for %s", pkg, l)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Package{}, err
	}
	tmp, err := os.MkdirTemp(dir, "."+name+".*")
	if err != nil {
		return Package{}, err
	}
	defer os.RemoveAll(tmp)
	taskRoot := filepath.Join(tmp, "task")
	if err := os.Mkdir(taskRoot, 0o755); err != nil {
		return Package{}, err
	}
	if err := b(root, pkg, arch, tags, taskRoot); err != nil {
		return Package{}, fmt.Errorf("building %s (%s) for %s: %w", pkg, l, arch, err)
	}
	entries, err := treeEntries(taskRoot)
	if err != nil {
		return Package{}, err
	}
	p := Package{Arch: arch, Package: pkg}
	if zipped {
		data, err := Zip(entries)
		if err != nil {
			return Package{}, fmt.Errorf("zipping %s for %s: %w", pkg, arch, err)
		}
		if p, err = place(tmp, dir, name+".zip", data, arch, pkg); err != nil {
			return Package{}, err
		}
	}
	digest, err := treeDigest(entries)
	if err != nil {
		return Package{}, err
	}
	p.Dir = filepath.Join(dir, name+"-"+digest)
	if err := os.Rename(taskRoot, p.Dir); err != nil {
		if _, statErr := os.Stat(p.Dir); statErr != nil {
			return Package{}, err
		}
		// The same content, placed by an earlier build: keep it.
	}
	return p, nil
}

// treeDigest names entries' content: the SHA-256 of each one's name, mode and bytes, in order,
// shortened to 16 hex digits.
func treeDigest(entries []Entry) (string, error) {
	h := sha256.New()
	for _, e := range entries {
		f, err := os.Open(e.Path)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %o\n", e.Name, e.Mode)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// treeEntries lists every regular file under dir as a zip entry, with the mode Lambda needs:
// executable where any x bit is set. A symbolic link is refused: a zip holds none that Lambda
// would follow.
func treeEntries(dir string) ([]Entry, error) {
	var entries []Entry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: %v; want regular files only in a bundle", rel, info.Mode().Type())
		}
		mode := os.FileMode(0o644)
		if info.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		entries = append(entries, Entry{Name: filepath.ToSlash(rel), Mode: mode, Path: path})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("the bundle is empty")
	}
	return entries, nil
}

// tagsKnown checks that every tag is one of known, a builder's broken builds, naming the others.
func tagsKnown(l Language, tags []string, known ...string) error {
	for _, t := range tags {
		ok := false
		for _, k := range known {
			ok = ok || t == k
		}
		if !ok {
			return fmt.Errorf("%s function: build tag %q; want one of %s", l, t, strings.Join(known, ", "))
		}
	}
	return nil
}

// copyFile copies src's bytes (through a symbolic link, if it is one) to a new file dst, 0755
// when src is executable by anyone and 0644 otherwise.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %v; want a regular file", src, info.Mode().Type())
	}
	mode := os.FileMode(0o644)
	if info.Mode().Perm()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
