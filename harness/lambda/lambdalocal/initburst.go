package lambdalocal

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Lambda gives a function's Init more CPU than its memory size's share ("burst CPU": AWS's
// Lambda Web Adapter documents up to 10 seconds of initialisation with burst CPU), and the
// article's T3 leans on it: a warm-up in Init costs 54 ms there, against a 745 ms handshake in
// the handler. The emulator knows nothing of it, so the harness makes it: the cgroup starts at
// Options.InitShare, and the runtime's first request for an event, which is where Init ends on
// Lambda, sets it to the memory size's share before the emulator sees the request.
//
// The runtime finds the Runtime API through AWS_LAMBDA_RUNTIME_API, which the emulator sets to
// its own address; a wrapper bootstrap points it at a proxy of the harness instead, which
// forwards every request and watches for the first GET .../runtime/invocation/next.

// nextPath ends the path of the Runtime API's "next event" request.
const nextPath = "/runtime/invocation/next"

// runtimeProxy forwards the runtime's requests to the emulator, and calls initEnded once, before
// forwarding the first request for an event.
type runtimeProxy struct {
	addr      string
	forward   *httputil.ReverseProxy
	initEnded func() error
	once      sync.Once
	mu        sync.Mutex
	err       error // initEnded's error; guarded by mu
	ended     bool  // initEnded has run; guarded by mu
}

// startRuntimeProxy listens on loopback and forwards to the emulator's Runtime API at apiAddr,
// until the test ends.
func startRuntimeProxy(t testing.TB, apiAddr string, initEnded func() error) (*runtimeProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &runtimeProxy{addr: l.Addr().String(), initEnded: initEnded}
	p.forward = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: apiAddr})
	// Loopback only, never through a proxy from the environment; no timeout, because the
	// request for an event is a long poll that lasts until the next invoke.
	tr := &http.Transport{Proxy: nil}
	p.forward.Transport = tr
	// The runtime's request for an event is pending whenever the environment stops, and is cut
	// off then; that is no error worth a log line, and any other reaches the runtime as a 502.
	p.forward.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) }
	srv := &http.Server{Handler: p}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		tr.CloseIdleConnections()
	})
	return p, nil
}

// ServeHTTP forwards one request of the runtime.
func (p *runtimeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, nextPath) {
		p.once.Do(func() {
			err := p.initEnded()
			p.mu.Lock()
			p.err, p.ended = err, true
			p.mu.Unlock()
		})
	}
	p.forward.ServeHTTP(w, r)
}

// state says whether Init has ended, as the proxy saw it, and whether the change it makes then
// failed.
func (p *runtimeProxy) state() (ended bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended, p.err
}

// writeWrapper writes, into dir, a bootstrap that runs bootstrap with AWS_LAMBDA_RUNTIME_API set
// to runtimeAPI, and returns its path.
func writeWrapper(dir, bootstrap, runtimeAPI string) (string, error) {
	path := filepath.Join(dir, "bootstrap")
	script := fmt.Sprintf("#!/bin/sh\nAWS_LAMBDA_RUNTIME_API=%s exec %s \"$@\"\n", shellQuote(runtimeAPI), shellQuote(bootstrap))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", err
	}
	return path, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
