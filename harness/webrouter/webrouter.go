// Package webrouter is a local stand-in of a Lambda Web Function's endpoint: one HTTPS address
// (HTTP/1.1 only, as Lambda's endpoints are) in front of N execution environments, each a probe
// process with a logstream name of its own. Like the endpoint it checks each request's SigV4
// signature (service lambda) when it has keys, answers 403 when the signature is wrong, adds
// lambda-web-request-id and lambda-web-logstream to every answer, holds each environment to
// maxConcurrencyPerEnvironment by queueing a request until a slot is free (as Lambda's scaling
// documentation says it does when every environment is full), and routes by a chosen policy.
//
// Routing is the stand-in's model, not Lambda's: LeastBusy is what the Web Functions article saw
// in most trials, and the other policies exist so that each routing claim (W6-W9, W12) can be
// shown to fail against a router that breaks it.
package webrouter

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/serverless-claims/claims/harness/sigv4check"
	"github.com/serverless-claims/claims/harness/tlsca"
)

// The headers every answer of a Web Function endpoint carries.
const (
	HeaderRequestID = "lambda-web-request-id"
	HeaderLogstream = "lambda-web-logstream"
)

// SigningService is the SigV4 service name of a Web Function endpoint with IamAuth.
const SigningService = "lambda"

// Policy is how the router picks an environment for a request among those with a free slot.
type Policy string

// The policies.
const (
	// LeastBusy picks the environment with the fewest requests in flight, at random among equals.
	LeastBusy Policy = "least-busy"
	// Random picks any environment with a free slot, each as likely.
	Random Policy = "random"
	// Sticky keeps a client connection on the environment of its first request while that one
	// has a free slot, else picks as LeastBusy does.
	Sticky Policy = "sticky"
	// CoLocate picks the busiest environment that has a free slot, and among idle ones the next
	// in turn (so that every environment answers now and then): it breaks W6 on purpose.
	CoLocate Policy = "co-locate"
)

// Policies are the policies in the order the documentation lists them.
var Policies = []Policy{LeastBusy, Random, Sticky, CoLocate}

// DefaultMaxConcurrency is Lambda's default maxConcurrencyPerEnvironment; the setting's range is
// 1 to 128.
const DefaultMaxConcurrency = 64

// Environment is one execution environment behind the router.
type Environment struct {
	Addr      string // host:port of its probe, plain HTTP on loopback
	Logstream string // the name lambda-web-logstream gives it
}

// Config says how the router behaves.
type Config struct {
	Environments []Environment
	Policy       Policy
	// MaxConcurrencyPerEnvironment is 1-128; zero means DefaultMaxConcurrency.
	MaxConcurrencyPerEnvironment int
	// Keys are the access keys whose SigV4 signatures the router accepts, for Region; nil
	// makes it an ApplicationManaged (public) endpoint that checks nothing.
	Keys   sigv4check.Keys
	Region string
	// IgnoreConcurrencyLimit routes as if every environment always had a free slot: it breaks
	// W12 on purpose.
	IgnoreConcurrencyLimit bool
	// SwapLogstreams names, on every other answer, another environment's logstream: it breaks
	// W9 on purpose.
	SwapLogstreams bool
}

// Validate refuses a Config that makes no sense, naming the setting.
func (c Config) Validate() error {
	var errs []error
	if len(c.Environments) == 0 {
		errs = append(errs, errors.New("webrouter: Environments is empty; want at least one"))
	}
	seen := map[string]bool{}
	for i, e := range c.Environments {
		if _, _, err := net.SplitHostPort(e.Addr); err != nil {
			errs = append(errs, fmt.Errorf("webrouter: Environments[%d].Addr = %q: want host:port", i, e.Addr))
		}
		if e.Logstream == "" || seen[e.Logstream] {
			errs = append(errs, fmt.Errorf("webrouter: Environments[%d].Logstream = %q: want a name no other environment has", i, e.Logstream))
		}
		seen[e.Logstream] = true
	}
	if !slices.Contains(Policies, c.Policy) {
		errs = append(errs, fmt.Errorf("webrouter: Policy = %q: want one of %v", c.Policy, Policies))
	}
	if m := c.MaxConcurrencyPerEnvironment; m != 0 && (m < 1 || m > 128) {
		errs = append(errs, fmt.Errorf("webrouter: MaxConcurrencyPerEnvironment = %d: want 1 to 128", m))
	}
	if c.Keys != nil && c.Region == "" {
		errs = append(errs, errors.New("webrouter: Region is empty; a router that checks signatures needs the region they are made for"))
	}
	return errors.Join(errs...)
}

// Router is a started stand-in endpoint.
type Router struct {
	cfg      Config
	limit    int
	srv      *http.Server
	ln       net.Listener
	ca       *tlsca.CA
	upstream *http.Transport
	done     chan struct{}

	mu       sync.Mutex
	inFlight []int
	freed    chan struct{}  // closed and replaced whenever a slot frees
	sticky   map[string]int // client address -> environment, for Sticky
	served   []int          // requests answered, per environment
	queued   int            // requests that waited for a free slot
	seq      uint64         // answers so far, for SwapLogstreams
	turn     int            // the next idle environment for CoLocate
}

// Start starts the router on a loopback port with a certificate of a CA of its own (RootCAs).
func Start(cfg Config) (*Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ca, err := tlsca.New("")
	if err != nil {
		return nil, err
	}
	leaf, err := ca.Leaf("", "127.0.0.1", "localhost")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webrouter: listen: %w", err)
	}
	r := &Router{
		cfg: cfg, limit: cfg.MaxConcurrencyPerEnvironment, ca: ca, ln: ln, done: make(chan struct{}),
		inFlight: make([]int, len(cfg.Environments)), served: make([]int, len(cfg.Environments)),
		freed: make(chan struct{}), sticky: map[string]int{},
		upstream: &http.Transport{MaxIdleConnsPerHost: 2 * 128, IdleConnTimeout: 4 * time.Second, DisableCompression: true},
	}
	if r.limit == 0 {
		r.limit = DefaultMaxConcurrency
	}
	r.srv = &http.Server{
		Handler:           http.HandlerFunc(r.serve),
		ReadHeaderTimeout: 10 * time.Second,
		// HTTP/1.1 only, as Lambda's Web Function endpoints: no h2 in ALPN, no h2 handler.
		TLSConfig:    &tls.Config{Certificates: []tls.Certificate{leaf}, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12},
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateClosed || s == http.StateHijacked {
				r.mu.Lock()
				delete(r.sticky, c.RemoteAddr().String())
				r.mu.Unlock()
			}
		},
	}
	go func() { _ = r.srv.ServeTLS(ln, "", "") }()
	return r, nil
}

// URL is the endpoint's base URL.
func (r *Router) URL() string { return "https://" + r.ln.Addr().String() }

// RootCAs is a pool that trusts the router's certificate.
func (r *Router) RootCAs() *x509.CertPool { return r.ca.Pool() }

// Close stops the router: requests queued for a slot end with 503, and nothing is left running.
func (r *Router) Close() error {
	select {
	case <-r.done:
		return nil
	default:
	}
	close(r.done)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if err != nil {
		err = r.srv.Close()
	}
	r.upstream.CloseIdleConnections()
	return err
}

// Stats is what the router did, for a result.
type Stats struct {
	Policy                       Policy `json:"policy"`
	MaxConcurrencyPerEnvironment int    `json:"maxConcurrencyPerEnvironment"`
	Served                       []int  `json:"served"` // answers per environment, in Environments' order
	Queued                       int    `json:"queued"` // requests that waited for a free slot
}

// Stats returns what the router has done so far.
func (r *Router) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Policy: r.cfg.Policy, MaxConcurrencyPerEnvironment: r.limit, Served: slices.Clone(r.served), Queued: r.queued}
}

// serve routes one request.
func (r *Router) serve(w http.ResponseWriter, req *http.Request) {
	id := newRequestID()
	w.Header().Set(HeaderRequestID, id)
	if r.cfg.Keys != nil {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		scope, err := r.cfg.Keys.Verify(req, body)
		if err == nil && (scope.Service != SigningService || scope.Region != r.cfg.Region) {
			err = fmt.Errorf("signed for %s in %s; want %s in %s", scope.Service, scope.Region, SigningService, r.cfg.Region)
		}
		if err != nil {
			fail(w, http.StatusForbidden, "The request signature we calculated does not match the signature you provided: "+err.Error())
			return
		}
	}
	env, queued, err := r.acquire(req.Context(), req.RemoteAddr)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "no environment took the request: "+err.Error())
		return
	}
	defer r.release(env)
	up, err := http.NewRequestWithContext(req.Context(), req.Method, "http://"+r.cfg.Environments[env].Addr+req.URL.RequestURI(), nil)
	if err != nil {
		fail(w, http.StatusBadGateway, err.Error())
		return
	}
	resp, err := r.upstream.RoundTrip(up)
	if err != nil {
		fail(w, http.StatusBadGateway, fmt.Sprintf("environment %d: %v", env, err))
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		fail(w, http.StatusBadGateway, fmt.Sprintf("environment %d: reading its answer: %v", env, err))
		return
	}
	w.Header().Set(HeaderLogstream, r.logstream(env))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
	r.mu.Lock()
	r.served[env]++
	if queued {
		r.queued++
	}
	r.mu.Unlock()
}

// logstream is the name an answer from env carries: its own, or with SwapLogstreams on every
// other answer the next environment's.
func (r *Router) logstream(env int) string {
	r.mu.Lock()
	r.seq++
	odd := r.seq%2 == 1
	r.mu.Unlock()
	if r.cfg.SwapLogstreams && odd {
		env = (env + 1) % len(r.cfg.Environments)
	}
	return r.cfg.Environments[env].Logstream
}

// acquire takes a slot in the environment the policy picks, waiting while every environment is
// full; queued says it had to wait.
func (r *Router) acquire(ctx context.Context, client string) (env int, queued bool, err error) {
	r.mu.Lock()
	for {
		if env = r.pick(client); env >= 0 {
			r.inFlight[env]++
			if r.cfg.Policy == Sticky {
				r.sticky[client] = env
			}
			r.mu.Unlock()
			return env, queued, nil
		}
		queued = true
		freed := r.freed
		r.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return -1, queued, ctx.Err()
		case <-r.done:
			return -1, queued, errors.New("the router is closing")
		}
		r.mu.Lock()
	}
}

func (r *Router) release(env int) {
	r.mu.Lock()
	r.inFlight[env]--
	close(r.freed)
	r.freed = make(chan struct{})
	r.mu.Unlock()
}

// pick chooses an environment with a free slot by the policy, or -1 when none has one. r.mu is
// held.
func (r *Router) pick(client string) int {
	var free []int
	for i, n := range r.inFlight {
		if r.cfg.IgnoreConcurrencyLimit || n < r.limit {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return -1
	}
	switch r.cfg.Policy {
	case Random:
		return free[mrand.IntN(len(free))]
	case CoLocate:
		best := free[0]
		for _, i := range free {
			if r.inFlight[i] > r.inFlight[best] {
				best = i
			}
		}
		if r.inFlight[best] == 0 {
			r.turn = (r.turn + 1) % len(r.inFlight)
			best = r.turn
		}
		return best
	case Sticky:
		if i, ok := r.sticky[client]; ok && slices.Contains(free, i) {
			return i
		}
	}
	least := []int{free[0]}
	for _, i := range free[1:] {
		switch {
		case r.inFlight[i] < r.inFlight[least[0]]:
			least = []int{i}
		case r.inFlight[i] == r.inFlight[least[0]]:
			least = append(least, i)
		}
	}
	return least[mrand.IntN(len(least))]
}

// fail answers with Lambda's JSON error shape.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// NewLogstream makes a logstream name in the shape Lambda gives its log streams: the day, then a
// random hex id.
func NewLogstream() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("2006/01/02") + "/" + hex.EncodeToString(b)
}
