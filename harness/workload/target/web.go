package target

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The headers a Lambda Web Function endpoint adds to its answers: the request id, the logstream
// "when present" (so never taken for granted), and a platform error's type.
const (
	HeaderRequestID = "lambda-web-request-id"
	HeaderLogstream = "lambda-web-logstream"
	HeaderErrorType = "lambda-web-error-type"
)

// ErrThrottled is what a request the endpoint throttled (HTTP 429) fails with: every execution
// environment was fully used, and Lambda refuses such a request at once instead of queueing it.
// It is an outcome of the request, not a broken measurement.
var ErrThrottled = errors.New("the endpoint throttled the request (HTTP 429)")

// ErrCredentials is what a request the endpoint refused as unsigned or wrongly signed (403)
// fails with: a problem with the caller's credentials, never a finding about the function.
var ErrCredentials = errors.New("the endpoint refused the request's credentials (HTTP 403): check the AWS credentials and region, and that they may call lambda:InvokeWebFunctionEndpoint")

// emptySHA256 is the SigV4 payload hash of a GET's empty body.
var emptySHA256 = func() string { s := sha256.Sum256(nil); return hex.EncodeToString(s[:]) }()

// WebOptions say how to reach a Web Function endpoint.
type WebOptions struct {
	// Credentials sign every request with SigV4 (service lambda), for an IamAuth endpoint; nil
	// sends requests unsigned, for an ApplicationManaged one.
	Credentials aws.CredentialsProvider
	Region      string         // the signature's region; required with Credentials
	RootCAs     *x509.CertPool // nil: the system's roots
}

// Web is a Lambda Web Function endpoint (or the local stand-in of one, harness/standin/webrouter): HTTPS,
// HTTP/1.1 only, each answer naming its environment's logstream.
type Web struct {
	base   string
	o      WebOptions
	signer *v4.Signer
	client *http.Client
}

// NewWeb returns a target for the endpoint at rawURL (https://host[:port]).
func NewWeb(rawURL string, o WebOptions) (*Web, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("web target: URL %q: want https://host[:port] with no path or query", rawURL)
	}
	if o.Credentials != nil && o.Region == "" {
		return nil, errors.New("web target: a signing target needs the region its endpoint is in")
	}
	return &Web{
		base:   "https://" + u.Host,
		o:      o,
		signer: v4.NewSigner(),
		client: &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: o.RootCAs, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12},
			// The endpoints speak HTTP/1.1 only; an empty map keeps the transport from trying h2.
			TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     4 * time.Second,
			DisableCompression:  true,
		}},
	}, nil
}

// Get implements Target: GET path, signed when the options carry credentials. A 403 is an error
// wrapping ErrCredentials, a 429 one wrapping ErrThrottled; any other status is the caller's to
// judge.
func (w *Web) Get(ctx context.Context, path string) Reply {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.base+path, nil)
	if err != nil {
		return Reply{Path: path, Err: err}
	}
	if w.o.Credentials != nil {
		creds, err := w.o.Credentials.Retrieve(ctx)
		if err != nil {
			return Reply{Path: path, Err: fmt.Errorf("%w: retrieving credentials: %v", ErrCredentials, err)}
		}
		// Lambda does not support unsigned payloads: the payload's hash goes in the header and
		// into the signature; "lambda" is the signing name (docs/fidelity.md gives the sources).
		req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		if err := w.signer.SignHTTP(ctx, creds, req, emptySHA256, "lambda", w.o.Region, time.Now()); err != nil {
			return Reply{Path: path, Err: fmt.Errorf("signing GET %s: %w", path, err)}
		}
	}
	r, h := exchange(w.client, req, path)
	if h != nil {
		r.EnvHint, r.RequestID = h.Get(HeaderLogstream), h.Get(HeaderRequestID)
	}
	switch r.Status {
	case http.StatusForbidden:
		r.Err = fmt.Errorf("GET %s: %w", path, ErrCredentials)
	case http.StatusTooManyRequests:
		r.Err = fmt.Errorf("GET %s: %w, error type %q", path, ErrThrottled, h.Get(HeaderErrorType))
	}
	return r
}

// Close drops the target's idle connections.
func (w *Web) Close() { w.client.CloseIdleConnections() }
