package tlsca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve starts a TLS server on a loopback port with cert and returns its address. Each accepted
// connection is handshaken, sent "ok" and closed; the handshake's error, nil or not, goes to the
// returned channel, so a test can see the server's side of a refusal too.
func serve(t *testing.T, cert tls.Certificate) (addr string, handshakes <-chan error) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	errs := make(chan error, 16)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			tc := conn.(*tls.Conn)
			_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
			err = tc.Handshake()
			if err == nil {
				_, err = tc.Write([]byte("ok"))
			}
			_ = tc.Close()
			errs <- err
		}
	}()
	return ln.Addr().String(), errs
}

// dial handshakes with addr as a client with the given roots and server name and returns the
// connection state and the error.
func dial(t *testing.T, addr, serverName string, roots *x509.CertPool) (tls.ConnectionState, error) {
	t.Helper()
	d := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: 10 * time.Second},
		Config:    &tls.Config{RootCAs: roots, ServerName: serverName},
	}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer func() { _ = conn.Close() }()
	tc := conn.(*tls.Conn)
	buf := make([]byte, 2)
	_ = tc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := tc.Read(buf); err != nil {
		return tc.ConnectionState(), err
	}
	return tc.ConnectionState(), nil
}

func newCA(t *testing.T, kind KeyKind) *CA {
	t.Helper()
	ca, err := New(kind)
	require.NoError(t, err)
	return ca
}

func leaf(t *testing.T, ca *CA, kind KeyKind, hosts ...string) tls.Certificate {
	t.Helper()
	cert, err := ca.Leaf(kind, hosts...)
	require.NoError(t, err)
	return cert
}

func TestClientTrustingPoolAcceptsLeaf(t *testing.T) {
	for _, kind := range KeyKinds() {
		t.Run(string(kind), func(t *testing.T) {
			ca := newCA(t, kind)
			addr, handshakes := serve(t, leaf(t, ca, kind, "127.0.0.1", "localhost"))

			// The IP SAN: the name a client derives from "127.0.0.1:PORT" when it sets none.
			state, err := dial(t, addr, "", ca.Pool())
			require.NoError(t, err, "client trusting the pool, server name from the address")
			require.NoError(t, <-handshakes, "server side")
			require.NotEmpty(t, state.VerifiedChains, "the chain must have been verified, not skipped")
			chain := state.VerifiedChains[0]
			assert.Len(t, chain, 2, "leaf and root")
			assert.True(t, chain[len(chain)-1].Equal(ca.Cert), "the chain ends at the CA")

			// The DNS SAN, the name an SDK uses for an endpoint URL such as https://localhost:PORT.
			_, err = dial(t, addr, "localhost", ca.Pool())
			require.NoError(t, err, "client trusting the pool, server name localhost")
			require.NoError(t, <-handshakes, "server side")
		})
	}
}

func TestClientWithoutPoolIsRefused(t *testing.T) {
	ca := newCA(t, "")
	addr, handshakes := serve(t, leaf(t, ca, "", "127.0.0.1"))

	// nil RootCAs is what a client gets by default: the system's roots, which cannot hold a CA
	// made a moment ago.
	_, err := dial(t, addr, "", nil)
	var unknown x509.UnknownAuthorityError
	require.ErrorAs(t, err, &unknown, "client with the system roots")
	assert.Error(t, <-handshakes, "the server sees the client's refusal")

	// Another run's CA is no better: trust is per CA, not per package.
	other := newCA(t, "")
	_, err = dial(t, addr, "", other.Pool())
	require.ErrorAs(t, err, &unknown, "client trusting another CA")
	assert.Error(t, <-handshakes)
}

func TestLeafRefusedForAnotherHost(t *testing.T) {
	ca := newCA(t, "")
	addr, handshakes := serve(t, leaf(t, ca, "", "127.0.0.1"))

	_, err := dial(t, addr, "dynamodb.us-east-1.amazonaws.com", ca.Pool())
	var wrongHost x509.HostnameError
	require.ErrorAs(t, err, &wrongHost, "a leaf for 127.0.0.1 must not pass for a real endpoint")
	assert.Error(t, <-handshakes)
}

func TestPEMIsTheCACertificate(t *testing.T) {
	ca := newCA(t, "")
	block, rest := pem.Decode(ca.PEM())
	require.NotNil(t, block, "PEM() = %q; want a PEM block", ca.PEM())
	assert.Equal(t, "CERTIFICATE", block.Type)
	assert.Equal(t, ca.Cert.Raw, block.Bytes)
	assert.Empty(t, rest, "one certificate, nothing after it")

	// The route a client outside the process takes: a pool read from the PEM file's bytes.
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(ca.PEM()))
	addr, handshakes := serve(t, leaf(t, ca, "", "127.0.0.1"))
	_, err := dial(t, addr, "", roots)
	require.NoError(t, err)
	require.NoError(t, <-handshakes)
}

func TestKeysMatchTheKind(t *testing.T) {
	for _, kind := range KeyKinds() {
		t.Run(string(kind), func(t *testing.T) {
			ca := newCA(t, kind)
			cert := leaf(t, ca, kind, "127.0.0.1")
			require.NotNil(t, cert.Leaf)
			for name, pub := range map[string]any{"CA": ca.Cert.PublicKey, "leaf": cert.Leaf.PublicKey} {
				switch kind {
				case ECDSAP256:
					k, ok := pub.(*ecdsa.PublicKey)
					require.True(t, ok, "%s key = %T; want *ecdsa.PublicKey", name, pub)
					assert.Equal(t, elliptic.P256(), k.Curve, "%s curve", name)
				case RSA2048:
					k, ok := pub.(*rsa.PublicKey)
					require.True(t, ok, "%s key = %T; want *rsa.PublicKey", name, pub)
					assert.Equal(t, 2048, k.N.BitLen(), "%s modulus bits", name)
				}
			}
			// The private key must be the leaf's own: tls checks the pair only when loading PEM.
			signer, ok := cert.PrivateKey.(crypto.Signer)
			require.True(t, ok, "private key = %T; want a crypto.Signer", cert.PrivateKey)
			pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
			require.True(t, ok)
			assert.True(t, pub.Equal(cert.Leaf.PublicKey), "the private key must be the leaf's")
		})
	}

	// A leaf's kind is its own: an RSA server certificate under an ECDSA CA is allowed.
	cert := leaf(t, newCA(t, ECDSAP256), RSA2048, "127.0.0.1")
	assert.IsType(t, &rsa.PublicKey{}, cert.Leaf.PublicKey)
}

func TestValidity(t *testing.T) {
	ca := newCA(t, "")
	cert := leaf(t, ca, "", "127.0.0.1", "localhost")
	now := time.Now()
	assert.WithinDuration(t, now.Add(-time.Hour), ca.Cert.NotBefore, time.Minute, "CA not before")
	assert.WithinDuration(t, now.Add(24*time.Hour), ca.Cert.NotAfter, time.Minute, "CA not after")
	assert.True(t, ca.Cert.IsCA)
	assert.WithinDuration(t, now.Add(-time.Hour), cert.Leaf.NotBefore, time.Minute, "leaf not before")
	assert.False(t, cert.Leaf.NotAfter.After(ca.Cert.NotAfter), "leaf not after = %v; want at most the CA's %v", cert.Leaf.NotAfter, ca.Cert.NotAfter)
	assert.False(t, cert.Leaf.IsCA)
	assert.Equal(t, []string{"localhost"}, cert.Leaf.DNSNames)
	require.Len(t, cert.Leaf.IPAddresses, 1)
	assert.True(t, cert.Leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)))
	assert.Len(t, cert.Certificate, 1, "the chain sent is the leaf alone")
}

func TestParseKeyKind(t *testing.T) {
	for _, c := range []struct{ in, want KeyKind }{
		{"", ECDSAP256},
		{"ecdsa-p256", ECDSAP256},
		{"rsa-2048", RSA2048},
	} {
		got, err := ParseKeyKind(string(c.in))
		require.NoError(t, err, "ParseKeyKind(%q)", c.in)
		assert.Equal(t, c.want, got, "ParseKeyKind(%q)", c.in)
	}

	for _, bad := range []string{"dsa", "ECDSA-P256", "rsa", "rsa-4096", " ecdsa-p256"} {
		_, err := ParseKeyKind(bad)
		require.Error(t, err, "ParseKeyKind(%q)", bad)
		assert.Contains(t, err.Error(), `"`+bad+`"`, "the error must name the bad value")
	}
	_, err := ParseKeyKind("dsa")
	assert.EqualError(t, err, `key = "dsa": want ecdsa-p256 or rsa-2048`)
}

func TestBadKindsAndHostsFailFast(t *testing.T) {
	_, err := New("dsa")
	assert.ErrorContains(t, err, `key = "dsa"`)

	ca := newCA(t, "")
	_, err = ca.Leaf("ed25519", "127.0.0.1")
	assert.ErrorContains(t, err, `key = "ed25519"`)
	_, err = ca.Leaf(ECDSAP256)
	assert.EqualError(t, err, "tlsca: a leaf needs at least one host")
}

func TestPoolIsACopy(t *testing.T) {
	ca := newCA(t, "")
	p := ca.Pool()
	other := newCA(t, "")
	p.AddCert(other.Cert)
	assert.False(t, ca.Pool().Equal(p), "adding to one pool must not change the next")
	assert.True(t, ca.Pool().Equal(ca.Pool()))
}
