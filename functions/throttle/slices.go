package main

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/serverless-claims/claims/results/family/throttle"
)

// event is what an invocation asks for.
type event struct {
	// BusyMs is how long the loop runs, in ms of wall time.
	BusyMs float64 `json:"busyMs"`
	// GapMs is the shortest gap between two clock reads that counts as a stall; 0 means
	// defaultGap.
	GapMs float64 `json:"gapMs"`
}

// Limits of an event: at most a minute of loop (Lambda's own limit is 15), and a gap that is
// well above a clock read (tens of ns) and an interrupt (µs), and below any CFS period.
const (
	defaultGap = 500 * time.Microsecond
	minBusy    = time.Millisecond
	maxBusy    = time.Minute
	minGap     = 50 * time.Microsecond
	maxGap     = 100 * time.Millisecond
)

// durations checks the event and returns its loop time and stall gap.
func (e event) durations() (busy, gap time.Duration, err error) {
	// Checked in ms before converting: a NaN or huge float has no defined Duration.
	if !(e.BusyMs >= ms(minBusy) && e.BusyMs <= ms(maxBusy)) {
		return 0, 0, fmt.Errorf("busyMs = %g; want %g to %g", e.BusyMs, ms(minBusy), ms(maxBusy))
	}
	gap = defaultGap
	if e.GapMs != 0 {
		if !(e.GapMs >= ms(minGap) && e.GapMs <= ms(maxGap)) {
			return 0, 0, fmt.Errorf("gapMs = %g; want %g to %g, or 0 for %g", e.GapMs, ms(minGap), ms(maxGap), ms(defaultGap))
		}
		gap = time.Duration(e.GapMs * float64(time.Millisecond))
	}
	return time.Duration(e.BusyMs * float64(time.Millisecond)), gap, nil
}

// observe runs a busy loop on one locked OS thread for busy, and returns what it saw.
func observe(busy, gap time.Duration) throttle.Loop {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	thread0, process0 := cpuClock(unix.CLOCK_THREAD_CPUTIME_ID), cpuClock(unix.CLOCK_PROCESS_CPUTIME_ID)
	start := time.Now()
	o := slices(busy, gap, func() time.Duration { return time.Since(start) })
	o.ThreadCPUMs = ms(cpuClock(unix.CLOCK_THREAD_CPUTIME_ID) - thread0)
	o.ProcessCPUMs = ms(cpuClock(unix.CLOCK_PROCESS_CPUTIME_ID) - process0)
	return o
}

// slices reads now (the time since the loop's start, monotonic) until it reaches busy, and cuts
// what it saw into runs and stalls: a stall is a gap of at least gap between two reads.
func slices(busy, gap time.Duration, now func() time.Duration) throttle.Loop {
	o := throttle.Loop{GapMs: ms(gap)}
	first := now()
	last, runStart := first, first
	stalled := time.Duration(0)
	for last-first < busy {
		t := now()
		if t-last >= gap {
			o.Runs = append(o.Runs, throttle.Span{StartMs: ms(runStart - first), EndMs: ms(last - first)})
			o.Stalls = append(o.Stalls, throttle.Span{StartMs: ms(last - first), EndMs: ms(t - first)})
			stalled += t - last
			runStart = t
		}
		last = t
	}
	o.Runs = append(o.Runs, throttle.Span{StartMs: ms(runStart - first), EndMs: ms(last - first)})
	o.WallMs = ms(last - first)
	o.RunMs = ms(last - first - stalled)
	return o
}

// cpuClock reads one of the kernel's CPU-time clocks; a clock that cannot be read reads 0, and
// the figure computed from it is then meaningless, which only happens off Linux.
func cpuClock(id int32) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// ms is d in milliseconds, with the fraction.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
