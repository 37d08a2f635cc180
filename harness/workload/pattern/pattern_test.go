package pattern

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/workload/protocol"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/harness/workload/target"
)

// fakeTarget answers at once and remembers when each path was asked for.
type fakeTarget struct {
	mu       sync.Mutex
	start    time.Time
	seen     []string
	at       map[string][]time.Duration
	fail     string // a path that errs
	throttle string // a path the endpoint throttles, as a Web target reports it
}

func (f *fakeTarget) Get(_ context.Context, path string) target.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	f.seen = append(f.seen, path)
	f.at[path] = append(f.at[path], now.Sub(f.start))
	r := target.Reply{Path: path, SentAt: now, DoneAt: now, Status: 200,
		Answer: protocol.Answer{EnvID: "e", PID: 1}}
	switch path {
	case f.fail:
		r.Err = errors.New("connection refused")
	case f.throttle:
		r.Status, r.Answer = http.StatusTooManyRequests, protocol.Answer{}
		r.Err = fmt.Errorf("GET %s: %w", path, target.ErrThrottled)
	}
	return r
}

func TestTwoCPUSendsAtTheArticlesOffsets(t *testing.T) {
	f := &fakeTarget{start: time.Now(), at: map[string][]time.Duration{}}
	p := TwoCPU(CPU{Ms: 500})
	trials, err := Run(context.Background(), f, p, Schedule{Trials: 1, Warmup: 2})
	require.NoError(t, err)
	require.Len(t, trials, 1)

	assert.Equal(t, []string{"/ping", "/ping"}, f.seen[:2], "warm-up pings come first")
	byName := map[string]record.Request{}
	for _, r := range trials[0].Requests {
		byName[r.Name] = r
	}
	assert.Equal(t, "/cpu?ms=500", byName["cpu"].Path)
	assert.Equal(t, 50.0, byName["cpu2"].OffsetMs)
	assert.Equal(t, 65.0, byName["ping"].OffsetMs)
	// Sleeping never wakes early, so each request goes at or after its offset. How late it goes
	// is the machine's; that each is scheduled for its own offset is the pattern's, and is
	// checked on the instants it asked to wake at.
	for _, name := range []string{"cpu", "cpu2", "ping"} {
		r := byName[name]
		assert.GreaterOrEqual(t, r.SentMs, r.OffsetMs, "%s sent at %.2f ms; want at or after %.0f ms", name, r.SentMs, r.OffsetMs)
	}
	assert.Len(t, trials[0].Of(record.KindCPU), 2)
	assert.Len(t, trials[0].Of(record.KindPing), 1)
}

func TestRunPausesBetweenTrials(t *testing.T) {
	f := &fakeTarget{start: time.Now(), at: map[string][]time.Duration{}}
	trials, err := Run(context.Background(), f, PingOnly(), Schedule{Trials: 3, Pause: 30 * time.Millisecond})
	require.NoError(t, err)
	assert.Len(t, trials, 3)
	pings := f.at["/ping"]
	for i := 1; i < len(pings); i++ {
		assert.GreaterOrEqual(t, pings[i]-pings[i-1], 30*time.Millisecond, "gap before trial %d", i)
	}
}

func TestRunStopsAtAFailingRequest(t *testing.T) {
	f := &fakeTarget{start: time.Now(), at: map[string][]time.Duration{}, fail: CPU{Ms: 100, Mode: "worker"}.Path()}
	trials, err := Run(context.Background(), f, OneCPU(CPU{Ms: 100, Mode: "worker"}), Schedule{Trials: 5})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection refused")
	assert.Len(t, trials, 1, "the failing trial is returned, and no more are run")
}

func TestRunRefusesNoTrials(t *testing.T) {
	_, err := Run(context.Background(), &fakeTarget{at: map[string][]time.Duration{}}, PingOnly(), Schedule{})
	assert.ErrorContains(t, err, "trials = 0")
}

func TestThrottledRequestIsAnOutcome(t *testing.T) {
	f := &fakeTarget{start: time.Now(), at: map[string][]time.Duration{}, throttle: "/ping"}
	trials, err := Run(context.Background(), f, OneCPU(CPU{Ms: 100}), Schedule{Trials: 3, Warmup: 2})
	require.NoError(t, err, "a throttled /ping (and warm-up /ping) must not end the run")
	require.Len(t, trials, 3, "every trial runs")
	for _, tr := range trials {
		ping := tr.Of(record.KindPing)[0]
		assert.True(t, ping.Throttled, "trial %d: /ping throttled = false; want true (%+v)", tr.Index, ping)
		assert.Equal(t, http.StatusTooManyRequests, ping.Status, "trial %d: /ping status", tr.Index)
		assert.Empty(t, ping.Error, "trial %d: a throttled /ping is an outcome, not an error", tr.Index)
		assert.False(t, ping.Served(), "trial %d: a throttled /ping was served by no environment", tr.Index)
		assert.GreaterOrEqual(t, ping.DoneMs, ping.SentMs, "trial %d: the throttled /ping keeps its times", tr.Index)
		assert.Equal(t, 1, tr.Throttled(""), "trial %d: throttled requests", tr.Index)
		assert.True(t, tr.Of(record.KindCPU)[0].Served(), "trial %d: the /cpu was served", tr.Index)
	}
}

// TestEachRequestIsScheduledAtItsOffset: each request of a trial is scheduled for the trial's
// start plus its own offset, whatever the machine makes of the wake-ups.
func TestEachRequestIsScheduledAtItsOffset(t *testing.T) {
	var mu sync.Mutex
	var wakes []time.Time
	real := sleepUntil
	sleepUntil = func(at time.Time) {
		mu.Lock()
		wakes = append(wakes, at)
		mu.Unlock()
		real(at)
	}
	t.Cleanup(func() { sleepUntil = real })

	f := &fakeTarget{start: time.Now(), at: map[string][]time.Duration{}}
	_, err := Run(context.Background(), f, TwoCPU(CPU{Ms: 500}), Schedule{Trials: 1})
	require.NoError(t, err)
	require.Len(t, wakes, 3, "scheduled sends of one two-cpu trial")
	slices.SortFunc(wakes, func(a, b time.Time) int { return a.Compare(b) })
	got := []time.Duration{wakes[1].Sub(wakes[0]), wakes[2].Sub(wakes[0])}
	assert.Equal(t, []time.Duration{SecondCPUOffset, SecondCPUOffset + PingAfterCPU}, got,
		"second /cpu and /ping scheduled after the first /cpu = %v; want the article's offsets", got)
}
