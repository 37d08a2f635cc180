package report

// T6's two calls on the SDK's own connection (coldstart.ownConnection) and T4's Init with the
// warm-up's endpoint down (coldstart.warmupFailure).

import (
	"fmt"

	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

// coldOwnConnectionCharts draws T6: the first and second invocations of the same cold starts
// as waterfalls, the second on the first's connection.
func coldOwnConnectionCharts(e Entry) ([]Figure, error) {
	var params family.OwnConnectionParameters
	var summary family.OwnConnectionSummary
	var trials []family.OwnConnection
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("coldstart.ownConnection: no cold starts")
	}
	var firsts, seconds []family.Invoked
	for _, c := range trials {
		if c.NotEvidence == "" { // evidence, as the experiment judged it
			firsts, seconds = append(firsts, c.First), append(seconds, c.Second)
		}
	}
	if len(firsts) == 0 {
		return nil, nil // as coldPhasesCharts: the verdict says why none counted
	}
	rows := []coldRow{coldMedians("first invocation", firsts, true), coldMedians("second invocation", seconds, false)}
	handshakes := ""
	if summary.CountsAgree.N > 0 {
		handshakes = fmt.Sprintf(" The handshakes the traces show equal those DynamoDB completed in %s cold starts.", summary.CountsAgree)
	}
	return []Figure{coldWaterfallFigure(e, coldClaims(e)+" · the SDK's own connection, first call and second",
		fmt.Sprintf("Each segment is the median of %d cold starts that answered (of %d), at %d MB: the first invocation with Init, the second on its own axis from 0. "+
			"The first call made a new connection with a handshake in %s, the second reused it in %s.%s ",
			len(firsts), len(trials), params.MemoryMB, summary.NewWithHandshake, summary.SecondCallReused, handshakes)+coldSegmentsNote,
		"T6: median phases of the first invocation, with Init, and of the second, in ms", "ms from the start of Init (first) or of the invocation (second)", rows)}, nil
}

// The colours of T4's rows beyond the phases'.
const (
	coldInvocationColour = "#1b9e77" // the first invocation, whole
	coldFailedColour     = svg.Grey  // what the caller waited where the environment failed
)

// coldWarmupFailureCharts draws T4: each cold start's Init, its failed warm-up at the end, and
// the first invocation, against the warm-up's bound and Init's.
func coldWarmupFailureCharts(e Entry) ([]Figure, error) {
	var params family.WarmupFailureParameters
	var summary family.WarmupFailureSummary
	var trials []family.UnreachableStart
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("coldstart.warmupFailure: no cold starts")
	}
	timeout := float64(params.WarmupTimeoutMs)
	bound := timeout + float64(params.InitMarginMs)
	maxMs := bound
	for _, t := range trials {
		d := t.WhileDown
		maxMs = max(maxMs, d.Answer.InitMs+d.Answer.HandlerMs, d.ClientMs)
	}
	left, right := 135.0, coldWidth-150
	h := coldTop + coldRowHeight*float64(len(trials)) + 44
	c := svg.New(coldWidth, h, "T4: each cold start's Init and first invocation with DynamoDB down, in ms")
	c.Legend(10, 14, svg.LegendItem{Colour: coldInitColour, Label: "Init"}, svg.LegendItem{Colour: coldWarmupColour, Label: "warm-up (in Init)"},
		svg.LegendItem{Colour: coldInvocationColour, Label: "first invocation"}, svg.LegendItem{Colour: coldFailedColour, Label: "caller's wait, Init failed"})
	x := svg.Scale{D0: 0, D1: svg.Nice(maxMs), R0: left, R1: right}
	bottom := coldTop + coldRowHeight*float64(len(trials))
	for _, l := range []struct {
		ms   float64
		name string
	}{{timeout, "warm-up bound"}, {bound, "Init bound"}} {
		if l.ms > 0 {
			c.Line(x.At(l.ms), coldTop, x.At(l.ms), bottom, svg.Ink, true)
			c.Text(x.At(l.ms), coldTop-3, svg.Middle, l.name)
		}
	}
	for i, t := range trials {
		mid := coldTop + coldRowHeight*float64(i) + coldRowHeight/2
		y := mid - coldBar/2
		c.Text(left-8, mid+4, svg.End, fmt.Sprintf("%d · %s", i+1, t.How))
		d := t.WhileDown
		if d.Status != 200 || d.Error != "" || d.Body != "" {
			c.Bar(x.At(0), y, x.At(d.ClientMs)-x.At(0), coldBar, coldFailedColour, fmt.Sprintf("Init failed (status %d): the caller waited %s", d.Status, coldMs(d.ClientMs)))
			c.Text(right+8, mid+4, svg.Start, "Init failed")
			continue
		}
		a := d.Answer
		warm := 0.0
		if a.Warmup != nil {
			warm = a.Warmup.TotalMs
		}
		at := 0.0
		for _, s := range []struct {
			ms     float64
			colour string
			what   string
		}{{max(0, a.InitMs-warm), coldInitColour, "Init before the warm-up"}, {warm, coldWarmupColour, "warm-up"}, {a.HandlerMs, coldInvocationColour, "first invocation"}} {
			if s.ms > 0 {
				c.Bar(x.At(at), y, x.At(at+s.ms)-x.At(at), coldBar, s.colour, fmt.Sprintf("%s: %s", s.what, coldMs(s.ms)))
			}
			at += s.ms
		}
		outcome := "answered"
		switch {
		case a.Found:
			outcome = "found"
		case a.Error != "":
			outcome = "error"
		}
		if coldOK(t.AfterUp) {
			outcome += ", then served"
		}
		c.Text(right+8, mid+4, svg.Start, outcome)
	}
	c.XAxis(x, bottom+4, 6, svg.Format(0), "ms from the start of Init")
	return []Figure{{
		Title: coldClaims(e) + " · Init with DynamoDB down, each cold start",
		Caption: fmt.Sprintf("One row per cold start of the warm variant at %d MB, DynamoDB refused and stalled in turn: Init with its warm-up at the end, then the first invocation; "+
			"dashed lines at the warm-up's bound (%s) and Init's (%s). At the right, the first invocation's answer (found: the item; error: the GetItem's error, as it must with DynamoDB refused), "+
			"and \"then served\" where the second, DynamoDB back, found the item.",
			params.MemoryMB, coldMs(timeout), coldMs(bound)),
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}
