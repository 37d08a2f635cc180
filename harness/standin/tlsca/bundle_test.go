package tlsca

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verifies says whether a leaf of ca, for localhost, verifies against the bundle at path.
func verifies(t *testing.T, path string, ca *CA) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(data), "the bundle holds no certificate")
	cert, err := x509.ParseCertificate(leaf(t, ca, DefaultKeyKind, "localhost").Certificate[0])
	require.NoError(t, err)
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"})
	return err == nil
}

func TestBundleIsTheSystemsRootsAndTheCA(t *testing.T) {
	dir := t.TempDir()
	other1, other2, ca := newCA(t, ""), newCA(t, RSA2048), newCA(t, "")
	system := filepath.Join(dir, "system.pem")
	// No newline at the end: the CA must still start on a line of its own.
	require.NoError(t, os.WriteFile(system, append(other1.PEM(), other2.PEM()[:len(other2.PEM())-1]...), 0o600))

	b, err := ca.WriteBundle(filepath.Join(dir, "bundle.pem"), []string{filepath.Join(dir, "missing.pem"), system})
	require.NoError(t, err)
	assert.Equal(t, system, b.System, "System = %q; want the first file that exists, %q", b.System, system)
	assert.Equal(t, 2, b.SystemCerts, "SystemCerts = %d; want 2", b.SystemCerts)
	for name, c := range map[string]*CA{"the CA": ca, "the first system root": other1, "the second system root": other2} {
		assert.True(t, verifies(t, b.Path, c), "a leaf of %s does not verify against the bundle; want it to", name)
	}
	assert.False(t, verifies(t, b.Path, newCA(t, "")), "a leaf of an unrelated CA verifies against the bundle; want refused")
}

func TestBundleWithoutSystemRootsIsTheCA(t *testing.T) {
	ca := newCA(t, "")
	b, err := ca.WriteBundle(filepath.Join(t.TempDir(), "bundle.pem"), []string{"/nonexistent/roots.pem"})
	require.NoError(t, err)
	assert.Empty(t, b.System, "System = %q; want empty, there is none", b.System)
	assert.Zero(t, b.SystemCerts, "SystemCerts = %d; want 0", b.SystemCerts)
	assert.True(t, verifies(t, b.Path, ca), "a leaf of the CA does not verify against the bundle")
}

func TestBundleRefusesASystemFileWithoutCertificates(t *testing.T) {
	dir := t.TempDir()
	system := filepath.Join(dir, "system.pem")
	require.NoError(t, os.WriteFile(system, []byte("not a bundle\n"), 0o600))
	_, err := newCA(t, "").WriteBundle(filepath.Join(dir, "bundle.pem"), []string{system})
	assert.ErrorContains(t, err, system, "error = %v; want one naming %s", err, system)
}
