// Package build builds what experiments run from source, once per test binary, into .cache/bin:
// Go commands (the Go probe, the Lambda functions, the emulator) with the Go toolchain running
// the tests, and C stand-ins as shared libraries for LD_PRELOAD. Every Go binary is built with
// one set of settings (Flags), and one build per target runs at a time among a run's test binaries (Run),
// so that each package is compiled once per target, not once per test binary.
package build

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

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
// .cache/bin, for this machine, and returns the binary's path. pkg is a repository folder
// (slash-separated, e.g. "testdata/probes/go") or the import path of a command the module
// requires (a tool, such as the Lambda Runtime Interface Emulator). It builds as Command does:
// static, as Lambda's provided.al2023 runtime runs one, and with harness/lambda/lambdazip's
// settings, so that a function under FunctionsDir (built with NoRPC too) is the very binary
// Lambda runs, and every build shares the packages the others compiled.
func Go(pkg string, tags ...string) (string, error) {
	name := strings.ReplaceAll(pkg, "/", "_")
	if joined := strings.Join(tags, ","); joined != "" {
		name += "-" + strings.ReplaceAll(joined, ",", "-")
	}
	if strings.HasPrefix(pkg, FunctionsDir) {
		tags = WithNoRPC(tags)
	}
	return buildOnce(name, runtime.GOARCH, func(tmp string) *exec.Cmd { return Command(tmp, pkg, "", tags) })
}

// Flags are go build's flags for every Go binary this repository builds: no paths of this
// machine (-trimpath), no VCS stamp, no symbol table or build id, so that a binary depends on
// its source, toolchain, target and tags only (harness/lambda/lambdazip's zips are
// byte-for-byte reproducible). One set for every build, because -trimpath is part of every
// compiled package's key in Go's build cache: builds with other flags compile the standard
// library and the AWS SDK again.
var Flags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}

// Command is the go build of the main package pkg (a repository folder or a module's command)
// into out, with Flags and tags, cgo off (a static binary), for Linux on goarch, or for this
// machine where goarch is "". The caller sets its Dir to the repository root.
func Command(out, pkg, goarch string, tags []string) *exec.Cmd {
	args := append([]string{"build", "-o", out}, Flags...)
	if joined := strings.Join(tags, ","); joined != "" {
		args = append(args, "-tags", joined)
	}
	target := pkg
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		target = "./" + pkg // a folder of this repository, not a module's import path
	}
	cmd := exec.Command(GoCommand(), append(args, target)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if goarch != "" {
		cmd.Env = append(cmd.Env, "GOOS=linux", "GOARCH="+goarch)
	}
	return cmd
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
	return buildOnce(name, "cc", func(tmp string) *exec.Cmd {
		return exec.Command(ccPath, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", tmp, src, "-ldl")
	})
}

// buildOnce runs the command build makes for target (as Run takes it), in the repository root,
// to produce .cache/bin/name, once per test binary.
func buildOnce(name, target string, build func(tmp string) *exec.Cmd) (string, error) {
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
	if msg, err := Run(target, cmd); err != nil {
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

// LockFile is the lock, repository-relative, that Run holds while a build for target (a GOARCH,
// or "cc" for the C compiler) runs.
func LockFile(target string) string { return ".cache/bin/.build-" + target + ".lock" }

// Run runs the build cmd for target (a GOARCH, or "cc"; its Dir the repository root) and returns
// its combined output, holding LockFile(target) meanwhile: one build per target at a time among
// all the test binaries of a run. The go command shares no compile in progress between
// processes, so two test binaries building the same packages at once would both compile them;
// one after the other, the second finds them in Go's build cache. Builds for other targets
// share nothing and run meanwhile.
func Run(target string, cmd *exec.Cmd) ([]byte, error) {
	r, err := repo.Root()
	if err != nil {
		return nil, err
	}
	rel := LockFile(target)
	name := filepath.Join(r, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close() // closing the file releases the lock
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("locking %s: %w", rel, err)
		}
	}
	return cmd.CombinedOutput()
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
