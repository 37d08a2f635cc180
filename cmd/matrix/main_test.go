package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/report"
)

// TestMatrixRunsEachRuntimeAndSkipsOneThatCannotInstall runs P5's test, the fastest claim, through
// the whole matrix: Node 24 (which `make setup` installed, so nothing is fetched), the machine's
// node, and a version whose install fails as npm fails for a version that does not exist.
func TestMatrixRunsEachRuntimeAndSkipsOneThatCannotInstall(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(runtimes.Node24Dir))); err != nil {
		t.Skipf("Node %s is not installed in %s: run `make setup`", provision.Node24Version, runtimes.Node24Dir)
	}
	own, err := runtimes.PathNode()
	if err != nil {
		t.Skip("no node on PATH: ", err)
	}
	notFound := errors.New("npm error 404: No match found for version 99.0.0")
	var out bytes.Buffer
	o := options{
		dir: t.TempDir(), node: []string{provision.Node24Version, "99.0.0"}, tests: []string{"TestPoolSizeFromInsideProgram"}, out: &out,
		provisioner: &provision.Provisioner{Root: root, Out: &out, Run: func(cmd *exec.Cmd) error {
			if slices.Contains(cmd.Args, provision.Node24Package+"@99.0.0") {
				return notFound
			}
			return errors.New("unexpected install: " + strings.Join(cmd.Args, " "))
		}},
	}
	require.NoError(t, run(t.Context(), o), "matrix run (output:\n%s)", out.String())

	m, ok, err := report.ReadMatrix(o.dir)
	require.NoError(t, err)
	require.True(t, ok, "the run wrote no %s", report.MatrixFile)
	assert.FileExists(t, filepath.Join(o.dir, "matrix.md"))
	require.Len(t, m.Skipped, 1, "skipped runtimes")
	assert.Equal(t, "Node 99.0.0", m.Skipped[0].Runtime, "the runtime that failed to install, named")
	assert.Contains(t, m.Skipped[0].Reason, "installing Node 99.0.0")
	assert.Contains(t, m.Skipped[0].Reason, notFound.Error(), "the reason keeps npm's own")

	var row report.MatrixRow
	for _, r := range m.Rows {
		if r.Claim == "P5" {
			row = r
		}
	}
	require.Equal(t, "P5", row.Claim, "no P5 row in %+v", m.Rows)
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
}

func TestFlagsThatMakeNoSenseAreRefused(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{goes: []string{"1.27.3"}}, `-go "1.27.3": want local or a toolchain as go1.27.3`},
		{options{goes: []string{"local"}, tests: []string{"TestCatchesBrokenLabs"}}, `-tests: "TestCatchesBrokenLabs" is not a claim test of the matrix`},
	} {
		assert.ErrorContains(t, run(t.Context(), c.o), c.want)
	}
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
