package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunWritesEachFunctionWithItsSum: each function's zip lands at .cache/package/<arch>/<name>.zip
// and the printed size and SHA-256 are those of the file written.
func TestRunWritesEachFunctionWithItsSum(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(root, "x86_64", &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, len(functions), "output:\n%s", out.String())
	for i, name := range []string{"getitem", "throttle"} {
		rel := filepath.Join(".cache", "package", "x86_64", name+".zip")
		data, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		want := fmt.Sprintf("%s\t%d bytes\tsha256 %s", rel, len(data), hex.EncodeToString(sum[:]))
		assert.Equal(t, want, lines[i], "line %d = %q; want %q (the file written)", i, lines[i], want)
	}
}

func TestRunRefusesAnUnknownArchitecture(t *testing.T) {
	root := t.TempDir()
	err := run(root, "amd64", &bytes.Buffer{})
	assert.ErrorContains(t, err, `"amd64"`)
	_, statErr := os.Stat(filepath.Join(root, ".cache"))
	assert.True(t, os.IsNotExist(statErr), "nothing may be written for a refused architecture")
}
