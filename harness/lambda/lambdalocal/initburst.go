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
	"time"
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
// forwards every request and watches for the first GET .../runtime/invocation/next. The same
// wrapper and proxy time Init (initspan.go), with a burst or without one (Options.MeasureInit).

// nextPath ends the path of the Runtime API's "next event" request.
const nextPath = "/runtime/invocation/next"

// runtimeProxy forwards the runtime's requests to the emulator, stamps each request for an event
// into span, and calls initEnded (if not nil) once, before forwarding the first.
type runtimeProxy struct {
	addr      string
	forward   *httputil.ReverseProxy
	span      *initSpan
	initEnded func() error
	once      sync.Once
	mu        sync.Mutex
	err       error // initEnded's error; guarded by mu
	ended     bool  // initEnded has run; guarded by mu
}

// startRuntimeProxy listens on loopback and forwards to the emulator's Runtime API at apiAddr,
// until the test ends.
func startRuntimeProxy(t testing.TB, apiAddr string, span *initSpan, initEnded func() error) (*runtimeProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &runtimeProxy{addr: l.Addr().String(), span: span, initEnded: initEnded}
	p.forward = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: apiAddr})
	// Loopback only, never through a proxy from the environment; no timeout, because the
	// request for an event is a long poll that lasts until the next invoke.
	tr := &http.Transport{Proxy: nil}
	p.forward.Transport = tr
	// The runtime's request for an event is pending whenever the environment stops, and is cut
	// off then; that is no error worth a log line, and any other reaches the runtime as a 502.
	p.forward.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) }
	// The emulator's answer to a request for an event is the event delivered: the handler's
	// time starts (initspan.go).
	p.forward.ModifyResponse = func(resp *http.Response) error {
		if isNext(resp.Request) && resp.StatusCode == http.StatusOK {
			if id := resp.Header.Get(requestIDHeader); id != "" {
				p.span.deliver(id, time.Now())
			}
		}
		return nil
	}
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
	if id, ok := outcomeOf(r); ok {
		p.span.answer(id, time.Now())
	}
	if isNext(r) {
		// Stamped on arrival, before the burst's end spends any time.
		p.span.next(time.Now())
		p.once.Do(func() {
			var err error
			if p.initEnded != nil {
				err = p.initEnded()
			}
			p.mu.Lock()
			p.err, p.ended = err, true
			p.mu.Unlock()
		})
	}
	p.forward.ServeHTTP(w, r)
}

// requestIDHeader names the event's request in the emulator's answer to a request for an event,
// as in Lambda's Runtime API.
const requestIDHeader = "Lambda-Runtime-Aws-Request-Id"

// isNext says whether r is the runtime's request for an event.
func isNext(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, nextPath)
}

// outcomeOf is the request ID of r where r posts the outcome of an event
// (POST .../runtime/invocation/<id>/response or .../error).
func outcomeOf(r *http.Request) (string, bool) {
	if r.Method != http.MethodPost {
		return "", false
	}
	rest, ok := strings.CutSuffix(r.URL.Path, "/response")
	if !ok {
		if rest, ok = strings.CutSuffix(r.URL.Path, "/error"); !ok {
			return "", false
		}
	}
	i := strings.LastIndex(rest, "/runtime/invocation/")
	if i < 0 {
		return "", false
	}
	id := rest[i+len("/runtime/invocation/"):]
	return id, id != "" && !strings.Contains(id, "/")
}

// state says whether Init has ended, as the proxy saw it, and whether the change it makes then
// failed.
func (p *runtimeProxy) state() (ended bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended, p.err
}

// writeWrapper writes, into dir, a bootstrap that signals its start through sig, waits for the
// harness to have stamped it, and then runs bootstrap with AWS_LAMBDA_RUNTIME_API set to
// runtimeAPI; it returns its path. printf and read are the shell's own: the wrapper starts no
// process of its own before the runtime.
func writeWrapper(dir, bootstrap, runtimeAPI string, sig *startSignal) (string, error) {
	path := filepath.Join(dir, "bootstrap")
	script := fmt.Sprintf("#!/bin/sh\nprintf . >%s\nread -r _ <%s\nAWS_LAMBDA_RUNTIME_API=%s exec %s \"$@\"\n",
		shellQuote(sig.startedPath), shellQuote(sig.resumePath), shellQuote(runtimeAPI), shellQuote(bootstrap))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", err
	}
	return path, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
