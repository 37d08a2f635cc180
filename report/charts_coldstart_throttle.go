package report

// T8's busy loop as runs and stalls on a time axis (coldstart.throttle).

import (
	"fmt"
	"slices"

	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/throttle"
)

// coldThrottleWindowMs is how much of each busy loop T8's chart shows, from its start: a dozen
// periods of 20 ms, few enough that each run and stall is wide enough to see.
const coldThrottleWindowMs = 250.0

// coldGridShare is the largest share of a CPU whose period T8 reads from the stall ends: above
// it, stalls are short and many end off the grid (experiments/coldstart, maxGridShare).
const coldGridShare = 0.5

// coldInWindow are the spans that start within the window, as the chart draws them.
func coldInWindow(spans []throttle.Span) []throttle.Span {
	var in []throttle.Span
	for _, s := range spans {
		if s.StartMs < coldThrottleWindowMs {
			in = append(in, s)
		}
	}
	return in
}

// coldThrottleCharts draws T8: the first busy loop of each memory size, its runs and stalls on
// its own clock, with the share of a CPU and the period measured over the whole loop.
func coldThrottleCharts(e Entry) ([]Figure, error) {
	var params family.ThrottleParameters
	var summary family.ThrottleSummary
	var trials []family.SizeLoops
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("coldstart.throttle: no memory sizes in its trials")
	}
	if !slices.ContainsFunc(trials, func(tr family.SizeLoops) bool { return len(tr.Loops) > 0 }) {
		// A run that started no size (its test's deadline too near) is a result, inconclusive,
		// with nothing to draw; its verdict and each size's failures say why.
		return nil, nil
	}
	left, right := 70.0, coldWidth-160
	h := coldTop + coldRowHeight*float64(len(trials)) + 44
	c := svg.New(coldWidth, h, fmt.Sprintf("T8: the busy loop's runs and stalls over its first %.0f ms, one row per memory size", coldThrottleWindowMs))
	c.Legend(left, 14, svg.LegendItem{Colour: svg.CPU, Label: "the loop ran"}, svg.LegendItem{Colour: svg.Grey, Label: "stalled (throttled)"})
	x := svg.Scale{D0: 0, D1: coldThrottleWindowMs, R0: left, R1: right}
	bottom := coldTop + coldRowHeight*float64(len(trials))
	if p := params.PublishedPeriodMs; p > 0 {
		// The published period's boundaries, on which the stalls should end.
		for t := p; t < coldThrottleWindowMs; t += p {
			c.Line(x.At(t), coldTop, x.At(t), bottom, "#d0d0d0", true)
		}
	}
	drawn := 0
	for i, tr := range trials {
		mid := coldTop + coldRowHeight*float64(i) + coldRowHeight/2
		y := mid - coldBar/2
		c.Text(left-8, mid+4, svg.End, fmt.Sprintf("%d MB", tr.MemoryMB))
		if len(tr.Loops) == 0 {
			c.Text(left+4, mid+4, svg.Start, "no loop answered")
			continue
		}
		loop := tr.Loops[0]
		for _, s := range []struct {
			spans  []throttle.Span
			colour string
			what   string
		}{{loop.Stalls, svg.Grey, "stalled"}, {loop.Runs, svg.CPU, "ran"}} {
			for _, sp := range coldInWindow(s.spans) {
				end := min(sp.EndMs, coldThrottleWindowMs)
				c.Bar(x.At(sp.StartMs), y, x.At(end)-x.At(sp.StartMs), coldBar, s.colour,
					fmt.Sprintf("%s %.1f-%.1f ms (%.1f ms)", s.what, sp.StartMs, sp.EndMs, sp.EndMs-sp.StartMs))
				drawn++
			}
		}
		share, period := "share -", "no period"
		for _, sz := range summary.BySize {
			if sz.MemoryMB != tr.MemoryMB {
				continue
			}
			share = fmt.Sprintf("%.1f%% (%.1f%%) of a CPU", 100*sz.Share, 100*sz.ExpectedShare)
			switch {
			case sz.ExpectedShare > coldGridShare:
				period = "period not read"
			case len(sz.Grids) > 0 && sz.Grids[0].Found:
				period = fmt.Sprintf("period %.1f ms", sz.Grids[0].PeriodMs)
			}
		}
		c.Text(right+8, mid-1, svg.Start, share)
		c.Text(right+8, mid+11, svg.Start, period)
	}
	if drawn == 0 {
		return nil, fmt.Errorf("coldstart.throttle: no loop has a run or a stall in its first %.0f ms: nothing to draw", coldThrottleWindowMs)
	}
	c.XAxis(x, bottom+4, 6, svg.Format(0), "ms from the loop's start")
	return []Figure{{
		Title: coldClaims(e) + " · the busy loop's runs and stalls by memory size",
		Caption: fmt.Sprintf("The first %.0f ms of each size's first loop of %.0f ms: a red bar where it ran, a grey one where it stalled; dashed lines every published period (%.0f ms). "+
			"At the right, over the whole loop: the share of a CPU it ran (memory / 1,769 MB in brackets) and the period its stall ends fall on, "+
			"read as the claim reads it, where the loop gets at most half a CPU (above that, stalls are short and end off the period's grid).",
			coldThrottleWindowMs, float64(params.BusyMs), params.PublishedPeriodMs),
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}
