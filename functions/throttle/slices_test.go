package main

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/results/family/throttle"
)

// script is a fake clock: each call returns the next of the times, in ms rounded to the ns, and
// the test fails if the loop reads past the last.
func script(t *testing.T, msTimes ...float64) func() time.Duration {
	t.Helper()
	i := 0
	return func() time.Duration {
		if i >= len(msTimes) {
			require.FailNow(t, "clock read past the script", "reads = %d; want at most %d", i+1, len(msTimes))
		}
		d := time.Duration(math.Round(msTimes[i] * float64(time.Millisecond)))
		i++
		return d
	}
}

func TestSlices(t *testing.T) {
	tests := []struct {
		name   string
		busyMs float64
		clock  []float64 // ms
		runs   []throttle.Span
		stalls []throttle.Span
		wallMs float64
	}{
		{
			name:   "no stall",
			busyMs: 1,
			clock:  []float64{0, 0.1, 0.4, 0.8, 1.2},
			runs:   []throttle.Span{{StartMs: 0, EndMs: 1.2}},
			wallMs: 1.2,
		},
		{
			// Gaps of 0.2 and 0.4 ms are under the 0.5 ms threshold, and only the loop's first
			// read is its start.
			name:   "stalls and short gaps",
			busyMs: 10.2,
			clock:  []float64{3, 3.1, 3.2, 4, 4.1, 4.3, 4.7, 8, 8.2, 13.1, 13.3},
			runs:   []throttle.Span{{StartMs: 0, EndMs: 0.2}, {StartMs: 1, EndMs: 1.7}, {StartMs: 5, EndMs: 5.2}, {StartMs: 10.1, EndMs: 10.3}},
			stalls: []throttle.Span{{StartMs: 0.2, EndMs: 1}, {StartMs: 1.7, EndMs: 5}, {StartMs: 5.2, EndMs: 10.1}},
			wallMs: 10.3,
		},
		{
			// 0.5 ms to the ns is a stall, a ns less is not; a stall first leaves a run of no
			// length before it.
			name:   "threshold",
			busyMs: 2.05,
			clock:  []float64{0, 0.5, 0.99, 1.489999, 2, 2.1},
			runs:   []throttle.Span{{StartMs: 0, EndMs: 0}, {StartMs: 0.5, EndMs: 1.489999}, {StartMs: 2, EndMs: 2.1}},
			stalls: []throttle.Span{{StartMs: 0, EndMs: 0.5}, {StartMs: 1.489999, EndMs: 2}},
			wallMs: 2.1,
		},
		{
			// The loop ends on the read that ends a stall, leaving a run of no length.
			name:   "ends on a stall",
			busyMs: 5,
			clock:  []float64{0, 0.1, 5},
			runs:   []throttle.Span{{StartMs: 0, EndMs: 0.1}, {StartMs: 5, EndMs: 5}},
			stalls: []throttle.Span{{StartMs: 0.1, EndMs: 5}},
			wallMs: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			busy := time.Duration(tt.busyMs * float64(time.Millisecond))
			o := slices(busy, defaultGap, script(t, tt.clock...))

			assert.InDelta(t, tt.wallMs, o.WallMs, 1e-9, "WallMs = %v; want %v", o.WallMs, tt.wallMs)
			assert.Equal(t, 0.5, o.GapMs, "GapMs = %v; want 0.5", o.GapMs)
			assertSpans(t, "Runs", o.Runs, tt.runs)
			assertSpans(t, "Stalls", o.Stalls, tt.stalls)

			// Runs and stalls alternate and tile the loop: run, stall, run, ..., run.
			require.Len(t, o.Runs, len(o.Stalls)+1, "len(Runs) = %d; want len(Stalls)+1 = %d", len(o.Runs), len(o.Stalls)+1)
			stalled := 0.0
			for i, s := range o.Stalls {
				assert.Equal(t, o.Runs[i].EndMs, s.StartMs, "Stalls[%d].StartMs = %v; want Runs[%d].EndMs %v", i, s.StartMs, i, o.Runs[i].EndMs)
				assert.Equal(t, o.Runs[i+1].StartMs, s.EndMs, "Stalls[%d].EndMs = %v; want Runs[%d].StartMs %v", i, s.EndMs, i+1, o.Runs[i+1].StartMs)
				stalled += s.EndMs - s.StartMs
			}
			assert.Equal(t, 0.0, o.Runs[0].StartMs, "Runs[0].StartMs = %v; want 0", o.Runs[0].StartMs)
			assert.Equal(t, o.WallMs, o.Runs[len(o.Runs)-1].EndMs, "last run's EndMs = %v; want WallMs %v", o.Runs[len(o.Runs)-1].EndMs, o.WallMs)
			assert.InDelta(t, o.WallMs-stalled, o.RunMs, 1e-9, "RunMs = %v; want WallMs - stalls = %v", o.RunMs, o.WallMs-stalled)
		})
	}
}

// assertSpans compares spans to within a nanosecond, since they are converted from durations.
func assertSpans(t *testing.T, what string, got, want []throttle.Span) {
	t.Helper()
	if !assert.Len(t, got, len(want), "len(%s) = %d; want %d (%v)", what, len(got), len(want), got) {
		return
	}
	for i := range want {
		assert.InDelta(t, want[i].StartMs, got[i].StartMs, 1e-6, "%s[%d].StartMs = %v; want %v", what, i, got[i].StartMs, want[i].StartMs)
		assert.InDelta(t, want[i].EndMs, got[i].EndMs, 1e-6, "%s[%d].EndMs = %v; want %v", what, i, got[i].EndMs, want[i].EndMs)
	}
}

func TestSlicesGap(t *testing.T) {
	// The threshold is the caller's: with 1 ms, a gap of 0.8 ms is no stall.
	o := slices(2*time.Millisecond, time.Millisecond, script(t, 0, 0.8, 1.6, 2))
	assert.Equal(t, 1.0, o.GapMs, "GapMs = %v; want 1", o.GapMs)
	assert.Empty(t, o.Stalls, "Stalls = %v; want none", o.Stalls)
	assert.Len(t, o.Runs, 1, "Runs = %v; want one run", o.Runs)
	assert.InDelta(t, 2, o.RunMs, 1e-9, "RunMs = %v; want 2", o.RunMs)
}

func TestDurations(t *testing.T) {
	tests := []struct {
		name    string
		ev      event
		busy    time.Duration
		gap     time.Duration
		errWith string // a substring of the error, "" for none
	}{
		{"default gap", event{BusyMs: 1000}, time.Second, 500 * time.Microsecond, ""},
		{"gap given", event{BusyMs: 20, GapMs: 2}, 20 * time.Millisecond, 2 * time.Millisecond, ""},
		{"least", event{BusyMs: 1, GapMs: 0.05}, time.Millisecond, 50 * time.Microsecond, ""},
		{"most", event{BusyMs: 60000, GapMs: 100}, time.Minute, 100 * time.Millisecond, ""},
		{"busy 0", event{BusyMs: 0}, 0, 0, "busyMs"},
		{"busy negative", event{BusyMs: -1}, 0, 0, "busyMs"},
		{"busy over a minute", event{BusyMs: 60001}, 0, 0, "busyMs"},
		{"busy past int64 ns", event{BusyMs: 1e300}, 0, 0, "busyMs"},
		{"busy NaN", event{BusyMs: math.NaN()}, 0, 0, "busyMs"},
		{"gap too short", event{BusyMs: 10, GapMs: 0.01}, 0, 0, "gapMs"},
		{"gap too long", event{BusyMs: 10, GapMs: 200}, 0, 0, "gapMs"},
		{"gap negative", event{BusyMs: 10, GapMs: -1}, 0, 0, "gapMs"},
		{"gap NaN", event{BusyMs: 10, GapMs: math.NaN()}, 0, 0, "gapMs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			busy, gap, err := tt.ev.durations()
			if tt.errWith != "" {
				require.Error(t, err, "durations(%+v) err = nil; want an error naming %s", tt.ev, tt.errWith)
				assert.Contains(t, err.Error(), tt.errWith, "err = %q; want it to name %s", err, tt.errWith)
				return
			}
			require.NoError(t, err, "durations(%+v) err = %v; want nil", tt.ev, err)
			assert.Equal(t, tt.busy, busy, "busy = %v; want %v", busy, tt.busy)
			assert.Equal(t, tt.gap, gap, "gap = %v; want %v", gap, tt.gap)
		})
	}
}

func TestObserve(t *testing.T) {
	o := observe(20*time.Millisecond, defaultGap)
	assert.GreaterOrEqual(t, o.WallMs, 20.0, "WallMs = %v; want at least 20", o.WallMs)
	assert.LessOrEqual(t, o.RunMs, o.WallMs, "RunMs = %v; want at most WallMs %v", o.RunMs, o.WallMs)
	assert.Positive(t, o.RunMs, "RunMs = %v; want > 0", o.RunMs)
	assert.Positive(t, o.ThreadCPUMs, "ThreadCPUMs = %v; want > 0", o.ThreadCPUMs)
	assert.GreaterOrEqual(t, o.ProcessCPUMs, o.ThreadCPUMs, "ProcessCPUMs = %v; want at least ThreadCPUMs %v", o.ProcessCPUMs, o.ThreadCPUMs)
	assert.Len(t, o.Runs, len(o.Stalls)+1, "len(Runs) = %d; want len(Stalls)+1 = %d", len(o.Runs), len(o.Stalls)+1)
}

func TestHandle(t *testing.T) {
	f := &function{pid: 42, numCPU: 2, memoryMB: 1769}
	ctx := context.Background()

	_, err := f.handle(ctx, event{BusyMs: 0})
	require.Error(t, err, "handle(busyMs 0) err = nil; want an error")
	assert.Contains(t, err.Error(), "busyMs", "err = %q; want it to name busyMs", err)

	// Invocations count every invocation, the rejected one too.
	for want := 2; want <= 3; want++ {
		r, err := f.handle(ctx, event{BusyMs: 1})
		require.NoError(t, err, "handle(busyMs 1) err = %v; want nil", err)
		assert.Equal(t, want, r.Invocation, "Invocation = %d; want %d", r.Invocation, want)
		assert.Equal(t, 42, r.Pid, "Pid = %d; want 42", r.Pid)
		assert.Equal(t, 2, r.NumCPU, "NumCPU = %d; want 2", r.NumCPU)
		assert.Equal(t, 1769, r.MemoryMB, "MemoryMB = %d; want 1769", r.MemoryMB)
		assert.GreaterOrEqual(t, r.WallMs, 1.0, "WallMs = %v; want at least 1", r.WallMs)
	}
}
