package runtimes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "go.mod"))
}

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

func TestBuildGoOncePerBinary(t *testing.T) {
	a, err := BuildGo("testdata/probes/go")
	require.NoError(t, err)
	b, err := BuildGo("testdata/probes/go")
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.FileExists(t, a)

	v, err := BuildGo("testdata/probes/go", "brokenserialize")
	require.NoError(t, err)
	assert.NotEqual(t, a, v, "a variant must not overwrite the built-in probe")
}
