package coldstart

// T8: the platform's CPU as a function sees it. A function that runs a busy loop and reports the
// runs and stalls it saw (functions/throttle), under the same emulator, cgroup and Init burst as
// the cold-start function, at each memory size of T5. What it measures is this repository's model
// of Lambda's CPU; deployed, the same function measures Lambda's.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/build"
	"github.com/serverless-claims/claims/harness/cgroup"
	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/lambdalocal"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// throttlePackage is T8's function.
const throttlePackage = "functions/throttle"

// publishedPeriodMs is the period T8 is compared with, the one measured on Lambda, never the
// configured one: a model whose period is not Lambda's must fail it.
const publishedPeriodMs = 20.0

// oneCPUMB is the memory size that gets one whole vCPU.
const oneCPUMB = lambdalocal.FullVCPUMemoryMB

// T8's bands. The share: ±15% of M/1,769, for what the emulator's idle threads and the Go
// runtime take from the same quota and for a thread that overruns its quota by up to a scheduler
// tick (the kernel takes it back from the next period, so it shows as a longer stall); at one
// CPU's worth, where a single busy thread is the limit, at least 85%. The period: ±10% of the
// published 20 ms, finer than a period's half (a grid half or twice as coarse is far outside).
const (
	shareBand    = 0.15
	minFullShare = 0.85
	periodBand   = 0.10
	// gridToleranceMs is how far a stall's end may miss the grid: a tenth of the published
	// period, for the wake-up after the period's refill, which on a busy machine comes up to
	// about 1.5 ms either side of it.
	gridToleranceMs = 2.0
	gridMinFit      = 0.8 // share of stall ends on the grid: a few stalls are the scheduler's, not the quota's
	// gridMinMs is the finest grid tried, five tolerances: random instants fall within the
	// tolerance of a finer grid 40% of the time or more (of the scheduler's 4 ms tick, most).
	gridMinMs    = 5 * gridToleranceMs
	minStallEnds = 10 // fewer stall ends place no grid
)

// throttleBusy is how long each invocation's busy loop runs, and throttleInvocations how many
// each memory size gets, each in the same environment one period after the last; a grid is
// fitted to each loop's stall ends, on that loop's clock.
const (
	throttleBusy        = 2 * time.Second
	throttleInvocations = 1
)

// span is a stretch of a busy loop, in ms from its start (functions/throttle).
type span struct {
	StartMs float64 `json:"startMs"`
	EndMs   float64 `json:"endMs"`
}

// loopAnswer is the throttle function's answer to one invocation.
type loopAnswer struct {
	WallMs       float64 `json:"wallMs"`
	RunMs        float64 `json:"runMs"`
	GapMs        float64 `json:"gapMs"`
	Runs         []span  `json:"runs"`
	Stalls       []span  `json:"stalls"`
	ThreadCPUMs  float64 `json:"threadCpuMs"`
	ProcessCPUMs float64 `json:"processCpuMs"`
	Invocation   int     `json:"invocation"`
	Pid          int     `json:"pid"`
	NumCPU       int     `json:"numCpu"`
	MemoryMB     int     `json:"memoryMB"`
}

// sizeSlices is one memory size's evidence and figures.
type sizeSlices struct {
	MemoryMB int `json:"memoryMB"`
	// ExpectedShare is M/1,769 of one CPU, at most 1.
	ExpectedShare float64 `json:"expectedShare"`
	// Share is the loops' run time over their wall time.
	Share float64 `json:"share"`
	// CPUShare is the same from the kernel's charge to the loop's thread.
	CPUShare float64 `json:"cpuShare"`
	// Grids are the coarsest grid each loop's stall ends fall on.
	Grids []stats.GridFit `json:"grids"`
	// RunMs and StallMs are the lengths of the runs between stalls and of the stalls.
	RunMs   stats.Summary `json:"runMs"`
	StallMs stats.Summary `json:"stallMs"`
	// Throttling is what the kernel counted for the environment's cgroup.
	Throttling *throttling  `json:"throttling,omitempty"`
	Loops      []loopAnswer `json:"loops"`
	Failures   []string     `json:"failures,omitempty"`
}

// TestThrottleSlices is T8: at M MB a function gets M/1,769 of one CPU, in 20 ms periods.
func TestThrottleSlices(t *testing.T) {
	needQuota(t)
	claimtest.Holds(t, *measureThrottleSlices(t, cfg.CPUPeriod, throttleInvocations))
}

// measureThrottleSlices runs the throttle function at each memory size of scalingSizes, in an
// environment of its own with a quota of the given period and Init's burst, invocations busy
// loops each, and decides T8 from what the loops saw.
func measureThrottleSlices(t *testing.T, period time.Duration, invocations int) *results.Result {
	t.Helper()
	bootstrap, err := build.Go(throttlePackage)
	require.NoError(t, err, "building the throttle function")
	where, _ := cgroup.Available()
	res := &results.Result{
		Experiment: t.Name(),
		Claims:     []string{"T8"},
		Claim:      "Lambda gives a function of M MB its M/1,769 share of one vCPU in 20 ms periods: at 128 MB a busy loop runs about 1.44 ms, then stalls until the period ends",
		Mode:       "local",
		StartedAt:  time.Now().UTC(),
		Parameters: map[string]any{"busyMs": throttleBusy.Milliseconds(), "invocations": invocations, "cpuPeriodMs": period.Milliseconds(), "memorySizesMB": scalingSizes},
		Target: map[string]any{
			"function": throttlePackage, "emulator": "aws-lambda-rie (go.mod tool)",
			"cpuQuota": fmt.Sprintf("memory / 1769 MB of one CPU per %v CFS period (cgroup %s), for the emulator and the function together; Init runs with %g CPU until the runtime first asks for an event", period, where, initBurstShare),
		},
		Published: results.Published{
			Source: "pwrdrvr/lambda-throttling, run of 2025-03-01 (a Node.js busy loop on Lambda)",
			Figure: "128 MB: 361.6 ms of CPU in 5,000 ms (7.2%), stalls of about 20.3, 40.4, 60.0, 79.7 and 97 ms; 256 MB: stalls of about 20 or 40 ms; the period 20 ms",
		},
		Environment: results.Fingerprint(),
	}

	sizes := make([]sizeSlices, len(scalingSizes))
	var checks []verdict.Check
	var evidence stats.Proportion
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %9s %16s %10s %18s %7s %9s\n", "memory", "share", "band", "period", "band", "stalls", "run p50")
	lo, hi := publishedPeriodMs*(1-periodBand), publishedPeriodMs*(1+periodBand)
	for i, mb := range scalingSizes {
		sz := runLoops(t, bootstrap, mb, period, invocations)
		sizes[i] = sz
		evidence.N++
		if len(sz.Loops) == invocations {
			evidence.K++
		}
		shareLo, shareHi := sz.ExpectedShare*(1-shareBand), sz.ExpectedShare*(1+shareBand)
		if mb >= oneCPUMB {
			shareLo, shareHi = minFullShare, 1
		}
		checks = append(checks, verdict.InBand(fmt.Sprintf("share of one CPU at %d MB (run / wall)", mb), 100*sz.Share, 100*shareLo, 100*shareHi, "%",
			fmt.Sprintf("%d MB / %d MB = %.2f%%; the kernel charged the loop's thread %.2f%%", mb, oneCPUMB, 100*sz.ExpectedShare, 100*sz.CPUShare)))
		band := fmt.Sprintf("%.2f%%-%.2f%%", 100*shareLo, 100*shareHi)
		periodText := "-"
		// One CPU's worth leaves a single busy thread next to nothing to stall on: its period
		// shows at the smaller sizes.
		if mb < oneCPUMB {
			for j, g := range sz.Grids {
				c := verdict.InBand(fmt.Sprintf("the grid the stall ends fall on at %d MB, loop %d", mb, j+1), g.PeriodMs, lo, hi, "ms",
					fmt.Sprintf("%s stall ends within %.1f ms of it, the published period %.0f ms", g.OnGrid, g.ToleranceMs, publishedPeriodMs))
				if !g.Found {
					c.Got, c.Pass = fmt.Sprintf("none (%s stall ends, fewer than %d or on no grid)", g.OnGrid, minStallEnds), false
				}
				checks = append(checks, c)
				periodText = c.Got
			}
		}
		fmt.Fprintf(&table, "%5d MB %8.2f%% %16s %10s %18s %7d %6.2f ms\n", mb, 100*sz.Share, band, periodText,
			fmt.Sprintf("%.0f-%.0f ms", lo, hi), sz.StallMs.N, sz.RunMs.P50Ms)
	}
	t.Logf("T8, a busy loop of %v by memory size, at a %v CFS period:\n%s", throttleBusy, period, table.String())
	res.Trials = sizes
	res.Summary = map[string]any{
		"table": table.String(),
		results.HeadlineKey: fmt.Sprintf("at 128 MB the loop got %.2f%% of a CPU (%.2f%% expected) in runs of %.2f ms (median), stalls %s; at %d MB %.2f%%",
			100*sizes[0].Share, 100*sizes[0].ExpectedShare, sizes[0].RunMs.P50Ms, gridsText(sizes[0].Grids), oneCPUMB, 100*sizes[len(sizes)-1].Share),
	}
	claimtest.Decide(t, "coldstart", res, evidence, checks...)
	return res
}

// gridsText says where a size's stall ends fell.
func gridsText(grids []stats.GridFit) string {
	parts := make([]string, len(grids))
	for i, g := range grids {
		if g.Found {
			parts[i] = fmt.Sprintf("ending on a %.2f ms grid (%s)", g.PeriodMs, g.OnGrid)
		} else {
			parts[i] = fmt.Sprintf("on no grid (%s)", g.OnGrid)
		}
	}
	return strings.Join(parts, ", ")
}

// runLoops starts one environment of the throttle function at memoryMB's share, and runs
// invocations busy loops in it, each one period after what went before (as startCold does).
func runLoops(t *testing.T, bootstrap string, memoryMB int, period time.Duration, invocations int) sizeSlices {
	t.Helper()
	e := lambdalocal.Start(t, lambdalocal.Options{Bootstrap: bootstrap, MemoryMB: memoryMB, Quota: true, Period: period, InitShare: initBurstShare})
	share, err := lambdalocal.ShareForMemory(memoryMB)
	require.NoError(t, err)
	sz := sizeSlices{MemoryMB: memoryMB, ExpectedShare: min(1, share)}
	payload, err := json.Marshal(map[string]any{"busyMs": throttleBusy.Milliseconds()})
	require.NoError(t, err)
	var runs, stalls []float64
	var wall, run, cpu float64
	for range invocations {
		time.Sleep(period)
		ctx, cancel := context.WithTimeout(context.Background(), throttleBusy+time.Minute)
		inv, err := e.Invoke(ctx, payload)
		cancel()
		require.NoError(t, err)
		var a loopAnswer
		if inv.Status != http.StatusOK || inv.Failure != "" || json.Unmarshal(inv.Body, &a) != nil || a.WallMs <= 0 {
			sz.Failures = append(sz.Failures, fmt.Sprintf("status %d %s: %s", inv.Status, inv.Failure, inv.Body))
			continue
		}
		sz.Loops = append(sz.Loops, a)
		wall, run, cpu = wall+a.WallMs, run+a.RunMs, cpu+a.ThreadCPUMs
		ends := make([]float64, len(a.Stalls))
		for i, s := range a.Stalls {
			ends[i] = s.EndMs
			stalls = append(stalls, s.EndMs-s.StartMs)
		}
		for _, r := range a.Runs {
			runs = append(runs, r.EndMs-r.StartMs)
		}
		g := stats.GridFit{OnGrid: stats.Proportion{N: len(ends)}, ToleranceMs: gridToleranceMs}
		if len(ends) >= minStallEnds {
			g = stats.Grid(ends, gridMinMs, gridToleranceMs, gridMinFit)
		}
		sz.Grids = append(sz.Grids, g)
	}
	if wall > 0 {
		sz.Share, sz.CPUShare = run/wall, cpu/wall
	}
	sz.RunMs, sz.StallMs = stats.Summarize(runs), stats.Summarize(stalls)
	sz.Throttling = stop(t, e)
	return sz
}
