// Package pattern holds the article's request patterns (claims W1-W12) and runs them against a
// target: each trial sends its requests at exact offsets from the trial's start, waits for every
// answer, then pauses. It measures and records (harness/workload/record, which also decides from
// one probe's own clock whether a /ping waited behind a /cpu, so that network jitter and a noisy
// machine cannot touch that); a claim's verdict is the verdict package's job. A request the endpoint throttled (HTTP 429) is
// an outcome of its own, recorded with its status and times, never an error of the run.
package pattern

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/harness/workload/target"
)

// The article's offsets: /ping goes 15 ms after the (last) /cpu, and in the "all busy" pattern
// the second /cpu goes 50 ms after the first.
const (
	PingAfterCPU    = 15 * time.Millisecond
	SecondCPUOffset = 50 * time.Millisecond
)

// Step is one request of a trial, sent Offset after the trial starts.
type Step struct {
	Name   string        // unique in the pattern: cpu, cpu2, ping
	Kind   string        // record.KindCPU or record.KindPing
	Path   string        // with its query
	Offset time.Duration //
}

// Pattern is what one trial sends.
type Pattern struct {
	Name  string
	Steps []Step
}

// CPU is what each /cpu of a pattern asks for.
type CPU struct {
	Ms   int    // how long to spin
	Mode string // the probe's mode: empty for the default spin, or worker, pbkdf2
}

// Path is the /cpu request for c.
func (c CPU) Path() string {
	q := url.Values{"ms": {strconv.Itoa(c.Ms)}}
	if c.Mode != "" {
		q.Set("mode", c.Mode)
	}
	return "/cpu?" + q.Encode()
}

// PingOnly is the baseline: one /ping per trial (W1).
func PingOnly() Pattern {
	return Pattern{Name: "ping-only", Steps: []Step{{Name: "ping", Kind: record.KindPing, Path: "/ping"}}}
}

// OneCPU is "a free environment exists": /cpu, then /ping 15 ms later (W2, W4, W6).
func OneCPU(c CPU) Pattern {
	return Pattern{Name: "one-cpu", Steps: []Step{
		{Name: "cpu", Kind: record.KindCPU, Path: c.Path()},
		{Name: "ping", Kind: record.KindPing, Path: "/ping", Offset: PingAfterCPU},
	}}
}

// TwoCPU is "every environment busy": /cpu, a second /cpu 50 ms later, then /ping 15 ms after
// the second (W3, W5, W7).
func TwoCPU(c CPU) Pattern {
	return Pattern{Name: "two-cpu", Steps: []Step{
		{Name: "cpu", Kind: record.KindCPU, Path: c.Path()},
		{Name: "cpu2", Kind: record.KindCPU, Path: c.Path(), Offset: SecondCPUOffset},
		{Name: "ping", Kind: record.KindPing, Path: "/ping", Offset: SecondCPUOffset + PingAfterCPU},
	}}
}

// Schedule is how many trials to run and how long to pause between them.
type Schedule struct {
	Trials int
	Pause  time.Duration
	// Warmup is how many /ping to send, one after another and unrecorded, before the first
	// trial: they open the connection and let a JIT compile the request path, so the first
	// trials measure the runtime and not its start.
	Warmup int
}

// Run runs s.Trials trials of p against tgt. Each request must answer 200 with a protocol answer
// or be throttled (429, recorded as Throttled); the first that does neither ends the run with an
// error, and the trials so far are returned. A throttled warm-up /ping is skipped.
func Run(ctx context.Context, tgt target.Target, p Pattern, s Schedule) ([]record.Trial, error) {
	if s.Trials < 1 {
		return nil, fmt.Errorf("pattern %s: trials = %d; want at least 1", p.Name, s.Trials)
	}
	for i := 0; i < s.Warmup; i++ {
		if r := tgt.Get(ctx, "/ping"); r.Err != nil && !throttled(r) {
			return nil, fmt.Errorf("pattern %s, warm-up /ping %d: %w", p.Name, i, r.Err)
		}
	}
	var trials []record.Trial
	for i := 0; i < s.Trials; i++ {
		tr, err := runTrial(ctx, tgt, p, i)
		trials = append(trials, tr)
		if err != nil {
			return trials, fmt.Errorf("pattern %s, trial %d: %w", p.Name, i, err)
		}
		if i < s.Trials-1 {
			select {
			case <-ctx.Done():
				return trials, ctx.Err()
			case <-time.After(s.Pause):
			}
		}
	}
	return trials, nil
}

// sleepUntil waits until at; the tests replace it to see which instant each request was
// scheduled for, which a busy machine's late wake-ups cannot blur.
var sleepUntil = func(at time.Time) { time.Sleep(time.Until(at)) }

func runTrial(ctx context.Context, tgt target.Target, p Pattern, index int) (record.Trial, error) {
	tr := record.Trial{Index: index, Requests: make([]record.Request, len(p.Steps))}
	start := time.Now()
	ms := func(t time.Time) float64 { return float64(t.Sub(start).Nanoseconds()) / 1e6 }
	errs := make([]error, len(p.Steps))
	var wg sync.WaitGroup
	for i, st := range p.Steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sleepUntil(start.Add(st.Offset))
			r := tgt.Get(ctx, st.Path)
			req := record.Request{
				Name: st.Name, Kind: st.Kind, Path: st.Path,
				OffsetMs: float64(st.Offset.Nanoseconds()) / 1e6,
				SentMs:   ms(r.SentAt), DoneMs: ms(r.DoneAt), LatencyMs: ms(r.DoneAt) - ms(r.SentAt),
				Status: r.Status, Answer: r.Answer, EnvHint: r.EnvHint, RequestID: r.RequestID,
			}
			if throttled(r) {
				req.Throttled = true
			} else if r.Err != nil {
				req.Error = r.Err.Error()
				errs[i] = fmt.Errorf("%s %s: %w", st.Name, st.Path, r.Err)
			} else if r.Status != 200 {
				req.Error = fmt.Sprintf("status %d: %s", r.Status, r.Answer.Error)
				errs[i] = fmt.Errorf("%s %s: %s", st.Name, st.Path, req.Error)
			}
			tr.Requests[i] = req
		}()
	}
	wg.Wait()
	// Joined with %w, so that a caller can tell a credentials error (target.ErrCredentials).
	return tr, errors.Join(errs...)
}

// throttled says the endpoint throttled r: status 429, whatever the target made of its body.
func throttled(r target.Reply) bool {
	return r.Status == http.StatusTooManyRequests || errors.Is(r.Err, target.ErrThrottled)
}
