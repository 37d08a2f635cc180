package coldstart

// T8: the platform's CPU as a function sees it. A function that runs a busy loop and reports the
// runs and stalls it saw (functions/throttle), under the same emulator, cgroup and Init burst as
// the cold-start function, at each memory size of T5. What it measures is this repository's model
// of Lambda's CPU; deployed, the same function measures Lambda's.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/throttle"
)

// familyThrottle is T8's results' family.
const familyThrottle = "coldstart.throttle"

// publishedPeriodMs is the period T8 is compared with, the one measured on Lambda, never the
// configured one: a model whose period is not Lambda's must fail it.
const publishedPeriodMs = 20.0

// oneCPUMB is the memory size that gets one whole vCPU: the claim's M/1,769.
const oneCPUMB = lambdalocal.FullVCPUMemoryMB

// T8's bands. The share is the function's: the CPU the kernel charged its process over the loops,
// the kind of figure the published one is (a process's CPU time). The loop's own run time is only
// a part of it, and a part that varies from run to run: the Go runtime's other threads (the
// scheduler preempting a thread that runs on, the hand-off a locked thread needs) spend the same
// quota, and at 128 MB, the smallest quota, by enough to take the loop's part out of the band
// in some runs. So the loop's share and its thread's charge are figures. The share: ±15% of
// M/1,769, for the emulator's idle threads in the same quota and for a thread that overruns its
// quota by up to a scheduler tick (the kernel takes it back from the next period, so it shows as
// a longer stall); at one CPU's worth, where a single busy thread is the limit, at least 85%,
// and at most the same 15% over, as the overrun not yet taken back when the loop ends is charged
// too. The period: ±10% of the published 20 ms, finer than a period's half (a grid half or twice
// as coarse is far outside).
const (
	shareBand    = 0.15
	minFullShare = 0.85
	periodBand   = 0.10
	// gridToleranceMs is how far a stall's end may miss the grid. After the period's refill
	// the thread runs at once on an idle CPU, but on a busy machine it waits for the next
	// scheduler tick (4 ms on a 250 Hz kernel), so the ends spread over a tick after each
	// boundary: half a tick either side of a line through their middle, and half a ms for the
	// clock reads and the wake-up itself.
	gridToleranceMs = 2.5
	gridMinFit      = 0.8 // share of stall ends on the grid: a few stalls are the scheduler's, not the quota's
	// gridMinMs is the finest grid tried, five tolerances: random instants fall within the
	// tolerance of a finer grid 40% of the time or more (of the scheduler's 4 ms tick, most).
	gridMinMs = 5 * gridToleranceMs
	// gridMaxMs is the coarsest grid tried, eight published periods: above the kernel's default
	// 100 ms, which a model with the wrong period shows; a grid coarser still is outside the
	// band as well.
	gridMaxMs    = 8 * publishedPeriodMs
	minStallEnds = 10 // fewer stall ends place no grid
	// maxGridShare is the largest share whose stall ends are held to the period's grid.
	maxGridShare = 0.5
)

// throttleBusy is how long each invocation's busy loop runs, and throttleInvocations how many
// each memory size gets, each in the same environment one period after the last; a grid is
// fitted to each loop's stall ends, on that loop's clock.
const (
	throttleBusy        = 2 * time.Second
	throttleInvocations = 1
)

// throttleSizes are T8's memory sizes: T5's (scalingSizes), from 128 MB to one whole vCPU, and 3,008 MB, above
// one vCPU and within a new account's memory quota, where a single-threaded loop is no longer
// held by the quota but by the one vCPU it can use, less what the environment's other threads
// take.
var throttleSizes = append(slices.Clone(scalingSizes), newAccountMaxMemoryMB)

// newAccountMaxMemoryMB is the memory quota new accounts have been seen with (users report
// Lambda's "Member must have value less than or equal to 3008"; Lambda's own maximum is 10,240 MB).
const newAccountMaxMemoryMB = 3008

// throttleClaim is T8.
var throttleClaim = claimtest.Claim{IDs: []string{"T8"}, Family: familyThrottle}

// TestThrottleSlices is T8: at M MB a function gets M/1,769 of one CPU, in 20 ms periods.
func TestThrottleSlices(t *testing.T) {
	beginFixed(t)
	claimtest.Run(t, testThrottleSlices, platforms[0]) // Go first: T8 is about Lambda's CPU, and its busy loop is Go
}

func testThrottleSlices(t *testing.T, p lambdaPlatform) {
	throttleClaim.Check(t, measureThrottleSlices(t, p, throttleInvocations))
}

// measureThrottleSlices runs the throttle function at each memory size of throttleSizes, in an
// execution environment of its own, invocations busy loops each, and decides T8 from what the
// loops saw.
func measureThrottleSlices(t *testing.T, p lambdaPlatform, invocations int) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	// Never null, though no size ran (a plan with no room): the result is written whole.
	configs, checks := []family.Function{}, []verdict.Check{}
	sizes, trials := []family.SizeFigures{}, []family.SizeLoops{}
	var evidence stats.Proportion
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %9s %16s %10s %18s %7s %9s\n", "memory", "share", "band", "period", "band", "stalls", "run p50")
	lo, hi := publishedPeriodMs*(1-periodBand), publishedPeriodMs*(1+periodBand)
	pl := planColdStarts(t, p, "memory sizes", len(throttleSizes), 1, len(throttleSizes))
	evidence.N = pl.rounds()
	startWithin(t, pl, func(i int) {
		mb := throttleSizes[i]
		c := family.Function{Build: throttleFunc.in(p).Build, MemoryMB: mb}
		configs = append(configs, c)
		if why := sizeNotHere(p, mb); why != "" {
			// No evidence of this size, said in its trial: the rest decide.
			trials = append(trials, family.SizeLoops{MemoryMB: mb, Loops: []throttle.Loop{}, Failures: []string{why}})
			t.Log(why)
			return
		}
		sz, loops := runLoops(t, p.Create(t, c), mb, invocations, p.Settings().CPUPeriod)
		sizes, trials = append(sizes, sz), append(trials, loops)
		if len(loops.Loops) == invocations {
			evidence.K++
		}
		shareLo, shareHi := sz.ExpectedShare*(1-shareBand), sz.ExpectedShare*(1+shareBand)
		if mb >= oneCPUMB {
			shareLo, shareHi = minFullShare, 1+shareBand
		}
		checks = append(checks, verdict.InBand(fmt.Sprintf("share of one CPU at %d MB (the function's CPU / wall)", mb), 100*sz.Share, 100*shareLo, 100*shareHi, "%",
			fmt.Sprintf("%d MB / %d MB = %.2f%%; the loop ran %.2f%% of the wall time, and the kernel charged its thread %.2f%%", mb, oneCPUMB, 100*sz.ExpectedShare, 100*sz.LoopShare, 100*sz.ThreadShare)))
		band := fmt.Sprintf("%.2f%%-%.2f%%", 100*shareLo, 100*shareHi)
		periodText := "-"
		// The period is read where a period is mostly stall (a share of at most a half). Above
		// that, stalls are short and a fifth or more of them end off the grid: the kernel hands
		// runtime the other CPU's queue did not use back to the group in 5 ms slices
		// (sched_cfs_bandwidth_slice_us, the slack timer), which lets a throttled thread go on
		// mid-period; at one CPU's worth a single busy thread hardly stalls at all.
		if sz.ExpectedShare <= maxGridShare {
			for j, g := range sz.Grids {
				c := gridCheck(fmt.Sprintf("the grid the stall ends fall on at %d MB, loop %d", mb, j+1), g, lo, hi)
				checks = append(checks, c)
				periodText = c.Got
			}
		}
		fmt.Fprintf(&table, "%5d MB %8.2f%% %16s %10s %18s %7d %6.2f ms\n", mb, 100*sz.Share, band, periodText,
			fmt.Sprintf("%.0f-%.0f ms", lo, hi), sz.StallMs.N, sz.RunMs.P50Ms)
	})
	t.Logf("T8, a busy loop of %v by memory size:\n%s", throttleBusy, table.String())
	if len(configs) == 0 { // no room for any size: the functions the plan would have made, not started
		for _, mb := range throttleSizes {
			configs = append(configs, family.Function{Build: throttleFunc.in(p).Build, MemoryMB: mb})
			trials = append(trials, family.SizeLoops{MemoryMB: mb, Loops: []throttle.Loop{}, Failures: []string{"not started: " + pl.cut}})
		}
	}
	headline := "no loop ran"
	if len(sizes) > 0 {
		headline = fmt.Sprintf("at 128 MB the loop got %.2f%% of a CPU (%.2f%% expected) in runs of %.2f ms (median), stalls %s; at %d MB %.2f%%",
			100*sizes[0].Share, 100*sizes[0].ExpectedShare, sizes[0].RunMs.P50Ms, gridsText(sizes[0].Grids), sizes[len(sizes)-1].MemoryMB, 100*sizes[len(sizes)-1].Share)
	}
	return claimtest.Measurement{
		Target:      onPlatform{Platform: p, Functions: configs},
		Broken:      brokenIn(p, throttleFunc),
		StartedAt:   started,
		Headline:    pl.withCut(headline),
		Parameters:  family.ThrottleParameters{BusyMs: throttleBusy.Milliseconds(), Cut: pl.record(), Invocations: invocations, MemorySizesMB: throttleSizes, PublishedPeriodMs: publishedPeriodMs},
		Summary:     family.ThrottleSummary{BySize: sizes, Table: table.String()},
		Trials:      trials,
		Environment: results.Fingerprint(),
		Evidence:    evidence,
		Cut:         pl.whyCut(),
		Checks:      checks,
	}
}

// sizeNotHere says why memoryMB cannot run on p, "" where it can: a platform on this machine
// gives a size its share of the machine's CPUs as a cgroup quota, which the kernel cannot give
// beyond the CPUs there are (3,008 MB's 1.7 vCPUs on a 1-CPU machine); Lambda can.
func sizeNotHere(p lambdaPlatform, memoryMB int) string {
	share := float64(memoryMB) / oneCPUMB
	if p.Mode() == results.ModeLive || share <= float64(runtime.NumCPU()) {
		return ""
	}
	return fmt.Sprintf("not run: %d MB's share is %.2f CPUs, and this machine has %d: no evidence of this size here", memoryMB, share, runtime.NumCPU())
}

// predictCPU is what the model of Lambda's CPU predicts of a single-threaded busy loop of wallMs
// at memoryMB, where the function's other threads take otherVCPU of the same quota: the loop
// gets min(1, M/1,769 - otherVCPU) of a vCPU, and where that is under one it runs that part of
// each period and stalls the rest, once a period. It takes the M/1,769 rule and the published
// period and nothing else from published figures, so that what runs on Lambda measure can score
// it.
func predictCPU(memoryMB int, otherVCPU, wallMs float64) family.CPUPrediction {
	p := family.CPUPrediction{QuotaVCPU: float64(memoryMB) / oneCPUMB, OtherThreadsVCPU: otherVCPU, PeriodMs: publishedPeriodMs,
		FromPublishedOnly: fmt.Sprintf("the M/%d MB rule and the %.0f ms period; nothing else", oneCPUMB, publishedPeriodMs)}
	p.LoopShareOfVCPU = max(0, min(1, p.QuotaVCPU-otherVCPU))
	if p.LoopShareOfVCPU < 1 {
		p.RunMs = p.LoopShareOfVCPU * publishedPeriodMs
		p.StallMs = publishedPeriodMs - p.RunMs
		p.StallGapMs = publishedPeriodMs
		p.Stalls = int(wallMs / publishedPeriodMs)
	}
	return p
}

// gridCheck checks that g, a loop's stall ends' grid, is within [lo, hi] ms; a loop whose stall
// ends fell on no grid, or were too few to place one, fails it.
func gridCheck(name string, g stats.GridFit, lo, hi float64) verdict.Check {
	note := fmt.Sprintf("%s stall ends within %.1f ms of it, the published period %.0f ms", g.OnGrid, g.ToleranceMs, publishedPeriodMs)
	if !g.Found {
		// NaN is in no band: the check fails, saying why.
		c := verdict.InBand(name, math.NaN(), lo, hi, "ms", note)
		c.Got = fmt.Sprintf("none (%s stall ends, fewer than %d or on no grid)", g.OnGrid, minStallEnds)
		return c
	}
	return verdict.InBand(name, g.PeriodMs, lo, hi, "ms", note)
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

// runLoops cold-starts f, the throttle function at memoryMB, and runs invocations busy loops in
// the one execution environment, each one period (the platform's CFS period) after what went
// before.
func runLoops(t *testing.T, f function, memoryMB, invocations int, period time.Duration) (family.SizeFigures, family.SizeLoops) {
	t.Helper()
	sz := family.SizeFigures{MemoryMB: memoryMB, ExpectedShare: min(1, float64(memoryMB)/oneCPUMB)}
	loops := family.SizeLoops{MemoryMB: memoryMB}
	payload, err := json.Marshal(map[string]any{"busyMs": throttleBusy.Milliseconds()})
	require.NoError(t, err)
	require.NoError(t, f.ColdStart(t.Context()), "cold-starting the throttle function at %d MB", memoryMB)
	var runs, stalls []float64
	var wall, run, thread, process float64
	for i := range invocations {
		if i > 0 {
			pause(period)
		}
		ctx, cancel := context.WithTimeout(t.Context(), throttleBusy+time.Minute)
		inv, err := f.Invoke(ctx, payload)
		cancel()
		require.NoError(t, err)
		var a throttle.Loop
		if inv.Status != http.StatusOK || inv.Error != "" || json.Unmarshal(inv.Payload, &a) != nil || a.WallMs <= 0 {
			loops.Failures = append(loops.Failures, fmt.Sprintf("status %d %s: %s", inv.Status, inv.Error, inv.Payload))
			continue
		}
		loops.Loops = append(loops.Loops, a)
		wall, run, thread, process = wall+a.WallMs, run+a.RunMs, thread+a.ThreadCPUMs, process+a.ProcessCPUMs
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
			g = stats.Grid(ends, gridMinMs, gridMaxMs, gridToleranceMs, gridMinFit)
		}
		sz.Grids = append(sz.Grids, g)
	}
	if wall > 0 {
		sz.Share, sz.LoopShare, sz.ThreadShare = process/wall, run/wall, thread/wall
	}
	sz.Prediction = predictCPU(memoryMB, max(0, sz.Share-sz.ThreadShare), wall/float64(max(1, len(loops.Loops))))
	sz.RunMs, sz.StallMs = stats.Summarize(runs), stats.Summarize(stalls)
	loops.Throttling = throttlingOf(t, f)
	return sz, loops
}
