package family

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinksNoSDKAndNoTesting keeps the package light for a reader (cmd/report): no SDK and no
// testing among its dependencies (which packages of the harness it may import, docs/layout.md's
// import order says); and results/family/getitem and results/family/throttle, which the
// functions answer with, import nothing at all.
func TestLinksNoSDKAndNoTesting(t *testing.T) {
	for _, answer := range []string{"getitem", "throttle"} {
		fn, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", "./"+answer).Output()
		require.NoError(t, err, "go list ./%s", answer)
		assert.Empty(t, strings.TrimSpace(string(fn)), "results/family/%s imports %s; want nothing, to keep functions/%s's binary as it was", answer, fn, answer)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	for _, dep := range strings.Fields(string(out)) {
		assert.NotEqual(t, "testing", dep, "results/family depends on testing; want a package a reader links")
		assert.NotContains(t, dep, "aws-sdk-go", "results/family depends on %s; want no SDK", dep)
	}
}

// RoundTripDirEnv names a results folder whose every result TestResultsRoundTrip decodes into
// the family types and encodes again, wanting the bytes written: that the writers' JSON is these
// types' (names, order, omitempty). Results written before a change of a family's type differ
// from it, so the check runs only where asked, on a folder of one run.
const RoundTripDirEnv = "CLAIMS_ROUNDTRIP_DIR"

func TestResultsRoundTrip(t *testing.T) {
	dir := os.Getenv(RoundTripDirEnv)
	if dir == "" {
		t.Skipf("%s not set: no results folder to read back", RoundTripDirEnv)
	}
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" || strings.Contains(p, string(filepath.Separator)+"schema"+string(filepath.Separator)) || filepath.Base(p) == "matrix.json" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		assert.NoError(t, RoundTrip(data), "%s", p)
		return nil
	}))
	require.Positive(t, n, "no result files under %s", dir)
	t.Logf("%d results read back as written", n)
}
