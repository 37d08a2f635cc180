package repo

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRootHoldsGoMod(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "go.mod"))
}

func TestPathIsBelowTheRoot(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	p, err := Path("harness/sys/repo/repo.go")
	require.NoError(t, err)
	want := filepath.Join(root, "harness", "sys", "repo", "repo.go")
	assert.Equal(t, want, p, "Path = %s; want %s", p, want)
	assert.FileExists(t, p)
}
