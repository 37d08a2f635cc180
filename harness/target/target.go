// Package target is where an experiment's requests go. A Target sends one GET and says what came
// back, with the client's own send and receive times; the local target talks to a probe on
// loopback, and a live target (build tag lambda) will talk to a Lambda Web Function, so that one
// experiment body serves both.
package target

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/serverless-claims/claims/harness/protocol"
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
	Err     error
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
	r := Reply{Path: path}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base+path, nil)
	if err != nil {
		r.Err = err
		return r
	}
	r.SentAt = time.Now()
	resp, err := l.client.Do(req)
	if err != nil {
		r.DoneAt = time.Now()
		r.Err = err
		return r
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	r.DoneAt = time.Now()
	r.Status = resp.StatusCode
	if err != nil {
		r.Err = fmt.Errorf("GET %s: reading the answer: %w", path, err)
		return r
	}
	if r.Answer, err = protocol.ParseAnswer(body); err != nil {
		r.Err = fmt.Errorf("GET %s: status %d: %w", path, resp.StatusCode, err)
	}
	return r
}

// Close drops the target's idle connections.
func (l *Local) Close() { l.client.CloseIdleConnections() }
