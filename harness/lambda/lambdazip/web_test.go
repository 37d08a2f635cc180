package lambdazip

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// zipEntry is what a test reads back of one entry.
type zipEntry struct {
	Name string
	Mode os.FileMode
	Data []byte
}

// readZip reads every entry of a zip, checking the fixed date and method on the way.
func readZip(t *testing.T, data []byte) []zipEntry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var out []zipEntry
	for _, f := range zr.File {
		assert.Equal(t, zip.Deflate, f.Method, "%s: method = %d; want deflate", f.Name, f.Method)
		assert.True(t, f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)), "%s: modified = %v; want 1980-01-01", f.Name, f.Modified)
		rc, err := f.Open()
		require.NoError(t, err)
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		out = append(out, zipEntry{f.Name, f.Mode(), b.Bytes()})
	}
	return out
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// TestZipSortsAndFixesEverythingButTheBytes: the same files in another order, with other file
// times and modes on disk, give the same zip, its entries sorted with the modes asked for.
func TestZipSortsAndFixesEverythingButTheBytes(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", "alpha")
	b := writeFile(t, dir, "b", "beta")
	first, err := Zip([]Entry{{Name: "z/b", Mode: 0o755, Path: b}, {Name: "a.js", Mode: 0o644, Path: a}})
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(a, time.Now(), time.Now().Add(-time.Hour)))
	require.NoError(t, os.Chmod(b, 0o700))
	second, err := Zip([]Entry{{Name: "a.js", Mode: 0o644, Path: a}, {Name: "z/b", Mode: 0o755, Path: b}})
	require.NoError(t, err)
	assert.True(t, bytes.Equal(first, second), "a second zip of the same files differs (%d and %d bytes)", len(first), len(second))
	assert.Equal(t, []zipEntry{{"a.js", 0o644, []byte("alpha")}, {"z/b", 0o755, []byte("beta")}}, readZip(t, first))
}

func TestZipRefusesBadEntries(t *testing.T) {
	p := writeFile(t, t.TempDir(), "f", "x")
	for name, tc := range map[string]struct {
		entries []Entry
		want    string
	}{
		"mode":      {[]Entry{{Name: "f", Mode: 0o600, Path: p}}, "mode 0600"},
		"absolute":  {[]Entry{{Name: "/f", Mode: 0o644, Path: p}}, `"/f"`},
		"dotdot":    {[]Entry{{Name: "../f", Mode: 0o644, Path: p}}, `"../f"`},
		"twice":     {[]Entry{{Name: "f", Mode: 0o644, Path: p}, {Name: "f", Mode: 0o755, Path: p}}, "named twice"},
		"no source": {[]Entry{{Name: "f", Mode: 0o644, Path: p + ".missing"}}, `"f"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Zip(tc.entries)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestWebBundlesAreReproducible builds each Web Function bundle twice into different folders
// and wants the same bytes and SHA-256, with the entries the runtime and the launcher look for.
func TestWebBundlesAreReproducible(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	launcher, err := os.ReadFile(filepath.Join(root, "testdata/probes/go/index.js"))
	require.NoError(t, err)
	nodeProbe, err := os.ReadFile(filepath.Join(root, "testdata/probes/node/index.js"))
	require.NoError(t, err)
	for _, name := range WebBundles {
		t.Run(name, func(t *testing.T) {
			var ps [2]Package
			for i := range ps {
				ps[i], err = buildWeb(root, t.TempDir(), name)
				require.NoError(t, err)
			}
			a, err := ps[0].Bytes()
			require.NoError(t, err)
			b, err := ps[1].Bytes()
			require.NoError(t, err)
			assert.True(t, bytes.Equal(a, b), "second build = %s; want the first's %s", ps[1].SHA256, ps[0].SHA256)
			assert.Equal(t, ps[0].SHA256, ps[1].SHA256)
			sum := sha256.Sum256(a)
			assert.Equal(t, hex.EncodeToString(sum[:]), ps[0].SHA256, "SHA256 = %s; want the sum of the zip's bytes", ps[0].SHA256)
			assert.Equal(t, "web-"+name+".zip", filepath.Base(ps[0].Path))
			assert.Equal(t, ARM64, ps[0].Arch)

			entries := readZip(t, a)
			if name == NodeProbeBundle {
				assert.Equal(t, []zipEntry{{"index.js", 0o644, nodeProbe}}, entries)
				return
			}
			require.Len(t, entries, 2, "entries = %v; want index.js and probe", entries)
			assert.Equal(t, zipEntry{"index.js", 0o644, launcher}, entries[0])
			assert.Equal(t, "probe", entries[1].Name)
			assert.Equal(t, os.FileMode(0o755), entries[1].Mode, "probe's mode = %v; want -rwxr-xr-x", entries[1].Mode)
			head := entries[1].Data[:20]
			assert.Equal(t, []byte("\x7fELF"), head[:4], "probe starts %q; want an ELF binary", head[:4])
			// e_machine, little-endian at offset 18: 0xb7 is AArch64.
			assert.Equal(t, byte(0xb7), head[18], "ELF machine = %#x; want AArch64 (0xb7)", head[18])
		})
	}
	_, err = buildWeb(root, t.TempDir(), "python")
	assert.ErrorContains(t, err, `"python"`)
}
