package main

// The shards: one runtime of the matrix each, as one CI job runs it; resolving, running and
// recording one.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
	"github.com/serverless-claims/claims/report"
)

// shard is one runtime of the matrix, as one CI job runs it, named before anything is installed.
type shard struct {
	kind string // catalog.Node, catalog.Go or functionKind
	arg  string // a Node release or nodePath; a GOTOOLCHAIN value; a function's language
}

const (
	nodePath = "path"  // the shard argument of the machine's node, the one on PATH
	localGo  = "local" // the GOTOOLCHAIN value of the machine's go, the one on PATH
)

// String is the shard's name: node:24.22.3, node:path, go:local, go:go1.27.3, function:rust.
func (s shard) String() string { return s.kind + ":" + s.arg }

// columnKind is the kind of the shard's column (report.Column.Kind): a function's language runs
// Go claim tests, so its column is among the Go claims' in the matrix.
func (s shard) columnKind() string {
	if s.kind == functionKind {
		return catalog.Go
	}
	return s.kind
}

// parseShard reads a shard's name.
func parseShard(name string) (shard, error) {
	kind, arg, ok := strings.Cut(name, ":")
	if !ok || !slices.Contains(shardKinds, kind) || arg == "" || (kind == functionKind && !slices.Contains(FunctionLanguages, arg)) {
		return shard{}, fmt.Errorf("shard %q: want node:<version>, node:%s, go:<toolchain> or function:<language> (one of %s)",
			name, nodePath, strings.Join(FunctionLanguages, " "))
	}
	return shard{kind: kind, arg: arg}, nil
}

// shardKinds are the kinds of shard, in the order the matrix runs and lists them.
var shardKinds = []string{catalog.Node, catalog.Go, functionKind}

// shardsOf are the shards o's -node, -go and -functions name, each once, in the flags' order:
// the pinned Node releases, the machine's node, the Go toolchains, the function languages.
func shardsOf(o options) []shard {
	var out []shard
	add := func(s shard) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, v := range o.node {
		add(shard{kind: catalog.Node, arg: v})
	}
	add(shard{kind: catalog.Node, arg: nodePath})
	for _, g := range o.goes {
		add(shard{kind: catalog.Go, arg: g})
	}
	for _, l := range o.functions {
		add(shard{kind: functionKind, arg: l})
	}
	return out
}

// shardNames are the shards' names.
func shardNames(shards []shard) []string {
	out := make([]string, len(shards))
	for i, s := range shards {
		out[i] = s.String()
	}
	return out
}

// listShards prints o's shards as a JSON array on one line, which a workflow's fromJSON reads.
func listShards(o options) error {
	data, err := json.Marshal(shardNames(shardsOf(o)))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.out, "%s\n", data)
	return err
}

// shardsDir is the folder under <dir>/matrix of the shards' descriptors. No column has its name
// (theirs start node-, go or function-), and nothing reads it for results: the summary's walk
// skips <dir>/matrix, and the matrix reads only its columns' folders.
const shardsDir = "shards"

// shardExt ends a descriptor's name: not .json, so that no walk for *.json results
// (report.ResultFiles, the results' round trip and secret scan) takes a descriptor for one.
const shardExt = ".shard"

// shardsFolder is the folder of the shards' descriptors under dir.
func shardsFolder(dir string) string { return filepath.Join(dir, results.MatrixDir, shardsDir) }

// descriptorPath is where shard s's descriptor goes under dir: its name with ':' as '-', which
// an artifact's upload refuses in a path (node:24.22.3 is node-24.22.3.shard).
func descriptorPath(dir string, s shard) string {
	return filepath.Join(shardsFolder(dir), s.kind+"-"+s.arg+shardExt)
}

// shardRecord is a shard's descriptor: what the merge needs to know of the shard. Exactly one of
// Column, Skipped and SameAs is set.
type shardRecord struct {
	Shard string `json:"shard"` // its name, as node:24.22.3
	// Column is the runtime the shard ran; its results are under <dir>/matrix/<Column.Name>.
	Column *report.Column `json:"column,omitempty"`
	// Skipped is the runtime the shard could not install or run, with why.
	Skipped *report.SkippedRun `json:"skipped,omitempty"`
	// SameAs is the pinned shard whose runtime the machine's (node:path, go:local) turned out
	// to be: that shard's column is this one's, so it ran nothing rather than the claims twice.
	SameAs string `json:"same_as,omitempty"`
}

// column is one runtime to run, with what its tests need in their environment.
type column struct {
	report.Column
	env   []string
	shard shard // the shard that runs it, whose suites it runs
}

// runShard installs s's runtime, runs its claims into <dir>/matrix/<column>, and then writes its
// descriptor. The old descriptor goes first: a shard interrupted midway leaves none, so that no
// merge takes a column half run for a whole one.
func runShard(ctx context.Context, root string, p *provision.Provisioner, o options, s shard) error {
	path := descriptorPath(o.dir, s)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rec, env := resolveShard(ctx, root, p, o, s)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted installing %s: %w", s, ctx.Err())
	}
	if rec.Column != nil {
		if err := runColumn(ctx, root, o, column{Column: *rec.Column, env: env, shard: s}); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return wholefile.Write(path, append(data, '\n'))
}

// resolveShard installs or finds s's runtime: its descriptor (the column to run, or why there is
// none) and the column's environment.
func resolveShard(ctx context.Context, root string, p *provision.Provisioner, o options, s shard) (shardRecord, []string) {
	rec := shardRecord{Shard: s.String()}
	skip := func(runtime, reason string) (shardRecord, []string) {
		fmt.Fprintf(o.out, "matrix: skipping %s: %s\n", runtime, reason)
		rec.Skipped = &report.SkippedRun{Runtime: runtime, Reason: reason}
		return rec, nil
	}
	if s.kind == functionKind {
		// The function's own toolchain is the tests' to provision (Debian's, or Node 24), the same
		// whatever -go names; the tests that build and run it need only a go.
		version, reason := goToolchain(ctx, root, localGo)
		if reason != "" {
			return skip("function "+s.arg, reason)
		}
		rec.Column = &report.Column{Name: functionKind + "-" + s.arg, Kind: s.columnKind(), Runtime: functionKind + " " + s.arg,
			Source: "the cold-start claims' function in " + s.arg + ", the function's language, on the machine's go " + version + " (GOTOOLCHAIN=local)"}
		return rec, []string{"GOTOOLCHAIN=" + localGo}
	}
	if s.kind == catalog.Go {
		version, reason := goToolchain(ctx, root, s.arg)
		if reason != "" {
			return skip("Go "+s.arg, reason)
		}
		source := "GOTOOLCHAIN=" + s.arg
		if s.arg == localGo {
			if slices.Contains(o.goes, version) {
				rec.SameAs = shard{kind: catalog.Go, arg: version}.String()
				fmt.Fprintf(o.out, "matrix: the machine's go is %s, which shard %s runs\n", version, rec.SameAs)
				return rec, nil
			}
			source = "the machine's go (GOTOOLCHAIN=local)"
		}
		rec.Column = &report.Column{Name: version, Kind: catalog.Go, Runtime: "Go " + version, Source: source}
		return rec, []string{"GOTOOLCHAIN=" + s.arg}
	}
	var n runtimes.Node
	source := "pinned: npm " + provision.Node24Package + "@" + s.arg
	if s.arg == nodePath {
		source = "the machine's node (PATH)"
		path, err := exec.LookPath("node")
		if err != nil {
			return skip("Node (PATH)", "no node on PATH: "+err.Error())
		}
		if n, err = runtimes.Describe(path, source); err != nil {
			return skip("Node "+path, err.Error())
		}
		if v := strings.TrimPrefix(n.Version, "v"); slices.Contains(o.node, v) {
			rec.SameAs = shard{kind: catalog.Node, arg: v}.String()
			fmt.Fprintf(o.out, "matrix: the machine's node is %s, which shard %s runs\n", n.Version, rec.SameAs)
			return rec, nil
		}
	} else {
		path, err := p.NodeRelease(ctx, s.arg)
		if err != nil {
			return skip("Node "+s.arg, err.Error())
		}
		if n, err = runtimes.Describe(path, source); err != nil {
			return skip("Node "+path, err.Error())
		}
	}
	rec.Column = &report.Column{Name: "node-" + n.Version, Kind: catalog.Node, Runtime: "Node " + n.Version, Source: source}
	// Each Node runs its claims alone (CLAIMS_NODE_RUNTIMES=only), P5 included.
	return rec, []string{"CLAIMS_NODE=" + n.Path, runtimes.NodeRuntimesEnv + "=only", "GOTOOLCHAIN=local"}
}

// goToolchain asks Go toolchain g its version, which makes GOTOOLCHAIN fetch one the machine
// lacks; reason says why it cannot run, where it cannot.
func goToolchain(ctx context.Context, root, g string) (version, reason string) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+g)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	version = strings.TrimSpace(string(out))
	if err == nil && g != localGo && version != g {
		err = fmt.Errorf("GOTOOLCHAIN=%s ran %s", g, version)
	}
	if err == nil {
		return version, ""
	}
	if reason = strings.TrimSpace(stderr.String()); reason == "" {
		reason = err.Error()
	}
	return "", reason
}

// runColumn runs c's claim tests, one package at a time, into its own results folder, which it
// empties first so that nothing of an earlier run is taken for this one's. A test that fails is
// a verdict like another (a claim that does not hold on this runtime); what counts is the result
// files. It returns an error only when interrupted.
func runColumn(ctx context.Context, root string, o options, c column) error {
	dir, err := filepath.Abs(filepath.Join(o.dir, results.MatrixDir, c.Name))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, s := range suites {
		tests := s.selected(o.tests)
		if !s.runs(c.shard) || len(tests) == 0 {
			continue
		}
		args := s.testArgs(tests)
		fmt.Fprintf(o.out, "matrix: %s: go %s\n", c.Runtime, strings.Join(args, " "))
		started := time.Now()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = root
		cmd.Env = append(append(os.Environ(), results.DirEnv+"="+dir), c.env...)
		cmd.Stdout, cmd.Stderr = o.out, o.out
		// go test and the test binaries it starts run in a process group of their own; an
		// interrupt goes to the whole group, so each test's cleanup stops what it started.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
		cmd.WaitDelay = time.Minute
		err := cmd.Run()
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted during %s on %s: %w", s.pkg, c.Runtime, ctx.Err())
		}
		status := "passed"
		if err != nil {
			status = "did not pass (" + err.Error() + "): a claim that does not hold here, or a test that broke; the results say which"
		}
		fmt.Fprintf(o.out, "matrix: %s: %s %s in %s\n", c.Runtime, s.pkg, status, time.Since(started).Round(time.Second))
	}
	return nil
}
