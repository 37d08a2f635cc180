package report

// The pool's slots and threads (threadpool.slots and threadpool.poolThreads, P3, P4 and P11).

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strconv"

	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

// tpThreadRow is one bar of a threads chart: a process's threads by name.
type tpThreadRow struct {
	Label   string
	Threads family.ThreadList
}

// tpThreadsSVG draws each row's threads as one bar, a segment per thread name, with dashed lines
// at refs (a count and what it is).
func tpThreadsSVG(label string, rows []tpThreadRow, refs []tpRef) template.HTML {
	var names []string
	maxN := 0.0
	for _, r := range rows {
		for n := range r.Threads.ByName {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		maxN = max(maxN, float64(r.Threads.Total))
	}
	slices.Sort(names)
	for _, ref := range refs {
		maxN = max(maxN, ref.Ms)
	}
	// The pool's threads have one colour on every chart; the others take the series colours
	// but red, which the page keeps for CPU work.
	others := []string{svg.Series[0], svg.Series[2], svg.Series[1], svg.Series[5], svg.Series[6], svg.Series[7]}
	colour := func(n string) string {
		if n == "libuv-worker" {
			return svg.Series[4]
		}
		i := slices.Index(slices.DeleteFunc(slices.Clone(names), func(m string) bool { return m == "libuv-worker" }), n)
		return others[i%len(others)]
	}

	const left, right, top, barH, step = 150.0, 20.0, 50.0, 18.0, 26.0
	height := top + float64(len(rows))*step + 40
	c := svg.New(tpWidth, height, label)
	legend := make([]svg.LegendItem, len(names))
	for i, n := range names {
		legend[i] = svg.LegendItem{Colour: colour(n), Label: n}
	}
	c.Legend(8, 13, legend...)
	x := svg.Scale{D0: 0, D1: svg.Nice(maxN), R0: left, R1: tpWidth - right}
	for i, r := range rows {
		y := top + float64(i)*step
		c.Text(left-8, y+barH/2+4, svg.End, r.Label)
		at := 0
		for _, n := range names {
			k := r.Threads.ByName[n]
			if k == 0 {
				continue
			}
			x0, x1 := x.At(float64(at)), x.At(float64(at+k))
			c.Bar(x0, y, x1-x0, barH, colour(n), fmt.Sprintf("%s: %d %s threads", r.Label, k, n))
			if x1-x0 > 8*float64(len(strconv.Itoa(k)))+4 {
				c.Text((x0+x1)/2, y+barH/2+4, svg.Middle, strconv.Itoa(k))
			}
			at += k
		}
		c.Text(x.At(float64(at))+4, y+barH/2+4, svg.Start, strconv.Itoa(r.Threads.Total))
	}
	bottom := top + float64(len(rows))*step
	for i, ref := range refs {
		c.Line(x.At(ref.Ms), top-12, x.At(ref.Ms), bottom, svg.Ink, true)
		c.Text(x.At(ref.Ms)-3, top-14-float64(i%2)*12, svg.End, ref.Label)
	}
	c.XAxis(x, bottom, 6, svg.Format(0), "threads in the process")
	return c.HTML()
}

// tpSlotsChart draws each count's rounds (n jobs holding a slot, then a stat: did it wait?) and
// the threads the process had.
func tpSlotsChart(e Entry) ([]Figure, error) {
	var (
		params family.SlotsParameters
		target family.Lab
		trials []family.SlotCount
	)
	if err := decodeParts(e, &params, nil, &trials); err != nil {
		return nil, err
	}
	if err := Decode(e.Result.Target, &target); err != nil {
		return nil, fmt.Errorf("threadpool.slots target: %w", err)
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.slots: no trials")
	}
	size := tpSizeTitle(target.Env["UV_THREADPOOL_SIZE"])
	cols := params.MaxJobs
	for _, tr := range trials {
		for _, r := range tr.Rounds {
			cols = max(cols, r.Jobs)
		}
	}
	if cols == 0 {
		return nil, errors.New("threadpool.slots: no rounds in the trials")
	}

	const left, right, top, rowH, gap = 70.0, 90.0, 46.0, 24.0, 3.0
	colW := (tpWidth - left - right) / float64(cols)
	height := top + float64(len(trials))*rowH + 40
	c := svg.New(tpWidth, height, "Each slot count's rounds: did a stat wait behind n jobs holding slots?")
	c.Legend(8, 13, svg.LegendItem{Colour: tpYes, Label: "the stat waited for a slot"}, svg.LegendItem{Colour: tpNo, Label: "it ran at once"})
	if params.Want > 0 {
		wx := left + float64(params.Want-1)*colW - gap/2
		c.Line(wx, top-14, wx, top+float64(len(trials))*rowH, svg.Ink, true)
		c.Text(wx-4, top-6, svg.End, fmt.Sprintf("claim: %d slots, so the stat first waits with %d jobs", params.Want, params.Want))
	}
	for i, tr := range trials {
		y := top + float64(i)*rowH
		c.Text(left-8, y+rowH/2+3, svg.End, fmt.Sprintf("count %d", i+1))
		for _, r := range tr.Rounds {
			fill, word := tpNo, "ran at once"
			if r.StatWaited {
				fill, word = tpYes, "waited"
			}
			tpCell(c, left+float64(r.Jobs-1)*colW, y, colW-gap, rowH-gap, fill, strconv.Itoa(r.Jobs),
				fmt.Sprintf("count %d, %d jobs holding slots: the stat %s (%d jobs let go before it)", i+1, r.Jobs, word, r.HeavyDoneBeforeStat))
		}
		count := "no count"
		if tr.Slots != nil {
			count = fmt.Sprintf("= %d slots", *tr.Slots)
		}
		c.Text(tpWidth-right+6, y+rowH/2+3, svg.Start, count)
	}
	c.Text(left+(tpWidth-left-right)/2, top+float64(len(trials))*rowH+16, svg.Middle, "jobs holding a pool slot when the stat is called")

	rows := make([]tpThreadRow, len(trials))
	for i, tr := range trials {
		rows[i] = tpThreadRow{Label: fmt.Sprintf("count %d", i+1), Threads: tr.Threads}
	}
	return []Figure{{
		Title: "Counting the pool's slots, " + size,
		Caption: fmt.Sprintf("Each row is one process counting; each cell one round: n jobs that hold a slot without CPU, then an fs.stat. "+
			"The count is the first n at which the stat waited (up to %d ms) for a job to let go.", params.HoldMs),
		SVG:   c.HTML(),
		Entry: e,
	}, {
		Title:   "Threads in the counting process, " + size,
		Caption: "The process's threads by name after each count (/proc/self/task). Runtimes whose libuv does not name its threads show them under the process's name.",
		SVG:     tpThreadsSVG("The process's threads by name, per count", rows, nil),
		Entry:   e,
	}}, nil
}

// tpPoolThreadsChart draws the threads before and after a pool asked for more threads than
// libuv allows started.
func tpPoolThreadsChart(e Entry) ([]Figure, error) {
	var (
		params family.PoolThreadsParameters
		trials family.PoolThreadsRun
	)
	if err := decodeParts(e, &params, nil, &trials); err != nil {
		return nil, err
	}
	if trials.After.Total == 0 {
		return nil, errors.New("threadpool.poolThreads: no threads after the pool started")
	}
	rows := []tpThreadRow{{Label: "before the pool started", Threads: trials.Before}, {Label: "after", Threads: trials.After}}
	refs := []tpRef{{Ms: float64(params.Max), Label: fmt.Sprintf("libuv's maximum, %d", params.Max)}, {Ms: float64(params.Requested), Label: fmt.Sprintf("asked for, %d", params.Requested)}}
	return []Figure{{
		Title:   fmt.Sprintf("Pool threads for UV_THREADPOOL_SIZE=%d", params.Requested),
		Caption: fmt.Sprintf("The process's threads by name before and after its first pool job; the pool started %d threads.", trials.PoolThreads),
		SVG:     tpThreadsSVG("The process's threads before and after the pool started", rows, refs),
		Entry:   e,
	}}, nil
}
