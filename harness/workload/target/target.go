// Package target is where an experiment's requests go. A Target sends one GET and says what came
// back, with the client's own send and receive times; the local target talks to a probe on
// loopback, and Web talks to a Lambda Web Function's endpoint (or its local stand-in), so that one
// experiment body serves both.
package target

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/serverless-claims/claims/harness/workload/protocol"
)

// Target sends requests to one probe deployment.
type Target interface {
	// Get sends GET path and returns the reply; a failure is in Reply.Err, never a panic.
	Get(ctx context.Context, path string) Reply
}

// Reply is one request's outcome.
type Reply struct {
	Path   string
	SentAt time.Time // the client's monotonic clock, just before the request was written
	DoneAt time.Time // the client's monotonic clock, after the whole answer was read
	Status int
	Answer protocol.Answer
	// EnvHint is the platform's own word on which environment answered (Lambda's
	// lambda-web-logstream header); empty locally, where there is one process.
	EnvHint string
	// RequestID is the platform's id of the request (lambda-web-request-id); empty locally.
	RequestID string
	Err       error
}

// Local is a probe on this machine.
type Local struct {
	base   string
	client *http.Client
}

// NewLocal returns a target for the probe listening at addr (host:port).
func NewLocal(addr string) *Local {
	return &Local{
		base: "http://" + addr,
		client: &http.Client{Transport: &http.Transport{
			// Keep a few connections so concurrent requests of a trial do not wait for a dial;
			// drop them before the probes' idle timeout (Node's is 5 s) can race a request.
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     4 * time.Second,
			DisableCompression:  true,
		}},
	}
}

// Get implements Target. A status other than 200 is not an error here: the reply carries it, and
// the caller decides (the protocol tests want their 400s).
func (l *Local) Get(ctx context.Context, path string) Reply {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base+path, nil)
	if err != nil {
		return Reply{Path: path, Err: err}
	}
	r, _ := exchange(l.client, req, path)
	return r
}

// exchange sends req and reads its answer as the probe protocol's, timing both on the client's
// clock; it returns the answer's headers for a target that reads more of them (nil on error).
func exchange(client *http.Client, req *http.Request, path string) (Reply, http.Header) {
	r := Reply{Path: path}
	r.SentAt = time.Now()
	resp, err := client.Do(req)
	if err != nil {
		r.DoneAt = time.Now()
		r.Err = err
		return r, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	r.DoneAt = time.Now()
	r.Status = resp.StatusCode
	if err != nil {
		r.Err = fmt.Errorf("GET %s: reading the answer: %w", path, err)
		return r, resp.Header
	}
	if r.Answer, err = protocol.ParseAnswer(body); err != nil {
		r.Err = fmt.Errorf("GET %s: status %d: %w (%.200s)", path, resp.StatusCode, err, body)
	}
	return r, resp.Header
}

// Close drops the target's idle connections.
func (l *Local) Close() { l.client.CloseIdleConnections() }
