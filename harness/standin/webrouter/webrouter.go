// Package webrouter is a local stand-in of a Lambda Web Function's endpoint: one HTTPS address
// (HTTP/1.1 only, as Lambda's endpoints are) in front of N execution environments, each a probe
// process with a logstream name of its own. Like the endpoint it checks each request's SigV4
// signature (service lambda) when it has keys, answers 403 when the signature is wrong, adds
// lambda-web-request-id to every answer and lambda-web-logstream to those an environment served
// (Lambda documents the latter as present only sometimes; OmitLogstreamEvery leaves it off), and
// routes by a chosen policy. A request that finds no environment with a free slot is throttled
// at once with 429, as the Web Functions scaling documentation says of an endpoint whose
// maxEnvironments environments are all fully used: it is never queued. The per-environment limit
// is maxConcurrencyPerEnvironment, the ceiling of Lambda's dynamic limit; CPUBusyLimit lowers it
// while an environment runs a /cpu, as Lambda may stop routing to one under high sustained CPU;
// YoungLimit starts a new endpoint's limit low and grows it with the requests it serves, as a new
// endpoint's does; InitialEnvironments leaves some environments unused until the running ones are
// full, as Lambda scales out. An IamAuth endpoint refuses a request without X-Amz-Content-SHA256,
// as Lambda does not support unsigned payloads.
//
// Routing is the stand-in's model, not Lambda's: LeastBusy is what the Web Functions article saw
// in most trials, and the other policies exist so that each routing claim (W6-W9, W12) can be
// shown to fail against a router that breaks it.
package webrouter

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/standin/tlsca"
)

// The headers of a Web Function endpoint's answers: the request id on every one, the logstream
// "when present", and the error type, <Prefix>.<ErrorReason>, on a platform error
// (docs.aws.amazon.com/lambda/latest/dg/web-functions-http.html, Response headers).
const (
	HeaderRequestID = "lambda-web-request-id"
	HeaderLogstream = "lambda-web-logstream"
	HeaderErrorType = "lambda-web-error-type"
)

// The throttled answer. Its body is the Lambda Web service's ThrottlingException shape (HTTP 429,
// a required "message"; awscli/botocore/data/lambda-web/2025-03-07/service-2.json), with its
// x-amzn-ErrorType as the service's REST-JSON protocol names an error. No source names the data
// plane's throttling reason: ThrottledErrorType is ours, and the harness decides by the status.
const (
	ThrottlingException = "ThrottlingException"
	ThrottledErrorType  = "Platform.Throttled"
	ThrottledMessage    = "Request throttled: every execution environment of the endpoint is fully used"
)

// CPUPath is the probe protocol's CPU-bound request: while one is in flight in an environment,
// the router counts that environment as under high sustained CPU (CPUBusyLimit).
const CPUPath = "/cpu"

// SigningService is the SigV4 service name of a Web Function endpoint with IamAuth: the service
// prefix of its IAM action, lambda:InvokeWebFunctionEndpoint, and the Lambda Web API's signing
// name. No AWS page states the data plane's own; docs/fidelity.md says why a wrong one is safe.
const SigningService = "lambda"

// HeaderContentSHA256 is the payload hash header an IamAuth request must carry: Lambda does not
// support unsigned payloads (CloudFront's "Restrict access to an AWS Lambda function URL origin").
const HeaderContentSHA256 = "X-Amz-Content-Sha256"

// unsignedPayload is the value SigV4 allows in place of a payload hash, which Lambda refuses.
const unsignedPayload = "UNSIGNED-PAYLOAD"

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
	// YoungLimit, when not zero, makes the endpoint young: its per-environment limit starts at
	// YoungLimit and grows in step with the requests the endpoint has served, to
	// MaxConcurrencyPerEnvironment once it has served MatureAfter. AWS documents that a new
	// endpoint starts with a low dynamic concurrency that grows with traffic (agent-toolkit-for-aws,
	// scaling-and-concurrency.md, "New Endpoints Start With a Low Concurrency"); no source gives
	// the starting limit, how it grows or after how many requests it reaches its ceiling: both
	// numbers, and the straight-line growth, are the user's.
	YoungLimit int
	// MatureAfter is the number of served requests after which a young endpoint's limit is
	// MaxConcurrencyPerEnvironment (with YoungLimit only; no source gives it).
	MatureAfter int
	// InitialEnvironments, when not zero, is how many of Environments take requests from the
	// start: the next one starts taking them only when a request finds no free slot in any that
	// does, as Lambda scales out new environments when the running ones reach their limit
	// (web-functions-scaling). Once started, an environment stays. Zero: all of them from the start.
	InitialEnvironments int
	// CPUBusyLimit, when not zero, is an environment's limit while a /cpu runs in it (at most
	// MaxConcurrencyPerEnvironment, counting the /cpu): Lambda's limit is dynamic, with
	// maxConcurrencyPerEnvironment its ceiling, and Lambda may not route new requests to an
	// environment with high sustained CPU. 1 keeps every other request off such an environment.
	CPUBusyLimit int
	// OmitLogstreamEvery, when not zero, leaves lambda-web-logstream off every Nth answer an
	// environment served (counted over all answers): Lambda documents the header as present only
	// sometimes.
	OmitLogstreamEvery int
	// IgnoreConcurrencyLimit routes as if every environment always had a free slot (neither
	// limit applies): it breaks W12 on purpose.
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
	if b, m := c.CPUBusyLimit, cmp.Or(c.MaxConcurrencyPerEnvironment, DefaultMaxConcurrency); b < 0 || b > m {
		errs = append(errs, fmt.Errorf("webrouter: CPUBusyLimit = %d: want 0 (off) or 1 to MaxConcurrencyPerEnvironment (%d)", b, m))
	}
	if y, m := c.YoungLimit, cmp.Or(c.MaxConcurrencyPerEnvironment, DefaultMaxConcurrency); y < 0 || y > m {
		errs = append(errs, fmt.Errorf("webrouter: YoungLimit = %d: want 0 (a mature endpoint) or 1 to MaxConcurrencyPerEnvironment (%d)", y, m))
	}
	if c.YoungLimit > 0 && c.MatureAfter < 1 {
		errs = append(errs, fmt.Errorf("webrouter: MatureAfter = %d: a young endpoint (YoungLimit %d) needs the served requests after which its limit is the ceiling, at least 1", c.MatureAfter, c.YoungLimit))
	}
	if c.YoungLimit == 0 && c.MatureAfter != 0 {
		errs = append(errs, fmt.Errorf("webrouter: MatureAfter = %d without YoungLimit: want 0, or a YoungLimit to grow from", c.MatureAfter))
	}
	if n := c.InitialEnvironments; n < 0 || n > len(c.Environments) {
		errs = append(errs, fmt.Errorf("webrouter: InitialEnvironments = %d: want 0 (all) or 1 to len(Environments) (%d)", n, len(c.Environments)))
	}
	if n := c.OmitLogstreamEvery; n < 0 {
		errs = append(errs, fmt.Errorf("webrouter: OmitLogstreamEvery = %d: want 0 (off) or N >= 1 (every Nth answer)", n))
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

	mu        sync.Mutex
	running   int // environments taking requests: InitialEnvironments, then more as they fill
	inFlight  []int
	cpus      []int          // /cpu requests in flight, per environment, for CPUBusyLimit
	sticky    map[string]int // client address -> environment, for Sticky
	served    []int          // requests answered, per environment
	throttled int            // requests answered 429: no environment had a free slot
	omitted   int            // answers sent without lambda-web-logstream
	seq       uint64         // answers so far, for SwapLogstreams and OmitLogstreamEvery
	turn      int            // the next idle environment for CoLocate
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
		cpus: make([]int, len(cfg.Environments)), sticky: map[string]int{},
		upstream: &http.Transport{MaxIdleConnsPerHost: 2 * 128, IdleConnTimeout: 4 * time.Second, DisableCompression: true},
	}
	if r.limit == 0 {
		r.limit = DefaultMaxConcurrency
	}
	r.running = cmp.Or(cfg.InitialEnvironments, len(cfg.Environments))
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

// Close stops the router, waiting a few seconds for requests in flight; nothing is left running.
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
	Served                       []int  `json:"served"`           // answers per environment, in Environments' order
	InFlight                     []int  `json:"inFlight"`         // requests in flight now, per environment
	Throttled                    int    `json:"throttled"`        // requests answered 429, no environment having a free slot
	Limit                        int    `json:"limit"`            // the per-environment limit now: YoungLimit grown, or the ceiling
	Running                      int    `json:"running"`          // environments taking requests now (InitialEnvironments)
	LogstreamOmitted             int    `json:"logstreamOmitted"` // served answers sent without lambda-web-logstream
}

// Stats returns what the router has done so far.
func (r *Router) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{
		Policy: r.cfg.Policy, MaxConcurrencyPerEnvironment: r.limit, Served: slices.Clone(r.served),
		InFlight: slices.Clone(r.inFlight), Throttled: r.throttled, LogstreamOmitted: r.omitted,
		Limit: r.dynamicLimit(), Running: r.running,
	}
}

// serve routes one request.
func (r *Router) serve(w http.ResponseWriter, req *http.Request) {
	id := newRequestID()
	w.Header().Set(HeaderRequestID, id)
	if r.cfg.Keys != nil {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		if f := r.cfg.Keys.Authorize(req, body, SigningService, r.cfg.Region); f != nil {
			// A Web Function's endpoint answers every refusal alike: 403 and a message.
			fail(w, http.StatusForbidden, f.Error())
			return
		}
		if h := req.Header.Get(HeaderContentSHA256); h == "" || h == unsignedPayload {
			fail(w, http.StatusForbidden, fmt.Sprintf("%s = %q: Lambda does not support unsigned payloads; a signed request must carry its payload's SHA-256", HeaderContentSHA256, h))
			return
		}
	}
	cpu := req.URL.Path == CPUPath
	env := r.acquire(req.RemoteAddr, cpu)
	if env < 0 {
		throttle(w)
		return
	}
	defer r.release(env, cpu)
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
	if log, ok := r.logstream(env); ok {
		w.Header().Set(HeaderLogstream, log)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
	r.mu.Lock()
	r.served[env]++
	r.mu.Unlock()
}

// logstream is the name an answer from env carries and whether it carries one: its own, or with
// SwapLogstreams on every other answer the next environment's; none on every OmitLogstreamEvery-th.
func (r *Router) logstream(env int) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	if n := uint64(r.cfg.OmitLogstreamEvery); n > 0 && r.seq%n == 0 {
		r.omitted++
		return "", false
	}
	if r.cfg.SwapLogstreams && r.seq%2 == 1 {
		env = (env + 1) % len(r.cfg.Environments)
	}
	return r.cfg.Environments[env].Logstream, true
}

// fail answers with Lambda's JSON error shape.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// throttle answers a request no environment had a slot for: 429 with the ThrottlingException
// shape, and no logstream, since no environment served it.
func throttle(w http.ResponseWriter) {
	w.Header().Set(HeaderErrorType, ThrottledErrorType)
	w.Header().Set("X-Amzn-Errortype", ThrottlingException)
	fail(w, http.StatusTooManyRequests, ThrottledMessage)
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
