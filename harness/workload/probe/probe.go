// Package probe starts the probes the experiments put under test: the built-in Node.js and Go
// probes in testdata/probes, or a user's own server named by CLAIMS_NODE_PROBE (a JavaScript
// file) or CLAIMS_GO_PROBE (an executable), as long as it speaks the probe protocol.
package probe

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/proc"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/workload/protocol"
	"github.com/serverless-claims/claims/harness/workload/record"
)

// The variables that put another server under the tests.
const (
	NodeProbeEnv = "CLAIMS_NODE_PROBE" // a JavaScript file run with the chosen Node.js
	GoProbeEnv   = "CLAIMS_GO_PROBE"   // an executable started by the Go probe's Node.js launcher
)

// Where the built-in probes are, relative to the repository root.
const (
	NodeScript = "testdata/probes/node/index.js"
	GoPackage  = "testdata/probes/go"
	GoLauncher = "testdata/probes/go/index.js"
)

// Probe is a started probe.
type Probe struct {
	// Ready is what the probe said when it started listening.
	Ready protocol.Ready
	// Info records what was started, for the result.
	Info record.Probe
	proc *proc.Process
}

// Options say how to start a probe.
type Options struct {
	// Env is set in the probe's environment, e.g. GOMAXPROCS=2.
	Env map[string]string
	// Program replaces the probe: a JavaScript file for Node, an executable for Go. The
	// sensitivity tests use it for deliberately broken probes; empty means the user's override
	// variable if set, else the built-in probe.
	Program string
	// Source names where Program came from, for the result.
	Source string
}

// StartNode starts the Node.js probe and stops it when the test ends.
func StartNode(t testing.TB, o Options) *Probe {
	t.Helper()
	node := mustNode(t)
	script, source := choose(t, o, NodeProbeEnv, func() (string, error) { return repo.Path(NodeScript) })
	return start(t, "node probe", node, script, o.Env, record.Probe{Runtime: "node", Source: source})
}

// StartGo starts the Go probe behind its Node.js launcher, as the article deployed it, and stops
// both when the test ends. The built-in probe is built once per test binary.
func StartGo(t testing.TB, o Options) *Probe {
	t.Helper()
	node := mustNode(t)
	launcher, err := repo.Path(GoLauncher)
	if err != nil {
		t.Fatalf("Go launcher: %v", err)
	}
	bin, source := choose(t, o, GoProbeEnv, func() (string, error) { return build.Go(GoPackage) })
	env := map[string]string{"GO_PROBE_BIN": bin}
	maps.Copy(env, o.Env)
	return start(t, "go probe", node, launcher, env, record.Probe{Runtime: "go", Source: source, Program: rel(bin)})
}

// BuildGoVariant builds the built-in Go probe with build tags, for deliberately broken probes.
func BuildGoVariant(t testing.TB, tags ...string) string {
	t.Helper()
	bin, err := build.Go(GoPackage, tags...)
	if err != nil {
		t.Fatalf("build Go probe with tags %v: %v", tags, err)
	}
	return bin
}

func mustNode(t testing.TB) runtimes.Node {
	t.Helper()
	node, err := runtimes.FindNode()
	if err != nil {
		t.Fatalf("Node.js runtime: %v", err)
	}
	return node
}

// choose picks the program: the options' own, else the override variable, else the built-in.
func choose(t testing.TB, o Options, envVar string, builtIn func() (string, error)) (path, source string) {
	t.Helper()
	switch {
	case o.Program != "":
		return o.Program, o.Source
	case os.Getenv(envVar) != "":
		p := os.Getenv(envVar)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s = %q: %v", envVar, p, err)
		}
		return p, envVar
	default:
		p, err := builtIn()
		if err != nil {
			t.Fatalf("built-in probe: %v", err)
		}
		return p, "built-in"
	}
}

func start(t testing.TB, name string, node runtimes.Node, script string, env map[string]string, info record.Probe) *Probe {
	t.Helper()
	var ready protocol.Ready
	p := proc.Start(t, proc.Spec{
		Name:  name,
		Path:  node.Path,
		Args:  []string{script},
		Env:   proc.CleanEnv(proc.Vars(env)...),
		Ready: protocol.AwaitReady(&ready),
	})
	if info.Program == "" {
		info.Program = rel(script)
	}
	info.Env = make(map[string]string, len(env)) // not nil, which a result would write as null
	maps.Copy(info.Env, env)
	if bin, ok := info.Env["GO_PROBE_BIN"]; ok {
		info.Env["GO_PROBE_BIN"] = rel(bin)
	}
	info.Node = node
	info.Ready = ready.Extra
	return &Probe{Ready: ready, Info: info, proc: p}
}

// rel shortens a path inside the repository to its repository-relative form, so results do not
// carry the user's home directory.
func rel(path string) string {
	root, err := repo.Root()
	if err != nil {
		return path
	}
	r, err := filepath.Rel(root, path)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return path
	}
	return filepath.ToSlash(r)
}

// Stop stops the probe now (it is also stopped when the test ends).
func (p *Probe) Stop() error { return p.proc.Stop() }
