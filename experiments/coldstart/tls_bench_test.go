// This file is claim T7, beyond the article: what one TLS handshake costs by certificate key,
// TLS version, key exchange and session resumption. Client and server run in one process over
// loopback TCP, so the figures are CPU and protocol cost with no network in them: the part of the
// article's 745 ms handshake that a 128 MB function's small share of a CPU (T5) could stretch.

package coldstart

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/tlsca"
)

// handshakeTimeout bounds every read, write and dial of one handshake, so that a stuck peer fails
// the benchmark instead of hanging it; a loopback handshake takes well under a millisecond.
const handshakeTimeout = 10 * time.Second

// tlsClaims are the claims this file measures. A benchmark writes no result file that would name
// them, so they are named here, for the catalog's check that every claim has a test.
var tlsClaims = []string{"T7"}

// handshakeCase is one combination of T7's four factors.
type handshakeCase struct {
	key     tlsca.KeyKind
	version uint16      // tls.VersionTLS12 or tls.VersionTLS13
	group   tls.CurveID // the one key exchange both sides allow
	resume  bool        // resumed from a session ticket, or a full handshake
}

// The spellings of versions and groups in benchmark names.
var (
	versionNames = map[uint16]string{tls.VersionTLS12: "1.2", tls.VersionTLS13: "1.3"}
	groupNames   = map[tls.CurveID]string{tls.X25519: "x25519", tls.X25519MLKEM768: "x25519mlkem768"}
)

// String is the sub-benchmark's name, key=value pairs joined by "/" so that benchstat can group
// and compare by any one factor: "key=rsa-2048/tls=1.3/kx=x25519/resume=full".
func (c handshakeCase) String() string {
	mode := "full"
	if c.resume {
		mode = "resumed"
	}
	return fmt.Sprintf("key=%s/tls=%s/kx=%s/resume=%s", c.key, versionNames[c.version], groupNames[c.group], mode)
}

// handshakeCases is every combination, the impossible ones included, so that each shows in the
// output as a skip with its reason rather than silently missing.
func handshakeCases() []handshakeCase {
	var cs []handshakeCase
	for _, key := range tlsca.KeyKinds() {
		for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			for _, group := range []tls.CurveID{tls.X25519, tls.X25519MLKEM768} {
				for _, resume := range []bool{false, true} {
					cs = append(cs, handshakeCase{key, version, group, resume})
				}
			}
		}
	}
	return cs
}

// impossible says why a combination cannot exist, or "" when it can.
func (c handshakeCase) impossible() string {
	if c.version < tls.VersionTLS13 && c.group == tls.X25519MLKEM768 {
		return "TLS 1.2 has no hybrid ML-KEM key exchange: X25519MLKEM768 is defined only as a " +
			"TLS 1.3 key_share group (draft-ietf-tls-ecdhe-mlkem), and crypto/tls removes it from " +
			"TLS 1.2 handshakes, so this combination cannot be negotiated (TestTLS12HasNoHybridKeyExchange shows it)"
	}
	return ""
}

// configs are the case's server and client configurations: both sides allow only the case's
// version and group, so a handshake cannot drift to another; full handshakes have session
// tickets off on both sides, resumed ones a client cache of one session.
func (c handshakeCase) configs(ch chain) (server, client *tls.Config) {
	server = &tls.Config{
		Certificates:           []tls.Certificate{ch.leaf},
		MinVersion:             c.version,
		MaxVersion:             c.version,
		CurvePreferences:       []tls.CurveID{c.group},
		SessionTicketsDisabled: !c.resume,
	}
	client = &tls.Config{
		RootCAs:                ch.pool,
		ServerName:             "127.0.0.1",
		MinVersion:             c.version,
		MaxVersion:             c.version,
		CurvePreferences:       []tls.CurveID{c.group},
		SessionTicketsDisabled: !c.resume,
	}
	if c.resume {
		client.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	}
	return server, client
}

// check says how a handshake differs from what the case's name promises, or returns nil: the
// guard that keeps a benchmark from measuring another combination than the one it is named for.
func (c handshakeCase) check(h handshake) error {
	var wrong []string
	add := func(format string, args ...any) { wrong = append(wrong, fmt.Sprintf(format, args...)) }
	cs, ss := h.client, h.server
	if cs.Version != c.version || ss.Version != c.version {
		add("version = %s (server %s); want %s", tls.VersionName(cs.Version), tls.VersionName(ss.Version), tls.VersionName(c.version))
	}
	// A resumed TLS 1.2 handshake makes no key exchange at all and reports the original session's;
	// a resumed TLS 1.3 one (crypto/tls offers only psk_dhe_ke) makes a fresh one. Either way it
	// must be the case's group.
	if cs.CurveID != c.group || ss.CurveID != c.group {
		add("key exchange = %v (server %v); want %v", cs.CurveID, ss.CurveID, c.group)
	}
	if cs.DidResume != c.resume || ss.DidResume != c.resume {
		add("resumed = %t (server %t); want %t", cs.DidResume, ss.DidResume, c.resume)
	}
	if cs.HelloRetryRequest {
		// A retry is another round trip and another key share: a different handshake.
		add("hello retry request = true; want false")
	}
	// On resumption the leaf is the one remembered with the session, not one sent again.
	if len(cs.PeerCertificates) == 0 {
		add("peer certificates = none; want the %s leaf", c.key)
	} else if got := keyKindOf(cs.PeerCertificates[0]); got != c.key {
		add("leaf key = %s; want %s", got, c.key)
	}
	if len(wrong) == 0 {
		return nil
	}
	return fmt.Errorf("%v: %s", c, strings.Join(wrong, "; "))
}

// keyKindOf names a certificate's key kind, or describes the key when it is of no known kind.
func keyKindOf(cert *x509.Certificate) tlsca.KeyKind {
	switch k := cert.PublicKey.(type) {
	case *ecdsa.PublicKey:
		if k.Curve.Params().Name == "P-256" {
			return tlsca.ECDSAP256
		}
		return tlsca.KeyKind("ecdsa-" + k.Curve.Params().Name)
	case *rsa.PublicKey:
		return tlsca.KeyKind(fmt.Sprintf("rsa-%d", k.N.BitLen()))
	}
	return tlsca.KeyKind(fmt.Sprintf("%T", cert.PublicKey))
}

// chain is a CA's pool and a loopback leaf it signed, both of one key kind: with an RSA leaf under
// an ECDSA root a client would verify a signature of the other kind, so the name would lie.
type chain struct {
	pool *x509.CertPool
	leaf tls.Certificate
}

// chains are made once per test binary: generating an RSA key takes longer than hundreds of
// handshakes, and it is no part of any handshake.
var chains = sync.OnceValues(func() (map[tlsca.KeyKind]chain, error) {
	m := make(map[tlsca.KeyKind]chain)
	for _, kind := range tlsca.KeyKinds() {
		ca, err := tlsca.New(kind)
		if err != nil {
			return nil, err
		}
		leaf, err := ca.Leaf(kind, "127.0.0.1")
		if err != nil {
			return nil, err
		}
		m[kind] = chain{pool: ca.Pool(), leaf: leaf}
	}
	return m, nil
})

// handshake is what one connection's handshake produced, seen from both ends.
type handshake struct {
	client, server tls.ConnectionState
	// Bytes written by each side up to the end of its own handshake: TCP payload, so records'
	// headers included, and the server's count includes any session ticket it sent with it.
	clientBytes, serverBytes int64
}

// serverSide is the server's report of one connection.
type serverSide struct {
	state tls.ConnectionState
	bytes int64
	err   error
}

// loopback is a TLS server on a loopback port, serving one connection at a time, and the client
// configuration that dials it.
type loopback struct {
	addr    string
	client  *tls.Config
	results chan serverSide
}

// startCase starts a server for the case, closed by tb's cleanup.
func startCase(tb testing.TB, c handshakeCase) *loopback {
	tb.Helper()
	chs, err := chains()
	if err != nil {
		tb.Fatalf("make the certificates: %v", err)
	}
	server, client := c.configs(chs[c.key])
	return startLoopback(tb, server, client)
}

// startLoopback listens on 127.0.0.1 with the server configuration until tb's cleanup, which
// waits for the server's goroutine to end.
func startLoopback(tb testing.TB, server, client *tls.Config) *loopback {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen on loopback: %v", err)
	}
	l := &loopback{
		addr:   ln.Addr().String(),
		client: client,
		// One slot: the client reads each report before it dials again, so at most the report of
		// a connection whose client already failed can be left over.
		results: make(chan serverSide, 1),
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		l.serve(ln, server, stop)
	}()
	tb.Cleanup(func() {
		close(stop)
		_ = ln.Close()
		<-done
	})
	return l
}

// serve handshakes each connection, reports it, then writes one byte and closes. The byte is how
// the client knows the server's side is over too, so the server's work is inside the iteration
// that caused it; reading it also makes a TLS 1.3 client take in the session ticket that came
// before it.
func (l *loopback) serve(ln net.Listener, cfg *tls.Config, stop <-chan struct{}) {
	for {
		raw, err := ln.Accept()
		if err != nil {
			return // the listener was closed
		}
		counted := &countingConn{Conn: raw}
		conn := tls.Server(counted, cfg)
		_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
		r := serverSide{err: conn.Handshake()}
		r.bytes = counted.written
		if r.err == nil {
			r.state = conn.ConnectionState()
			_, r.err = conn.Write([]byte{1})
		}
		_ = conn.Close()
		select {
		case l.results <- r:
		case <-stop:
			return
		}
	}
}

// handshake makes one whole handshake on a new TCP connection and returns both ends' view of it.
func (l *loopback) handshake() (handshake, error) {
	raw, err := net.DialTimeout("tcp", l.addr, handshakeTimeout)
	if err != nil {
		return handshake{}, fmt.Errorf("dial %s: %w", l.addr, err)
	}
	counted := &countingConn{Conn: raw}
	conn := tls.Client(counted, l.client)
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := conn.Handshake(); err != nil {
		return handshake{}, fmt.Errorf("client handshake: %w", err)
	}
	h := handshake{client: conn.ConnectionState(), clientBytes: counted.written}
	var b [1]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return handshake{}, fmt.Errorf("read the server's byte: %w", err)
	}
	select {
	case r := <-l.results:
		if r.err != nil {
			return handshake{}, fmt.Errorf("server handshake: %w", r.err)
		}
		h.server, h.serverBytes = r.state, r.bytes
	case <-time.After(handshakeTimeout):
		return handshake{}, errors.New("no report from the server")
	}
	return h, nil
}

// prime makes the one full handshake that fills a resumed case's session cache.
func (l *loopback) prime() error {
	h, err := l.handshake()
	if err != nil {
		return fmt.Errorf("prime the session cache: %w", err)
	}
	if h.client.DidResume {
		return errors.New("prime the session cache: the first handshake resumed, from a cache that should be empty")
	}
	return nil
}

// countingConn counts the bytes written through it. Only the goroutine that owns the connection
// writes and reads the count, so it needs no lock.
type countingConn struct {
	net.Conn
	written int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written += int64(n)
	return n, err
}

// BenchmarkTLSHandshake measures claim T7: one whole TLS handshake on a fresh loopback TCP
// connection per iteration (dial, handshake, the server's one byte, close), for every key kind,
// TLS version, key exchange and full or resumed handshake. Besides ns/op it reports the bytes
// each side wrote during its handshake. Compare with
//
//	go test -run '^$' -bench BenchmarkTLSHandshake -count 10 ./experiments/coldstart > tls.txt
//	benchstat -col /key tls.txt
func BenchmarkTLSHandshake(b *testing.B) {
	for _, c := range handshakeCases() {
		b.Run(c.String(), func(b *testing.B) { benchmarkHandshake(b, c) })
	}
}

func benchmarkHandshake(b *testing.B, c handshakeCase) {
	if why := c.impossible(); why != "" {
		b.Skip(why)
	}
	// b.Loop, not a loop to b.N: the function runs once, so the listener starts once per
	// sub-benchmark and the setup here is outside the timer, which b.Loop starts on first call.
	l := startCase(b, c)
	if c.resume {
		if err := l.prime(); err != nil {
			b.Fatal(err)
		}
	}
	var n, clientBytes, serverBytes int64
	for b.Loop() {
		h, err := l.handshake()
		if err != nil {
			b.Fatalf("%v: handshake %d: %v", c, n, err)
		}
		if err := c.check(h); err != nil {
			b.Fatalf("handshake %d: %v", n, err)
		}
		n++
		clientBytes += h.clientBytes
		serverBytes += h.serverBytes
	}
	b.ReportMetric(float64(serverBytes)/float64(n), "server-B/op")
	b.ReportMetric(float64(clientBytes)/float64(n), "client-B/op")
}

// TestTLSHandshakeBenchmarkRuns runs every possible combination of BenchmarkTLSHandshake a few
// times as a test, through the same helpers, and checks that each handshake is the one its name
// says: the version, key exchange, resumption and leaf key negotiated, and that resumption saves
// the certificate's bytes. Without it a benchmark could time a fallback and no one would know.
func TestTLSHandshakeBenchmarkRuns(t *testing.T) {
	const handshakes = 3
	// The server's bytes in the first timed handshake, by the name of the case's full variant.
	serverBytes := map[string]map[bool]int64{}
	for _, c := range handshakeCases() {
		if c.impossible() != "" {
			continue // TestTLS12HasNoHybridKeyExchange shows that it cannot be made
		}
		t.Run(c.String(), func(t *testing.T) {
			l := startCase(t, c)
			if c.resume {
				require.NoError(t, l.prime())
			}
			for i := range handshakes {
				h, err := l.handshake()
				require.NoError(t, err, "handshake %d", i)
				require.NoError(t, c.check(h), "handshake %d", i)
				assert.Positive(t, h.serverBytes, "handshake %d: server bytes", i)
				assert.Positive(t, h.clientBytes, "handshake %d: client bytes", i)
				if i == 0 {
					full := c
					full.resume = false
					if serverBytes[full.String()] == nil {
						serverBytes[full.String()] = map[bool]int64{}
					}
					serverBytes[full.String()][c.resume] = h.serverBytes
				}
			}
		})
	}
	// A resumed handshake sends no certificate: if it is not smaller, it did not resume in fact.
	require.Len(t, serverBytes, 6, "full/resumed pairs measured")
	for name, by := range serverBytes {
		full, resumed := by[false], by[true]
		assert.Less(t, resumed, full, "%v %s: server bytes resumed = %d; want fewer than full's %d", tlsClaims, name, resumed, full)
	}
}

// TestTLS12HasNoHybridKeyExchange is the evidence behind the benchmark's one skip: at TLS 1.2 a
// handshake that allows only X25519MLKEM768 fails, and one that allows it beside X25519 settles on
// X25519.
func TestTLS12HasNoHybridKeyExchange(t *testing.T) {
	for _, key := range tlsca.KeyKinds() {
		t.Run("key="+string(key), func(t *testing.T) {
			c := handshakeCase{key: key, version: tls.VersionTLS12, group: tls.X25519MLKEM768}
			require.NotEmpty(t, c.impossible(), "%v must be marked impossible", c)

			l := startCase(t, c)
			_, err := l.handshake()
			require.Error(t, err, "TLS 1.2 with only X25519MLKEM768 allowed")
			t.Logf("TLS 1.2 with only X25519MLKEM768: %v", err)

			chs, err := chains()
			require.NoError(t, err)
			server, client := c.configs(chs[key])
			both := []tls.CurveID{tls.X25519MLKEM768, tls.X25519}
			server.CurvePreferences, client.CurvePreferences = both, both
			h, err := startLoopback(t, server, client).handshake()
			require.NoError(t, err, "TLS 1.2 with X25519MLKEM768 and X25519 allowed")
			assert.Equal(t, tls.X25519, h.client.CurveID, "key exchange = %v; want X25519", h.client.CurveID)
			assert.Equal(t, uint16(tls.VersionTLS12), h.client.Version)
		})
	}
}

// TestHandshakeCaseNames checks the names benchstat groups by: every factor as key=value, each
// combination once, sixteen in all.
func TestHandshakeCaseNames(t *testing.T) {
	form := regexp.MustCompile(`^key=(ecdsa-p256|rsa-2048)/tls=(1\.2|1\.3)/kx=(x25519|x25519mlkem768)/resume=(full|resumed)$`)
	seen := map[string]bool{}
	impossible := 0
	for _, c := range handshakeCases() {
		name := c.String()
		assert.Regexp(t, form, name)
		assert.False(t, seen[name], "name %q twice", name)
		seen[name] = true
		if c.impossible() != "" {
			impossible++
		}
	}
	assert.Len(t, seen, 16)
	assert.Equal(t, 4, impossible, "impossible combinations = %d; want 4 (TLS 1.2 with ML-KEM, two keys, full and resumed)", impossible)
	assert.Equal(t, "key=rsa-2048/tls=1.3/kx=x25519mlkem768/resume=resumed",
		handshakeCase{tlsca.RSA2048, tls.VersionTLS13, tls.X25519MLKEM768, true}.String())
}
