package runtimes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindNodeHonoursCLAIMS_NODE(t *testing.T) {
	own, err := PathNode()
	if err != nil {
		t.Skip("no node on PATH to point CLAIMS_NODE at: ", err)
	}
	t.Setenv("CLAIMS_NODE", own.Path)
	n, err := FindNode()
	require.NoError(t, err)
	assert.Equal(t, own.Version, n.Version)
	assert.Equal(t, "CLAIMS_NODE", n.Source)
	assert.Regexp(t, `^v\d+\.\d+\.\d+$`, n.Version)
	assert.Positive(t, n.Major)
}

func TestFindNodeRefusesABadCLAIMS_NODE(t *testing.T) {
	t.Setenv("CLAIMS_NODE", filepath.Join(t.TempDir(), "no-node"))
	_, err := FindNode()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CLAIMS_NODE", "the error must name the variable")

	notNode := filepath.Join(t.TempDir(), "fake-node")
	require.NoError(t, os.WriteFile(notNode, []byte("#!/bin/sh\necho hello\n"), 0o755))
	t.Setenv("CLAIMS_NODE", notNode)
	_, err = FindNode()
	assert.ErrorContains(t, err, "not its versions")
}

func TestNodeRuntimesAddsTheMachinesNodeOnlyWhenItsMajorDiffers(t *testing.T) {
	own, err := PathNode()
	if err != nil {
		t.Skip("no node on PATH: ", err)
	}
	t.Setenv("CLAIMS_NODE", own.Path) // the first runtime is then the machine's own
	nodes, err := NodeRuntimes()
	require.NoError(t, err)
	assert.Len(t, nodes, 1, "the same major twice is no comparison")

	// A fake node of another major version stands first; the machine's own must follow it.
	fake := fakeNode999(t)
	t.Setenv("CLAIMS_NODE", fake)
	nodes, err = NodeRuntimes()
	require.NoError(t, err)
	require.Len(t, nodes, 2)
	assert.Equal(t, 999, nodes[0].Major)
	assert.Equal(t, own.Version, nodes[1].Version)
}

func TestChosenNodeRuntimesKeepsTheFirstOrAll(t *testing.T) {
	own, err := PathNode()
	if err != nil {
		t.Skip("no node on PATH: ", err)
	}
	fake := fakeNode999(t)
	t.Setenv("CLAIMS_NODE", fake)

	// How many runtimes each value gives a claim, and a claim decided across runtimes.
	for _, c := range []struct {
		value          string
		chosen, across int
	}{{"", 2, 2}, {"all", 2, 2}, {"first", 1, 2}, {"only", 1, 1}} {
		t.Setenv(NodeRuntimesEnv, c.value)
		nodes, err := ChosenNodeRuntimes()
		require.NoError(t, err)
		assert.Len(t, nodes, c.chosen, "%s=%q: runtimes of a claim", NodeRuntimesEnv, c.value)
		assert.Equal(t, 999, nodes[0].Major, "%s=%q: the first must be FindNode's, not the machine's %s", NodeRuntimesEnv, c.value, own.Version)
		across, err := AcrossNodeRuntimes()
		require.NoError(t, err)
		assert.Len(t, across, c.across, "%s=%q: runtimes of a claim decided across them", NodeRuntimesEnv, c.value)
	}

	t.Setenv(NodeRuntimesEnv, "20")
	_, err = ChosenNodeRuntimes()
	assert.ErrorContains(t, err, NodeRuntimesEnv, "a value other than all, first or only must be refused, naming the variable")
	_, err = AcrossNodeRuntimes()
	assert.ErrorContains(t, err, NodeRuntimesEnv)
}

// fakeNode999 writes a stand-in node binary that reports itself as Node 999, a major no machine
// has, and returns its path.
func fakeNode999(t *testing.T) string {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "node")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho v999.0.0 3.0.0 1.0.0\n"), 0o755))
	return fake
}
