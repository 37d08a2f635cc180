package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/report"
)

// npmNotFound is how npm fails to install a Node version that does not exist.
var npmNotFound = errors.New("npm error 404: No match found for version 99.0.0")

// p5Matrix are the options of a matrix of P5's test, the fastest claim, into a folder of its own:
// Node 24 (which `make setup` installed, so nothing is fetched), the machine's node, a version
// whose install fails as npm fails for one that does not exist, and the go on PATH, on which no
// P5 test runs (a column without rows). It skips the test where Node 24 or a node on PATH is
// missing, and returns the machine's node.
func p5Matrix(t *testing.T) (options, *bytes.Buffer, runtimes.Node) {
	t.Helper()
	root, err := repo.Root()
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(runtimes.Node24Dir))); err != nil {
		t.Skipf("Node %s is not installed in %s: run `make setup`", provision.Node24Version, runtimes.Node24Dir)
	}
	own, err := runtimes.PathNode()
	if err != nil {
		t.Skip("no node on PATH: ", err)
	}
	out := &bytes.Buffer{}
	o := options{
		dir: t.TempDir(), node: []string{provision.Node24Version, "99.0.0"}, goes: []string{"local"},
		tests: []string{"TestPoolSizeFromInsideProgram"}, out: out,
		provisioner: &provision.Provisioner{Root: root, Out: out, Run: func(cmd *exec.Cmd) error {
			if slices.Contains(cmd.Args, provision.Node24Package+"@99.0.0") {
				return npmNotFound
			}
			return errors.New("unexpected install: " + strings.Join(cmd.Args, " "))
		}},
	}
	return o, out, own
}

// readMatrix reads the matrix a run wrote into dir, which it must have written.
func readMatrix(t *testing.T, dir string) report.Matrix {
	t.Helper()
	m, ok, err := report.ReadMatrix(dir)
	require.NoError(t, err)
	require.True(t, ok, "%s in %s = none; want the run's", report.MatrixFile, dir)
	return m
}

// TestMatrixRunsEachRuntimeAndSkipsOneThatCannotInstall runs P5's test through the whole matrix
// (p5Matrix), and then through its shards run one by one and merged, which must give the same
// matrix: CI runs the shards on separate runners, one job each.
func TestMatrixRunsEachRuntimeAndSkipsOneThatCannotInstall(t *testing.T) {
	o, out, own := p5Matrix(t)
	require.NoError(t, run(t.Context(), o), "matrix run (output:\n%s)", out.String())

	m := readMatrix(t, o.dir)
	assert.FileExists(t, filepath.Join(o.dir, "matrix.md"))
	require.Len(t, m.Skipped, 1, "skipped runtimes")
	assert.Equal(t, "Node 99.0.0", m.Skipped[0].Runtime, "the runtime that failed to install, named")
	assert.Contains(t, m.Skipped[0].Reason, "installing Node 99.0.0")
	assert.Contains(t, m.Skipped[0].Reason, npmNotFound.Error(), "the reason keeps npm's own")

	var row report.MatrixRow
	for _, r := range m.Rows {
		if r.Claim == "P5" {
			row = r
		}
	}
	require.Equal(t, "P5", row.Claim, "no P5 row in %+v (output:\n%s)", m.Rows, out.String())
	wantCols := []string{"node-v" + provision.Node24Version}
	if own.Version != "v"+provision.Node24Version {
		wantCols = append([]string{"node-" + own.Version}, wantCols...)
	}
	var cols []string
	outcomes := map[string]bool{}
	for _, c := range row.Cells {
		cols = append(cols, c.Column)
		require.Len(t, c.Results, 1, "P5 on %s: one result", c.Column)
		assert.FileExists(t, filepath.Join(o.dir, filepath.FromSlash(c.Results[0].Path)))
		outcomes[string(c.Outcome)] = true
	}
	assert.Equal(t, wantCols, cols, "P5's columns: the machine's node and Node %s, in version order", provision.Node24Version)
	assert.Equal(t, len(outcomes) > 1, row.Differs(), "a row differs exactly when its verdicts do: %v", row.Changes)
	// Node 24.22.3 reads an ES-module entry without the pool (Node 24.3.0 and later), so P5 fails
	// there; a machine's node before 22.18.0 (Debian's 20) reads it through the pool.
	assert.Equal(t, "fail", string(row.Cells[len(row.Cells)-1].Outcome), "P5 on Node %s", provision.Node24Version)

	t.Run("two shards of make matrix run separately and merged give the same matrix as one make matrix run of the same runtimes", func(t *testing.T) {
		so, sout, _ := p5Matrix(t)
		so.list = true
		require.NoError(t, run(t.Context(), so))
		var names []string
		require.NoError(t, json.Unmarshal(sout.Bytes(), &names), "-list printed %q; want a JSON array", sout.String())
		want := []string{"node:" + provision.Node24Version, "node:99.0.0", "node:path", "go:local"}
		require.Equal(t, want, names, "-list = %v; want %v", names, want)
		so.list = false
		for _, name := range names {
			so.shard = name
			require.NoError(t, run(t.Context(), so), "shard %s (output:\n%s)", name, sout.String())
			s, err := parseShard(name)
			require.NoError(t, err)
			assert.FileExists(t, descriptorPath(so.dir, s), "shard %s's descriptor", name)
		}
		_, ok, err := report.ReadMatrix(so.dir)
		require.NoError(t, err)
		require.False(t, ok, "%s after the shards alone = written; want it written by the merge only", report.MatrixFile)
		// The merge as CI's last job runs it: -merge -dir, and none of the shards' flags.
		require.NoError(t, run(t.Context(), options{dir: so.dir, merge: true, out: sout}), "merge (output:\n%s)", sout.String())

		merged := readMatrix(t, so.dir)
		assert.Equal(t, comparable(m), comparable(merged), "merged shards' matrix = the right; want the whole run's, the left (generation time and install folders aside)")
		wholeMD, err := os.ReadFile(filepath.Join(o.dir, "matrix.md"))
		require.NoError(t, err)
		mergedMD, err := os.ReadFile(filepath.Join(so.dir, "matrix.md"))
		require.NoError(t, err)
		assert.Equal(t, comparableText(string(wholeMD)), comparableText(string(mergedMD)), "merged shards' matrix.md = the right; want the whole run's, the left")

		// Even a walk of the matrix folder itself for results takes no descriptor for one.
		files, err := report.ResultFiles(filepath.Join(so.dir, results.MatrixDir))
		require.NoError(t, err)
		require.NotEmpty(t, files, "results under %s", filepath.Join(so.dir, results.MatrixDir))
		for _, f := range files {
			assert.False(t, strings.HasPrefix(f, shardsDir+"/") || strings.HasSuffix(f, shardExt), "result file %s = a shard's descriptor; want results only", f)
		}
	})
}

// installTemp is the provisioner's temporary install folder, whose name each install attempt
// draws anew: .cache/provision-tmp/.cache_node_v99.0.0-3180627514.
var installTemp = regexp.MustCompile(`(provision-tmp/[^/\s]*?)-[0-9]+/`)

// generatedAt is the matrix's generation time, as matrix.md prints it.
var generatedAt = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z`)

// comparableText is s without what differs between two runs of the same runtimes: the generation
// time and the provisioner's temporary install folders (in a skipped install's reason).
func comparableText(s string) string {
	return installTemp.ReplaceAllString(generatedAt.ReplaceAllString(s, "<generated>"), "$1-<n>/")
}

// comparable is m without what differs between two runs of the same runtimes (comparableText).
// Everything else, down to the links to results (relative to the results folder), must agree.
func comparable(m report.Matrix) report.Matrix {
	m.Generated = ""
	m.Skipped = slices.Clone(m.Skipped)
	for i := range m.Skipped {
		m.Skipped[i].Reason = comparableText(m.Skipped[i].Reason)
	}
	return m
}

func TestListPrintsOneShardPerRuntimeOfTheFlagsAsJSONOnOneLine(t *testing.T) {
	for _, c := range []struct {
		node, goes, functions []string
		want                  string
	}{
		{NodeVersions, GoVersions, FunctionLanguages,
			`["node:22.11.0","node:24.22.3","node:26.12.1","node:path","go:local","go:go1.27.3","function:rust","function:node","function:python"]`},
		{nil, []string{"local"}, nil, `["node:path","go:local"]`},
		{[]string{"22.18.0", "22.18.0"}, nil, nil, `["node:22.18.0","node:path"]`},
		{nil, nil, []string{"python", "rust", "python"}, `["node:path","function:python","function:rust"]`},
	} {
		var out bytes.Buffer
		o := options{list: true, node: c.node, goes: c.goes, functions: c.functions, out: &out}
		require.NoError(t, run(t.Context(), o), "-list -node %q -go %q -functions %q", c.node, c.goes, c.functions)
		assert.Equal(t, c.want+"\n", out.String(), "-list -node %q -go %q -functions %q = %s; want %s", c.node, c.goes, c.functions, out.String(), c.want)
	}
}

// TestFunctionLanguagesAreTheCatalogsButGo: the function columns are every language of the
// cold-start claims' function but Go, whose subtests the Go columns run, in the catalog's order.
func TestFunctionLanguagesAreTheCatalogsButGo(t *testing.T) {
	want := []string{"rust", "node", "python"}
	assert.Equal(t, want, FunctionLanguages, "FunctionLanguages = %v; want %v (catalog.FunctionLanguages %v but go)", FunctionLanguages, want, catalog.FunctionLanguages)
	assert.Equal(t, catalog.Go, catalog.FunctionLanguages[0], "catalog.FunctionLanguages[0] = %q; want go, the function the Go columns run", catalog.FunctionLanguages[0])
}

func TestFlagsThatMakeNoSenseAreRefused(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{goes: []string{"1.27.3"}}, `-go "1.27.3": want local or a toolchain as go1.27.3`},
		{options{functions: []string{"go"}}, `-functions "go": want some of rust node python (the Go function runs in the -go columns`},
		{options{functions: []string{"rust", "java"}}, `-functions "java": want some of rust node python`},
		{options{functions: []string{"Rust"}}, `-functions "Rust": want some of rust node python`},
		{options{merge: true, given: []string{"functions"}}, "-merge with -functions"},
		{options{functions: []string{"rust"}, shard: "function:node"}, `-shard "function:node": not a shard of -node, -go and -functions; want one of node:path function:rust`},
		{options{goes: []string{"local"}, shard: "function:go"}, `-shard "function:go": not a shard of -node, -go and -functions; want one of node:path go:local`},
		{options{goes: []string{"local"}, tests: []string{"TestCatchesBrokenLabs"}}, `-tests: "TestCatchesBrokenLabs" is not a claim test of the matrix`},
		{options{node: []string{"v22.11.0"}}, `-node "v22.11.0": want a release as 22.11.0`},
		{options{node: []string{"path"}}, `-node "path": want a release as 22.11.0`},
		{options{shard: "node:path", merge: true}, "-shard with -merge"},
		{options{list: true, shard: "node:path"}, "-list with -shard"},
		{options{list: true, merge: true}, "-list with -merge"},
		{options{merge: true, tests: []string{"TestPoolSizeFromInsideProgram"}}, "-merge with -tests"},
		{options{merge: true, given: []string{"dir", "go"}}, "-merge with -go"},
		{options{node: []string{"22.11.0"}, shard: "node:24.22.3"}, `-shard "node:24.22.3": not a shard of -node, -go and -functions; want one of node:22.11.0 node:path`},
		{options{goes: []string{"local"}, shard: "go:go1.27.3"}, `-shard "go:go1.27.3": not a shard of -node, -go and -functions; want one of node:path go:local`},
		{options{shard: "node24"}, `-shard "node24": not a shard`},
		{options{args: []string{"node:path"}}, `argument "node:path": matrix takes flags only`},
		{options{expect: []string{"node:path"}}, "-expect without -merge"},
		{options{merge: true, expect: []string{"node24"}}, `-expect: shard "node24": want node:<version>`},
	} {
		assert.ErrorContains(t, run(t.Context(), c.o), c.want, "%+v", c.o)
	}
}

// writeShard writes a shard's descriptor into dir's shards folder as the shard would.
func writeShard(t *testing.T, dir string, rec shardRecord) {
	t.Helper()
	s, err := parseShard(rec.Shard)
	require.NoError(t, err)
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(shardsFolder(dir), 0o755))
	require.NoError(t, os.WriteFile(descriptorPath(dir, s), data, 0o644))
}

// writeColumnResult writes a result of claim with outcome into column's folder under dir.
func writeColumnResult(t *testing.T, dir, column, claim string, outcome verdict.Outcome) {
	t.Helper()
	writeResult(t, dir, column, "threadpool", "TestPoolSizeFromInsideProgram", claim, outcome)
}

// writeResult writes the result of experiment (a test or subtest of package pkg) for claim with
// outcome into column's folder under dir, where its run would.
func writeResult(t *testing.T, dir, column, pkg, experiment, claim string, outcome verdict.Outcome) {
	t.Helper()
	r := results.Result{Experiment: experiment, Claims: []string{claim}, Mode: results.ModeLocal,
		Verdict: verdict.Verdict{Outcome: outcome, Reason: string(outcome)}}
	_, err := results.Write(filepath.Join(dir, results.MatrixDir, column, pkg), results.FileName(experiment), r)
	require.NoError(t, err)
}

// TestMergeReadsEveryShardsDescriptor merges descriptors as CI's jobs leave them: columns, a
// skipped install, and a machine's node that is a pinned version whose shard could not install
// it, which the matrix must name rather than drop.
func TestMergeReadsEveryShardsDescriptor(t *testing.T) {
	dir := t.TempDir()
	node22 := report.Column{Name: "node-v22.11.0", Kind: "node", Runtime: "Node v22.11.0", Source: "pinned"}
	node24 := report.Column{Name: "node-v24.22.3", Kind: "node", Runtime: "Node v24.22.3", Source: "pinned"}
	goLocal := report.Column{Name: "go1.26.8", Kind: "go", Runtime: "Go go1.26.8", Source: "the machine's go"}
	writeShard(t, dir, shardRecord{Shard: "go:local", Column: &goLocal})
	writeShard(t, dir, shardRecord{Shard: "go:go1.27.3", Skipped: &report.SkippedRun{Runtime: "Go go1.27.3", Reason: "no network"}})
	writeShard(t, dir, shardRecord{Shard: "node:24.22.3", Column: &node24})
	writeShard(t, dir, shardRecord{Shard: "node:22.11.0", Column: &node22})
	writeShard(t, dir, shardRecord{Shard: "node:26.12.1", Skipped: &report.SkippedRun{Runtime: "Node 26.12.1", Reason: "npm 404"}})
	writeShard(t, dir, shardRecord{Shard: "node:path", SameAs: "node:26.12.1"})
	writeColumnResult(t, dir, node22.Name, "P5", verdict.Pass)
	writeColumnResult(t, dir, node24.Name, "P5", verdict.Fail)

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), options{dir: dir, merge: true, out: &out}))
	m := readMatrix(t, dir)
	assert.Equal(t, []report.Column{node22, node24, goLocal}, m.Columns, "columns: Node's by version, then Go's")
	assert.Equal(t, []report.SkippedRun{
		{Runtime: "Node 26.12.1", Reason: "npm 404"},
		{Runtime: "node:path", Reason: "the same version as node:26.12.1, which ran nothing: npm 404"},
		{Runtime: "Go go1.27.3", Reason: "no network"},
	}, m.Skipped, "skipped: in the matrix's order, whatever the descriptors' file names")
	require.Len(t, m.Rows, 1, "rows: P5 on Node only")
	assert.Equal(t, []string{"Node v22.11.0 (pass) → Node v24.22.3 (fail)"}, m.Rows[0].Changes, "P5's change between the two shards' columns")
}

// TestMergeNamesAnExpectedShardThatLeftNoDescriptor: a shard CI's list named whose job failed
// before make matrix wrote its descriptor (its partial results uploaded all the same) is a
// missing column the matrix names, not a column silently absent.
func TestMergeNamesAnExpectedShardThatLeftNoDescriptor(t *testing.T) {
	dir := t.TempDir()
	node24 := report.Column{Name: "node-v24.22.3", Kind: "node", Runtime: "Node v24.22.3", Source: "pinned"}
	writeShard(t, dir, shardRecord{Shard: "node:24.22.3", Column: &node24})
	writeColumnResult(t, dir, node24.Name, "P5", verdict.Pass)
	// function:python's job was cut off mid-run: a result of its column, no descriptor.
	writeResult(t, dir, "function-python", "coldstart", "TestFirstCallDominatedByTLS/python", "T1", verdict.Pass)

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), options{dir: dir, merge: true, expect: []string{"node:24.22.3", "function:python"}, out: &out}))
	m := readMatrix(t, dir)
	assert.Equal(t, []report.Column{node24}, m.Columns, "columns: the shard that finished")
	require.Len(t, m.Skipped, 1, "missing columns (output:\n%s)", out.String())
	assert.Equal(t, "function:python", m.Skipped[0].Runtime, "the missing column's name")
	assert.Contains(t, m.Skipped[0].Reason, "left no descriptor", "why it is missing")
	md, err := os.ReadFile(filepath.Join(dir, "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "function:python", "matrix.md names the missing column")
}

func TestMergeRefusesDescriptorsItCannotTrust(t *testing.T) {
	node24 := report.Column{Name: "node-v24.22.3", Kind: "node", Runtime: "Node v24.22.3"}
	for _, c := range []struct {
		name string
		recs []shardRecord
		want string
	}{
		{"none", nil, "no shard descriptors (*.shard) in "},
		{"two shards ran one column", []shardRecord{{Shard: "node:24.22.3", Column: &node24}, {Shard: "node:path", Column: &node24}},
			"shards node:24.22.3 and node:path both ran Node v24.22.3"},
		{"a column outside the matrix folder", []shardRecord{{Shard: "node:path", Column: &report.Column{Name: "../x", Kind: "node"}}},
			`column name "../x"`},
		{"a column of the other kind", []shardRecord{{Shard: "go:local", Column: &node24}}, `column kind "node" in shard go:local; want go`},
		{"a function's column not among the Go claims'", []shardRecord{{Shard: "function:rust", Column: &node24}}, `column kind "node" in shard function:rust; want go`},
		{"a column and a skip", []shardRecord{{Shard: "node:path", Column: &node24, Skipped: &report.SkippedRun{}}},
			"2 of column, skipped and same_as; want exactly one"},
	} {
		dir := t.TempDir()
		for _, r := range c.recs {
			writeShard(t, dir, r)
		}
		err := run(t.Context(), options{dir: dir, merge: true, out: io.Discard})
		assert.ErrorContains(t, err, c.want, c.name)
		assert.NoFileExists(t, filepath.Join(dir, report.MatrixFile), "%s: the matrix of a merge that failed", c.name)
	}

	// A function shard of a language the matrix does not know, which writeShard cannot write.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(shardsFolder(dir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(shardsFolder(dir), "function-java"+shardExt),
		[]byte(`{"shard":"function:java","skipped":{"runtime":"function java","reason":"none"}}`), 0o644))
	err := run(t.Context(), options{dir: dir, merge: true, out: io.Discard})
	assert.ErrorContains(t, err, `shard "function:java": want node:<version>, node:path, go:<toolchain> or function:<language> (one of rust node python)`)
}

// TestEveryLocalClaimTestIsInTheMatrix: every claim test of the default build (catalog.Tests)
// names the runtimes its verdicts concern, and runs in the suite of each, so that a new claim
// test cannot miss the matrix.
func TestEveryLocalClaimTestIsInTheMatrix(t *testing.T) {
	for _, ct := range catalog.Tests() {
		if ct.Kind == catalog.Live || !strings.HasPrefix(ct.Name, "Test") {
			continue // -tags lambda only, or a benchmark: the matrix runs neither
		}
		if !assert.NotEmpty(t, ct.Runtimes, "%s.%s runtimes = none; want the runtimes it concerns in catalog.Tests, for the matrix", ct.Package, ct.Name) {
			continue
		}
		for _, kind := range ct.Runtimes {
			in := false
			for _, s := range suites {
				in = in || (s.kind == kind && s.pkg == "./experiments/"+ct.Package && slices.Contains(s.tests, ct.Name))
			}
			assert.True(t, in, "%s.%s on %s = in no suite; want the matrix to run it there", ct.Package, ct.Name, kind)
		}
		if len(ct.Functions) == 0 {
			continue
		}
		// The Go columns run the Go function, built with their toolchain: a test with a function
		// per language is a Go claim test with a Go function.
		assert.Equal(t, []string{catalog.Go}, ct.Runtimes, "%s.%s runtimes, with functions %v", ct.Package, ct.Name, ct.Functions)
		assert.Contains(t, ct.Functions, catalog.Go, "%s.%s functions", ct.Package, ct.Name)
		for _, l := range ct.Functions {
			if l == catalog.Go {
				continue
			}
			in := false
			for _, s := range suites {
				in = in || (s.runs(shard{kind: functionKind, arg: l}) && s.pkg == "./experiments/"+ct.Package && slices.Contains(s.tests, ct.Name))
			}
			assert.True(t, in, "%s.%s in %s = in no suite; want function:%s to run it", ct.Package, ct.Name, l, l)
		}
	}
}

// TestSuitesSkipTheOtherRuntimesSubtests: a test with a subtest per runtime runs in each
// runtime's suite with the others' subtests skipped, as go test matches -skip level by level.
func TestSuitesSkipTheOtherRuntimesSubtests(t *testing.T) {
	got := suitesOf([]catalog.Test{
		{Package: "eventloop", Name: "TestA", Kind: catalog.Local, Runtimes: []string{catalog.Node, catalog.Go}},
		{Package: "eventloop", Name: "TestB", Kind: catalog.Local, Runtimes: []string{catalog.Node}},
		{Package: "eventloop", Name: "TestC", Kind: catalog.Local, Runtimes: []string{catalog.Go, catalog.Node}},
		{Package: "eventloop", Name: "TestWebD", Kind: catalog.Live},
		{Package: "coldstart", Name: "TestE", Kind: catalog.Both, Runtimes: []string{catalog.Go}},
	})
	assert.Equal(t, []suite{
		{kind: "node", pkg: "./experiments/eventloop", tests: []string{"TestA", "TestB", "TestC"}, skip: "^(TestA|TestC)$/^go$"},
		{kind: "go", pkg: "./experiments/eventloop", tests: []string{"TestA", "TestC"}, skip: "^(TestA|TestC)$/^node$"},
		{kind: "go", pkg: "./experiments/coldstart", tests: []string{"TestE"}},
	}, got)
	one := suitesOf([]catalog.Test{{Package: "eventloop", Name: "TestPingOnlyBaseline", Kind: catalog.Local, Runtimes: []string{catalog.Node, catalog.Go}}})
	require.Len(t, one, 2)
	assert.Equal(t, "^TestPingOnlyBaseline$/^go$", one[0].skip, "the node suite's skip of one test with a go subtest")
}

// TestMergeLaysOutFunctionColumnsAmongTheGoClaims merges a Go toolchain's shard and the function
// languages' as CI's jobs leave them: each language is a column of its own among the Go claims',
// its cell of T1 the verdict of that language's subtest, beside the Go function's on the Go column.
func TestMergeLaysOutFunctionColumnsAmongTheGoClaims(t *testing.T) {
	dir := t.TempDir()
	goLocal := report.Column{Name: "go1.26.8", Kind: "go", Runtime: "Go go1.26.8", Source: "the machine's go"}
	rust := report.Column{Name: "function-rust", Kind: "go", Runtime: "function rust", Source: "the function's language"}
	python := report.Column{Name: "function-python", Kind: "go", Runtime: "function python", Source: "the function's language"}
	writeShard(t, dir, shardRecord{Shard: "function:python", Column: &python})
	writeShard(t, dir, shardRecord{Shard: "function:node", Skipped: &report.SkippedRun{Runtime: "function node", Reason: "no go"}})
	writeShard(t, dir, shardRecord{Shard: "function:rust", Column: &rust})
	writeShard(t, dir, shardRecord{Shard: "go:go1.27.3", Skipped: &report.SkippedRun{Runtime: "Go go1.27.3", Reason: "no network"}})
	writeShard(t, dir, shardRecord{Shard: "go:local", Column: &goLocal})
	writeResult(t, dir, goLocal.Name, "coldstart", "TestFirstCallDominatedByTLS/go", "T1", verdict.Pass)
	writeResult(t, dir, rust.Name, "coldstart", "TestFirstCallDominatedByTLS/rust", "T1", verdict.Pass)
	writeResult(t, dir, python.Name, "coldstart", "TestFirstCallDominatedByTLS/python", "T1", verdict.Fail)

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), options{dir: dir, merge: true, out: &out}))
	m := readMatrix(t, dir)
	goColumns := m.KindColumns(catalog.Go)
	assert.ElementsMatch(t, []report.Column{goLocal, rust, python}, goColumns, "the Go claims' columns: the toolchain's and the languages'")
	var languages []string
	for _, c := range goColumns {
		if l, ok := strings.CutPrefix(c.Name, "function-"); ok {
			languages = append(languages, l)
		}
	}
	assert.Equal(t, []string{"rust", "python"}, languages, "the function columns = %v; want the catalog's order", languages)
	assert.Equal(t, []report.SkippedRun{
		{Runtime: "Go go1.27.3", Reason: "no network"},
		{Runtime: "function node", Reason: "no go"},
	}, m.Skipped, "skipped: Go's, then the functions', whatever the descriptors' file names")

	rows := m.KindRows(catalog.Go)
	require.Len(t, rows, 1, "rows: T1 among the Go claims")
	cells := map[string]report.MatrixCell{}
	for _, c := range rows[0].Cells {
		cells[c.Column] = c
	}
	for col, want := range map[string]verdict.Outcome{goLocal.Name: verdict.Pass, rust.Name: verdict.Pass, python.Name: verdict.Fail} {
		assert.Equal(t, want, cells[col].Outcome, "T1's cell in %s", col)
		if assert.Len(t, cells[col].Results, 1, "T1's results in %s", col) {
			assert.FileExists(t, filepath.Join(dir, filepath.FromSlash(cells[col].Results[0].Path)), "T1's result in %s", col)
		}
	}
	assert.True(t, rows[0].Differs(), "T1's row, pass in Rust and fail in Python = the same; want it marked as differing: %v", rows[0].Changes)

	md, err := os.ReadFile(filepath.Join(dir, "matrix.md"))
	require.NoError(t, err)
	for _, want := range []string{" function rust |", " function python |", "(matrix/function-rust/coldstart/"} {
		assert.Contains(t, string(md), want, "matrix.md")
	}
}

// TestFunctionShardIsItsLanguageOnTheMachinesGo: a function language's shard is a column among
// the Go claims' named by the language, run on the machine's go whatever -go names.
func TestFunctionShardIsItsLanguageOnTheMachinesGo(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	var out bytes.Buffer
	rec, env := resolveShard(t.Context(), root, nil, options{goes: []string{"go1.27.3"}, out: &out}, shard{kind: functionKind, arg: "rust"})
	require.NotNil(t, rec.Column, "function:rust's column = none; want one (skipped: %+v, output:\n%s)", rec.Skipped, out.String())
	c := *rec.Column
	assert.Equal(t, "function:rust", rec.Shard)
	assert.Equal(t, "function-rust", c.Name, "its folder under %s", results.MatrixDir)
	assert.Equal(t, catalog.Go, c.Kind, "its column's kind: the cold-start claims are Go claims")
	assert.Equal(t, "function rust", c.Runtime, "its runtime, as the matrix heads its column")
	assert.Contains(t, c.Source, "the function's language")
	assert.Contains(t, c.Source, "the machine's go go1.")
	assert.Equal(t, []string{"GOTOOLCHAIN=local"}, env, "function:rust's environment")
}

// TestSuitesOfFunctionsRunOneLanguageEach: a test with a function per language runs in the Go
// suite with the other languages' subtests skipped, and in a suite per other language.
func TestSuitesOfFunctionsRunOneLanguageEach(t *testing.T) {
	got := suitesOf([]catalog.Test{
		{Package: "coldstart", Name: "TestA", Kind: catalog.Both, Runtimes: []string{catalog.Go}, Functions: catalog.FunctionLanguages},
		{Package: "coldstart", Name: "TestB", Kind: catalog.Both, Runtimes: []string{catalog.Go}},
		{Package: "coldstart", Name: "TestC", Kind: catalog.Local, Runtimes: []string{catalog.Go}, Functions: []string{catalog.Go, "python"}},
		{Package: "coldstart", Name: "TestD", Kind: catalog.Local, Runtimes: []string{catalog.Go}, Functions: []string{catalog.Go}},
	})
	assert.Equal(t, []suite{
		{kind: "go", pkg: "./experiments/coldstart", tests: []string{"TestA", "TestB", "TestC", "TestD"}, skip: "^(TestA|TestC)$/^(rust|node|python)$"},
		{kind: "function", language: "rust", pkg: "./experiments/coldstart", tests: []string{"TestA"}},
		{kind: "function", language: "node", pkg: "./experiments/coldstart", tests: []string{"TestA"}},
		{kind: "function", language: "python", pkg: "./experiments/coldstart", tests: []string{"TestA", "TestC"}},
	}, got)
}

// TestFunctionShardRunsExactlyItsLanguagesSubtests: go test's arguments of each function shard
// are its language's subtests of the catalog's tests with that function, and the Go shards'
// skip every other language's.
func TestFunctionShardRunsExactlyItsLanguagesSubtests(t *testing.T) {
	var withFunctions, all []string
	for _, ct := range catalog.Tests() {
		if ct.Package != "coldstart" || len(ct.Runtimes) == 0 {
			continue
		}
		all = append(all, ct.Name)
		if len(ct.Functions) > 0 {
			require.Equal(t, catalog.FunctionLanguages, ct.Functions, "%s functions", ct.Name)
			withFunctions = append(withFunctions, ct.Name)
		}
	}
	require.NotEmpty(t, withFunctions, "coldstart's tests with a function per language")
	of := func(s shard) []suite {
		var out []suite
		for _, su := range suites {
			if su.runs(s) {
				out = append(out, su)
			}
		}
		return out
	}
	for _, l := range FunctionLanguages {
		ss := of(shard{kind: functionKind, arg: l})
		require.Len(t, ss, 1, "function:%s's suites", l)
		got := ss[0].testArgs(ss[0].tests)
		want := []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", "^(" + strings.Join(withFunctions, "|") + ")$/^" + l + "$", "./experiments/coldstart"}
		assert.Equal(t, want, got, "function:%s's go test = %q; want %q", l, got, want)
		got = ss[0].testArgs(ss[0].selected([]string{"TestFirstCallDominatedByTLS"}))
		want = []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", "^(TestFirstCallDominatedByTLS)$/^" + l + "$", "./experiments/coldstart"}
		assert.Equal(t, want, got, "function:%s's go test of -tests TestFirstCallDominatedByTLS = %q; want %q", l, got, want)
	}
	var goColdstart *suite
	for _, s := range of(shard{kind: catalog.Go, arg: localGo}) {
		if s.pkg == "./experiments/coldstart" {
			goColdstart = &s
		}
	}
	require.NotNil(t, goColdstart, "the Go shards' coldstart suite")
	got := goColdstart.testArgs(goColdstart.tests)
	want := []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", "^(" + strings.Join(all, "|") + ")$",
		"-skip", "^(" + strings.Join(withFunctions, "|") + ")$/^(rust|node|python)$", "./experiments/coldstart"}
	assert.Equal(t, want, got, "go:local's coldstart go test = %q; want %q", got, want)
}

// goTestRuns says whether go test -run run -skip skip runs the test or subtest name, matching
// level by level as the testing package does: a test runs where it and each of its parents match
// -run's levels that there are (a parent runs for its subtests to be matched), and none matches
// every level of -skip.
func goTestRuns(run, skip, name string) bool {
	// matches says whether pattern's levels match the first levels of elems, and whether they
	// were all of pattern's (not partial).
	matches := func(pattern string, elems []string) (ok, whole bool) {
		levels := strings.Split(pattern, "/")
		for i, e := range elems {
			if i < len(levels) && !regexp.MustCompile(levels[i]).MatchString(e) {
				return false, false
			}
		}
		return true, len(levels) <= len(elems)
	}
	elems := strings.Split(name, "/")
	for i := range elems {
		if ok, _ := matches(run, elems[:i+1]); !ok {
			return false
		}
		if ok, whole := matches(skip, elems[:i+1]); skip != "" && ok && whole {
			return false
		}
	}
	return true
}

func TestGoTestRunsMatchesAsGoTestDoes(t *testing.T) {
	for _, c := range []struct {
		run, skip, name string
		want            bool
	}{
		{"^(TestA|TestB)$/^rust$", "", "TestA", true}, // the parent runs, for its subtests
		{"^(TestA|TestB)$/^rust$", "", "TestA/rust", true},
		{"^(TestA|TestB)$/^rust$", "", "TestA/rust/cpu=1", true},
		{"^(TestA|TestB)$/^rust$", "", "TestA/go", false},
		{"^(TestA|TestB)$/^rust$", "", "TestC/rust", false},
		{"^(TestA)$", "^(TestA)$/^(rust|node)$", "TestA", true},
		{"^(TestA)$", "^(TestA)$/^(rust|node)$", "TestA/go", true},
		{"^(TestA)$", "^(TestA)$/^(rust|node)$", "TestA/node", false},
		{"^(TestA)$", "^(TestA)$/^(rust|node)$", "TestA/node/cpu=1", false},
	} {
		assert.Equal(t, c.want, goTestRuns(c.run, c.skip, c.name), "go test -run %q -skip %q runs %s", c.run, c.skip, c.name)
	}
}

// TestEachSubtestRunsInOneKindOfColumn: every claim test of the matrix, and each of its subtests
// named by a runtime or a function's language, runs in the columns of one kind only (each Node
// version's, each Go toolchain's, or one function language's), so that no two kinds of column
// decide the same subtest.
func TestEachSubtestRunsInOneKindOfColumn(t *testing.T) {
	for _, ct := range catalog.Tests() {
		if ct.Kind == catalog.Live || len(ct.Runtimes) == 0 {
			continue
		}
		want := map[string]string{} // subtest: the kind of column that runs it
		switch {
		case len(ct.Functions) > 0:
			for _, l := range ct.Functions {
				kind := "function:" + l
				if l == catalog.Go {
					kind = catalog.Go
				}
				want[ct.Name+"/"+l] = kind
				want[ct.Name+"/"+l+"/cpu=1"] = kind
			}
		case len(ct.Runtimes) > 1:
			for _, r := range ct.Runtimes {
				want[ct.Name+"/"+r] = r
			}
		default:
			want[ct.Name] = ct.Runtimes[0]
			want[ct.Name+"/cpu=1"] = ct.Runtimes[0]
		}
		for name, kind := range want {
			var ranIn []string
			for _, s := range suites {
				if s.pkg != "./experiments/"+ct.Package || !slices.Contains(s.tests, ct.Name) || !goTestRuns(s.runPattern(s.tests), s.skip, name) {
					continue
				}
				in := s.kind
				if s.kind == functionKind {
					in += ":" + s.language
				}
				ranIn = append(ranIn, in)
			}
			assert.Equal(t, []string{kind}, ranIn, "%s runs in the columns of %v; want %s's only", name, ranIn, kind)
		}
	}
}
