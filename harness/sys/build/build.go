// Package build builds what experiments run from source, once per test binary, into .cache/bin:
// Go commands (the Go probe, the Lambda functions, the emulator) with the Go toolchain running
// the tests, and C stand-ins as shared libraries for LD_PRELOAD.
package build

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

var (
	buildMu sync.Mutex
	built   = map[string]string{} // build description -> the file it made
)

// NoRPC is aws-lambda-go's build tag that leaves out its RPC mode, which only the retired go1.x
// runtime used; provided.al2023 speaks the Runtime API alone, and AWS's Go packaging guide builds
// with it.
const NoRPC = "lambda.norpc"

// FunctionsDir holds this repository's Lambda functions (functions/getitem, functions/throttle).
const FunctionsDir = "functions/"

// WithNoRPC is tags with NoRPC first, once.
func WithNoRPC(tags []string) []string {
	out := []string{NoRPC}
	for _, t := range tags {
		if t != NoRPC {
			out = append(out, t)
		}
	}
	return out
}

// Go builds the Go main package pkg with the given build tags, once per test binary, into
// .cache/bin, and returns the binary's path. pkg is a repository folder (slash-separated, e.g.
// "testdata/probes/go") or the import path of a command the module requires (a tool, such as
// the Lambda Runtime Interface Emulator). It builds with the go command found on PATH, else in
// GOROOT, with cgo off: a static binary, as Lambda's provided.al2023 runtime runs one. A function
// under FunctionsDir is built with NoRPC too, as harness/lambda/lambdazip builds it for Lambda, so that
// the emulator runs the binary Lambda runs.
func Go(pkg string, tags ...string) (string, error) {
	joined := strings.Join(tags, ",")
	name := strings.ReplaceAll(pkg, "/", "_")
	if joined != "" {
		name += "-" + strings.ReplaceAll(joined, ",", "-")
	}
	if strings.HasPrefix(pkg, FunctionsDir) {
		joined = strings.Join(WithNoRPC(tags), ",")
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
		cmd := exec.Command(GoCommand(), append(args, target)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		return cmd
	})
}

// SharedC builds the C file src (repository-relative, e.g. "testdata/threadpool/slowdns/
// slowgai.c") into a shared library for LD_PRELOAD, once per test binary, into .cache/bin, with
// the C compiler named by CC, else gcc. An error names what is missing when there is no compiler.
func SharedC(src string) (string, error) {
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

// GoCommand is the go command: on PATH, else under GOROOT (as go test sets it for test
// binaries).
func GoCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if g := os.Getenv("GOROOT"); g != "" {
		return filepath.Join(g, "bin", "go")
	}
	return "go"
}

// BinaryTags returns the build tags the Go binary bin was built with, from the build information
// `go version -m` reads out of it; none where it was built without -tags.
func BinaryTags(bin string) ([]string, error) {
	out, err := exec.Command(GoCommand(), "version", "-m", bin).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go version -m %s: %w: %s", bin, err, out)
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "-tags=") {
			return strings.Split(strings.TrimPrefix(f[1], "-tags="), ","), nil
		}
	}
	return nil, nil
}
