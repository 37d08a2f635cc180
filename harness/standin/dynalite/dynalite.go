// Package dynalite starts the DynamoDB stand-in of the cold-start experiments: dynalite (from the
// npm registry, pinned in tools/dynalite and installed by `make setup`), in memory, on loopback,
// behind TLS with a CA and certificate made at run time. dynalite's own --ssl certificate expired
// in 2018, and the claims are about the handshake a function pays, so the TLS in front of it is
// ours: ECDSA P-256 by default, RSA-2048 on request (harness/standin/tlsca).
//
// The TLS front is a small proxy in the test process: it terminates TLS and forwards the bytes to
// dynalite's plain HTTP port. It can be taken down and brought back on the same address, which
// is how an experiment makes DynamoDB unreachable for a while.
package dynalite

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/standin/tlsca"
	"github.com/serverless-claims/claims/harness/sys/loopback"
	"github.com/serverless-claims/claims/harness/sys/proc"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/workload/protocol"
)

// Script is the launcher that starts dynalite and prints its READY line, relative to the
// repository root; Installed is the file `make setup` leaves when dynalite is installed.
const (
	Script    = "tools/dynalite/serve.js"
	Installed = "tools/dynalite/node_modules/dynalite/package.json"
)

// Options say how to start the stand-in.
type Options struct {
	// Key is the kind of the server certificate's key; empty means tlsca.DefaultKeyKind.
	Key tlsca.KeyKind
	// Deny, when set, is asked for each HTTP request a connection sends until one is
	// forwarded: while it returns true the front answers the request itself with DynamoDB's
	// AccessDeniedException (400, its JSON error shape), as DynamoDB answers a caller whose
	// role's policy has not reached it yet (e.g. iamstub.Server.PolicyEffective negated). A
	// connection whose request was forwarded goes on being forwarded byte for byte. Nil: the
	// front is a byte forwarder only.
	Deny func() bool
	// HandshakeDelay is how long the front waits on each new connection before it reads the
	// client's hello: a platform whose first connection costs what an article measured (T1's
	// 745 ms handshake on Lambda), which the local model of Lambda's CPU cannot make, so that a
	// test can show what a run does where the platform bears the article out. Zero: none.
	HandshakeDelay time.Duration
}

// Server is a started stand-in.
type Server struct {
	// Endpoint is the HTTPS URL clients use: https://127.0.0.1:PORT.
	Endpoint string
	// CAFile is a PEM file holding the CA that signed the server's certificate, for clients
	// that take a CA file (the function's CLAIMS_CA_FILE). The cold-start experiments give the
	// function a bundle of the system's roots with this CA instead (tlsca.CA.WriteBundle).
	CAFile string
	// CA made the certificate; CA.Pool() is what a Go client trusts.
	CA *tlsca.CA
	// Key is the server certificate's key kind.
	Key tlsca.KeyKind
	// Version is dynalite's, from its READY line.
	Version string

	backend string // dynalite's plain HTTP address
	// front is the TLS front's address, kept across Down and Up; its port is held from Start
	// to the end of the test, so that no other process binds it while the front is down.
	front  *loopback.Reservation
	config *tls.Config
	deny   func() bool
	delay  time.Duration

	mu         sync.Mutex
	listener   net.Listener
	conns      map[net.Conn]bool
	handshakes int
	wg         sync.WaitGroup
}

// Start starts dynalite and its TLS front, and stops both when the test ends. A dynalite that is
// not installed or does not start fails the test at once, saying what to do.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Key == "" {
		o.Key = tlsca.DefaultKeyKind
	}
	if _, err := tlsca.ParseKeyKind(string(o.Key)); err != nil {
		t.Fatalf("dynalite: %v", err)
	}
	script, err := repo.Path(Script)
	if err != nil {
		t.Fatalf("dynalite: %v", err)
	}
	if err := installed(); err != nil {
		t.Fatalf("dynalite: %v", err)
	}
	node, err := runtimes.FindNode()
	if err != nil {
		t.Fatalf("dynalite: %v", err)
	}
	var ready protocol.Ready
	proc.Start(t, proc.Spec{
		Name:  "dynalite",
		Path:  node.Path,
		Args:  []string{script},
		Env:   proc.CleanEnv(),
		Dir:   filepath.Dir(script),
		Ready: protocol.AwaitReady(&ready),
	})

	ca, err := tlsca.New(o.Key)
	if err != nil {
		t.Fatalf("dynalite: CA: %v", err)
	}
	leaf, err := ca.Leaf(o.Key, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatalf("dynalite: certificate: %v", err)
	}
	caFile := filepath.Join(t.TempDir(), "dynalite-ca.pem")
	if err := os.WriteFile(caFile, ca.PEM(), 0o644); err != nil {
		t.Fatalf("dynalite: %v", err)
	}
	s := &Server{
		CAFile: caFile, CA: ca, Key: o.Key, Version: ready.Version,
		backend: ready.Addr, deny: o.Deny, delay: o.HandshakeDelay,
		config: &tls.Config{Certificates: []tls.Certificate{leaf}},
		conns:  map[net.Conn]bool{},
	}
	// Up binds the front's address again after Down: the port is held meanwhile (its
	// reservation), so that another test process on a busy machine cannot take it in between.
	if s.front, err = loopback.Reserve(); err != nil {
		t.Fatalf("dynalite: TLS front: %v", err)
	}
	t.Cleanup(s.close)
	if err := s.listen(); err != nil {
		t.Fatalf("dynalite: TLS front: %v", err)
	}
	s.Endpoint = "https://" + s.front.Addr()
	return s
}

// installed says what is missing when `make setup` has not installed dynalite.
func installed() error {
	p, err := repo.Path(Installed)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("not installed (%s is missing): run `make setup`", Installed)
	}
	return nil
}

// listen opens the TLS front on its address and serves it until Down or the end of the test.
func (s *Server) listen() error {
	inner, err := s.front.Listen()
	if err != nil {
		return err
	}
	l := tls.NewListener(inner, s.config)
	s.mu.Lock()
	s.listener = l
	s.mu.Unlock()
	s.wg.Add(1)
	go s.serve(l)
	return nil
}

func (s *Server) serve(l net.Listener) {
	defer s.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return // closed by Down or close
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go s.forward(c)
	}
}

// forward completes one client's TLS handshake, counts it, and copies the connection to dynalite
// and back. A client that fails the handshake never reaches dynalite.
func (s *Server) forward(c net.Conn) {
	defer s.wg.Done()
	defer s.drop(c)
	time.Sleep(s.delay)
	if err := c.(*tls.Conn).Handshake(); err != nil {
		return
	}
	s.mu.Lock()
	s.handshakes++
	s.mu.Unlock()
	var from io.Reader = c
	var first *http.Request
	if s.deny != nil {
		br := bufio.NewReader(c)
		if first = s.answerDenied(c, br); first == nil {
			return
		}
		from = br // what the client sent after the first forwarded request's head
	}
	b, err := net.Dial("tcp", s.backend)
	if err != nil {
		return
	}
	defer b.Close()
	if first != nil {
		if err := first.Write(b); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(b, from)
		if tcp, ok := b.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(c, b)
	_ = c.Close()
	<-done
}

// answerDenied reads the connection's requests and answers each with AccessDeniedException while
// Deny says so; it returns the first request to forward, its body still unread, or nil when the
// connection ended first.
func (s *Server) answerDenied(c net.Conn, br *bufio.Reader) *http.Request {
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return nil
		}
		if !s.deny() {
			return req
		}
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
		if writeAccessDenied(c, req) != nil || req.Close {
			return nil
		}
	}
}

// writeAccessDenied answers req as DynamoDB answers a call the caller's policies do not allow:
// 400, application/x-amz-json-1.0, x-amzn-RequestId, and a body whose __type names
// AccessDeniedException in DynamoDB's namespace (the SDK reads the part after '#').
func writeAccessDenied(w io.Writer, req *http.Request) error {
	action := "dynamodb:" + strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	body, _ := json.Marshal(map[string]string{
		"__type":  "com.amazonaws.dynamodb.v20120810#AccessDeniedException",
		"Message": "User is not authorized to perform: " + action + " because no identity-based policy allows the " + action + " action",
	})
	resp := &http.Response{
		StatusCode: http.StatusBadRequest, ProtoMajor: 1, ProtoMinor: 1, Request: req,
		Header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"X-Amzn-Requestid": {requestID()},
		},
		ContentLength: int64(len(body)),
		Body:          io.NopCloser(bytes.NewReader(body)),
	}
	return resp.Write(w)
}

// requestID is a new request id in the form DynamoDB's take: 52 upper-case letters and digits.
func requestID() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 52)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func (s *Server) drop(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Handshakes counts the TLS handshakes the stand-in completed: the server's side of the evidence
// that a client made a new connection.
func (s *Server) Handshakes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handshakes
}

// Addr is the TLS front's address, host:port.
func (s *Server) Addr() string { return s.front.Addr() }

// Down makes the stand-in unreachable: new connections are refused and open ones are closed,
// as when a network path goes away. Up brings it back on the same address.
func (s *Server) Down() {
	s.mu.Lock()
	l := s.listener
	s.listener = nil
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if l != nil {
		_ = l.Close()
	}
	for _, c := range conns {
		_ = c.Close()
	}
}

// Stall makes the stand-in a black hole: connections are accepted and then never answered, not
// even with a TLS handshake, as when packets to a service are dropped somewhere on the way. A
// client waits until its own timeouts give up. Up ends the stall.
func (s *Server) Stall() error {
	s.Down()
	l, err := s.front.Listen()
	if err != nil {
		return fmt.Errorf("dynalite: Stall: %w", err)
	}
	s.mu.Lock()
	s.listener = l
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[c] = true // held open, unread, until Down, Up or the end of the test
			s.mu.Unlock()
		}
	}()
	return nil
}

// Up reopens the TLS front on the address it had, after Down or Stall. Where the port could not
// be held (loopback.Reserve, elsewhere than Linux), it fails when another process took the port
// meanwhile.
func (s *Server) Up() error {
	s.Down()
	return s.listen()
}

// close ends the TLS front and waits for its goroutines; proc stops dynalite itself.
func (s *Server) close() {
	s.Down()
	s.wg.Wait()
	_ = s.front.Close()
}
