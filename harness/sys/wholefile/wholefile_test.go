package wholefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWholeAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	require.NoError(t, Write(path, []byte("old\n")))
	require.NoError(t, Write(path, []byte("new\n")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got))
	left, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, left, 1, "files in the folder = %v; want only f.json", left)
}

func TestAFailedWriteChangesNothing(t *testing.T) {
	dir := t.TempDir()
	// A folder where the file should go: the rename fails after the data was written.
	path := filepath.Join(dir, "f.json")
	require.NoError(t, os.MkdirAll(filepath.Join(path, "inside"), 0o755))
	assert.Error(t, Write(path, []byte("new\n")), "Write over a non-empty folder = nil error; want the rename refused")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	if assert.Len(t, left, 1, "files in the folder = %v; want only f.json, no temporary file", left) {
		assert.True(t, left[0].IsDir(), "f.json is no longer the folder it was")
	}
}
