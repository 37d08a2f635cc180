package report

// The strip charts: threadpool.blocking, threadpool.interference and threadpool.syncPath.

import (
	"errors"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

// tpSeries is one set of samples in a strip chart's group, drawn as dots with a bar to its
// median.
type tpSeries struct {
	Colour  string
	What    string // one sample, for its tooltip: "run", "trial", "request"
	Samples []float64
}

// tpGroup is one category on a strip chart's x axis; "\n" breaks its label.
type tpGroup struct {
	Label  string
	Series []tpSeries
}

// tpRef is a dashed reference line at a value, with what it is.
type tpRef struct {
	Ms    float64
	Label string
}

// tpStripSVG draws each group's series as dots (one per sample, spread sideways) over a light
// bar up to their median, labelled with it; refs as dashed lines across the plot.
func tpStripSVG(label, yLabel string, groups []tpGroup, legend []svg.LegendItem, refs []tpRef) template.HTML {
	maxMs := 0.0
	for _, g := range groups {
		for _, s := range g.Series {
			for _, v := range s.Samples {
				maxMs = max(maxMs, v)
			}
		}
	}
	for _, r := range refs {
		maxMs = max(maxMs, r.Ms)
	}
	const left, right, plotH = 64.0, 12.0, 250.0
	top := 30.0
	if len(refs) > 0 {
		top += 14 // a second legend line, for the dashed lines
	}
	bottom := top + plotH
	c := svg.New(tpWidth, bottom+44, label)
	c.Legend(left, 14, legend...)
	kx := left
	for _, r := range refs {
		kx = tpDashedKey(c, kx, 28, r.Label)
	}
	y := svg.Scale{D0: 0, D1: svg.Nice(maxMs), R0: bottom, R1: top}
	digits := 0
	if y.D1 < 5 {
		digits = 1
	}
	c.YAxis(y, left, tpWidth-right, 5, svg.Format(digits), yLabel)
	c.Line(left, bottom, tpWidth-right, bottom, svg.Ink, false)
	for _, r := range refs {
		c.Line(left, y.At(r.Ms), tpWidth-right, y.At(r.Ms), svg.Ink, true)
	}
	gw := (tpWidth - left - right) / float64(len(groups))
	for i, g := range groups {
		gx := left + float64(i)*gw
		for k, line := range strings.Split(g.Label, "\n") {
			c.Text(gx+gw/2, bottom+15+float64(k)*13, svg.Middle, line)
		}
		sw := gw * 0.84 / float64(max(len(g.Series), 1))
		for k, s := range g.Series {
			if len(s.Samples) == 0 {
				continue
			}
			x0 := gx + gw*0.08 + float64(k)*sw
			med := stats.Quantile(s.Samples, 0.5)
			c.Bar(x0+sw*0.12, y.At(med), sw*0.76, bottom-y.At(med), tpRGBA(s.Colour, 0.3),
				fmt.Sprintf("median %.2f ms of %d", med, len(s.Samples)))
			c.Line(x0+sw*0.12, y.At(med), x0+sw*0.88, y.At(med), s.Colour, false)
			r := 2.6
			if len(s.Samples) > 40 {
				r = 2
			}
			for j, v := range s.Samples {
				c.Dot(x0+sw/2+tpJitter(j)*sw*0.6, y.At(v), r, tpRGBA(s.Colour, 0.7), fmt.Sprintf("%s %d: %.2f ms", s.What, j+1, v))
			}
			// A pale ground under the median's label keeps it legible over a cloud of dots.
			lw := 6.2*float64(len(tpMs(med))) + 4
			c.Rect(x0+sw/2-lw/2, y.At(med)-14, lw, 12, "rgba(255,255,255,0.8)")
			c.Text(x0+sw/2, y.At(med)-4, svg.Middle, tpMs(med))
		}
	}
	return c.HTML()
}

// tpMs is a time for a label: three significant figures or so.
func tpMs(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// tpBlockingChart draws each run's work time, CPU time and longest loop stall, Sync and async.
func tpBlockingChart(e Entry) ([]Figure, error) {
	var (
		params family.BlockingParameters
		trials []family.BlockingTrial
	)
	if err := decodeParts(e, &params, nil, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.blocking: no trials")
	}
	way := func(label string, get func(int) *family.LoopMeasure) tpGroup {
		var work, cpu, blocked []float64
		for i := range trials {
			if m := get(i); m != nil {
				work, cpu, blocked = append(work, m.WorkMs), append(cpu, m.CPUMs), append(blocked, m.BlockedMs)
			}
		}
		return tpGroup{Label: label, Series: []tpSeries{
			{Colour: svg.Series[0], What: "run", Samples: work},
			{Colour: svg.Series[4], What: "run", Samples: cpu},
			{Colour: svg.CPU, What: "run", Samples: blocked},
		}}
	}
	what := map[string]string{"pbkdf2": "crypto.pbkdf2", "gzip": "zlib.gzip", "json": "JSON.parse"}[params.Op]
	if what == "" {
		what = params.Op
	}
	groups := []tpGroup{way(what+"Sync", func(i int) *family.LoopMeasure { return &trials[i].Sync })}
	if params.Op == "json" {
		groups[0].Label = "JSON.parse (it has no async form)"
	}
	if trials[0].Async != nil {
		groups = append(groups, way(what+" (async)", func(i int) *family.LoopMeasure { return trials[i].Async }))
	}
	title := what + ": time the call takes and time it blocks the loop"
	switch {
	case params.Op == "pbkdf2" && params.JobMs > 0:
		title += fmt.Sprintf(" (a %d ms job)", params.JobMs)
	case params.Bytes > 0 && params.Bytes%(1<<20) == 0:
		title += fmt.Sprintf(" (%d MiB)", params.Bytes>>20)
	case params.Bytes > 0:
		title += fmt.Sprintf(" (%.1f MB)", float64(params.Bytes)/1e6)
	}
	legend := []svg.LegendItem{{Colour: svg.Series[0], Label: "work (call to result)"}, {Colour: svg.Series[4], Label: "CPU, every thread"}, {Colour: svg.CPU, Label: "loop blocked"}}
	return []Figure{{
		Title: title,
		Caption: fmt.Sprintf("Dots: each of the %d runs; bars: their median. Loop blocked is the longest gap of a 1 ms timer during the call, less 1 ms.",
			len(trials)),
		SVG:   tpStripSVG("Work, CPU and loop blocked per run, Sync and async", "ms", groups, legend, nil),
		Entry: e,
	}}, nil
}

// tpInterferenceChart draws each trial's file read under each load, in the measured pool and,
// for P6, in the roomy control pool.
func tpInterferenceChart(e Entry) ([]Figure, error) {
	var (
		params  family.InterferenceParameters
		summary family.InterferenceSummary
		trials  family.InterferenceTrials
	)
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials.Pool) == 0 {
		return nil, errors.New("threadpool.interference: no trials in the pool")
	}
	loads := []struct {
		label string
		get   func(family.InterferenceTrial) float64
	}{
		{"alone", func(t family.InterferenceTrial) float64 { return t.Alone.ReadMs }},
		{fmt.Sprintf("under gzip\n(%d jobs)", params.GzipJobs), func(t family.InterferenceTrial) float64 { return t.Gzip.ReadMs }},
		{fmt.Sprintf("under dns.lookup\n(%d names)", params.Names), func(t family.InterferenceTrial) float64 { return t.Lookup.ReadMs }},
		{fmt.Sprintf("under dns.resolve4\n(%d names)", params.Names), func(t family.InterferenceTrial) float64 { return t.Resolve4.ReadMs }},
	}
	pools := []struct {
		trials []family.InterferenceTrial
		colour string
		label  string
	}{{trials.Pool, svg.Series[0], "UV_THREADPOOL_SIZE=" + tpShownSize(params.UVThreadpoolSize)}}
	if len(trials.RoomyPool) > 0 {
		pools = append(pools, struct {
			trials []family.InterferenceTrial
			colour string
			label  string
		}{trials.RoomyPool, svg.Series[2], "UV_THREADPOOL_SIZE=" + tpShownSize(params.RoomyPool) + " (control)"})
	}
	var groups []tpGroup
	for _, l := range loads {
		g := tpGroup{Label: l.label}
		for _, p := range pools {
			s := tpSeries{Colour: p.colour, What: "trial"}
			for _, t := range p.trials {
				s.Samples = append(s.Samples, l.get(t))
			}
			g.Series = append(g.Series, s)
		}
		groups = append(groups, g)
	}
	var legend []svg.LegendItem
	for _, p := range pools {
		legend = append(legend, svg.LegendItem{Colour: p.colour, Label: p.label})
	}
	var refs []tpRef
	if summary.OneLookupMs > 0 {
		refs = append(refs, tpRef{Ms: summary.OneLookupMs, Label: fmt.Sprintf("one dns.lookup alone: %s ms", tpMs(summary.OneLookupMs))})
	}
	return []Figure{{
		Title:   strings.Join(e.Result.Claims, ", ") + ": a file read alone and under pool load",
		Caption: fmt.Sprintf("Dots: the read's time in each of the %d trials; bars: their median. The loads run in the same process's pool.", len(trials.Pool)),
		SVG:     tpStripSVG("A file read's time alone and under each load", "read (ms)", groups, legend, refs),
		Entry:   e,
	}}, nil
}

// tpSyncPathChart draws every /ping of every round (idle, and under /work against each server),
// every request-path read's time, and the start-up read.
func tpSyncPathChart(e Entry) ([]Figure, error) {
	var (
		params  family.SyncPathParameters
		summary family.SyncPathSummary
		trials  []family.SyncPathRound
	)
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.syncPath: no rounds")
	}
	var idle, startup, request, reads []float64
	for _, r := range trials {
		idle = append(idle, r.IdlePingMs...)
		startup = append(startup, r.Startup.PingMs...)
		request = append(request, r.Request.PingMs...)
		reads = append(reads, r.Request.WorkHandlerMs...)
	}
	groups := []tpGroup{
		{Label: "/ping, idle", Series: []tpSeries{{Colour: svg.Ping, What: "/ping", Samples: idle}}},
		{Label: "/ping under /work\nstart-up variant", Series: []tpSeries{{Colour: svg.Ping, What: "/ping", Samples: startup}}},
		{Label: "/ping under /work\nrequest variant", Series: []tpSeries{{Colour: svg.PingWaited, What: "/ping", Samples: request}}},
	}
	if len(reads) > 0 {
		groups = append(groups, tpGroup{Label: "one /work's read\nrequest variant (server)", Series: []tpSeries{{Colour: svg.CPU, What: "/work", Samples: reads}}})
	}
	var refs []tpRef
	if summary.StartupReadMs > 0 {
		refs = append(refs, tpRef{Ms: summary.StartupReadMs, Label: fmt.Sprintf("the start-up read, once: %s ms", tpMs(summary.StartupReadMs))})
	}
	legend := []svg.LegendItem{{Colour: svg.Ping, Label: "/ping, no read on its path"}, {Colour: svg.PingWaited, Label: "/ping beside request-path reads"}, {Colour: svg.CPU, Label: "a Sync read"}}
	return []Figure{{
		Title: "/ping under /work: a Sync read at start-up or on the request path",
		Caption: fmt.Sprintf("Dots: every /ping of the %d rounds, and the server's time for each /work on the request path (one Sync read of %.1f MB); bars: their median.",
			len(trials), float64(params.FileBytes)/1e6),
		SVG:   tpStripSVG("/ping latency idle and under /work for each server, and the read's time", "ms", groups, legend, refs),
		Entry: e,
	}}, nil
}
