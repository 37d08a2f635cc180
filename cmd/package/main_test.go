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

// TestRunWritesEachFunctionWithItsSum: each function's zip lands at .cache/package/<arch>/<name>.zip,
// each Web Function bundle at .cache/package/web/<bundle>.zip, and the printed size and SHA-256
// are those of the file written.
func TestRunWritesEachFunctionWithItsSum(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	// Two of the functions: each is built as every other is (lambdazip's tests build each
	// language), and compressing the others' bundles would only add time.
	pkgs := []string{"functions/getitem", "functions/throttle"}
	require.NoError(t, runFor(root, "x86_64", pkgs, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		filepath.Join(".cache", "package", "x86_64", "getitem.zip"),
		filepath.Join(".cache", "package", "x86_64", "throttle.zip"),
		filepath.Join(".cache", "package", "web", "node-probe.zip"),
		filepath.Join(".cache", "package", "web", "go-probe.zip"),
	}
	require.Len(t, lines, len(want), "output:\n%s", out.String())
	for i, rel := range want {
		data, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		line := fmt.Sprintf("%s\t%d bytes\tsha256 %s", rel, len(data), hex.EncodeToString(sum[:]))
		assert.Equal(t, line, lines[i], "line %d = %q; want %q (the file written)", i, lines[i], line)
	}

	// A second run writes the very same bundles.
	first, err := os.ReadFile(filepath.Join(root, want[len(want)-1]))
	require.NoError(t, err)
	var again bytes.Buffer
	require.NoError(t, runFor(root, "x86_64", pkgs, &again))
	second, err := os.ReadFile(filepath.Join(root, want[len(want)-1]))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(first, second), "go-probe.zip differs between two runs")
	assert.Equal(t, out.String(), again.String(), "the second run printed other sums")
}

func TestRunRefusesAnUnknownArchitecture(t *testing.T) {
	root := t.TempDir()
	err := run(root, "amd64", &bytes.Buffer{})
	assert.ErrorContains(t, err, `"amd64"`)
	_, statErr := os.Stat(filepath.Join(root, ".cache"))
	assert.True(t, os.IsNotExist(statErr), "nothing may be written for a refused architecture")
}

// TestDeployedIsEveryLanguagesGetItemAndThrottle: the live mode deploys the GetItem function in
// each language and T8's busy loop, and package writes each of them.
func TestDeployedIsEveryLanguagesGetItemAndThrottle(t *testing.T) {
	assert.Equal(t, []string{"functions/getitem", "functions/getitem-rust", "functions/getitem-node", "functions/getitem-python", "functions/throttle"}, deployed())
}

// TestBuildableNamesWhatCannotBeBuilt: a folder that is no function is named before any build;
// the Go function can be built for either architecture.
func TestBuildableNamesWhatCannotBeBuilt(t *testing.T) {
	err := buildable([]string{"functions/getitem", "functions/no-such-function"}, "x86_64")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "functions/no-such-function cannot be built for x86_64")
	assert.NotContains(t, err.Error(), "functions/getitem cannot")
	assert.NoError(t, buildable([]string{"functions/getitem"}, "arm64"))
}
