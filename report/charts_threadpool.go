package report

// The thread-pool charts (claims P1-P11): a Node lab measuring libuv's pool. One chart per
// threadpool family; each reads the family's JSON through its own small structs
// (results/README.md, results/schema/threadpool.json).

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/stats"
	noderuntime "github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

func init() {
	register("threadpool.waves", tpWavesChart)
	register("threadpool.apiTable", tpAPITableChart)
	register("threadpool.entry", tpEntryChart)
	register("threadpool.slots", tpSlotsChart)
	register("threadpool.poolThreads", tpPoolThreadsChart)
	register("threadpool.blocking", tpBlockingChart)
	register("threadpool.interference", tpInterferenceChart)
	register("threadpool.syncPath", tpSyncPathChart)
}

// Cell fills of the tables: light, so that the text on them stays legible in print.
const (
	tpYes      = "#fdae6b" // uses the pool, waited for a slot
	tpNo       = "#9ecae1" // does not use the pool, did not wait
	tpMixed    = "#d9d9d9" // neither: runs disagreed, or nothing was measured
	tpAgree    = "#a1d99b" // measured as the docs say; a size set inside the program honoured
	tpDisagree = "#fc9272" // measured against the docs; a size set inside the program ignored
)

// libuvDefaultSlots is the pool's size when UV_THREADPOOL_SIZE is unset.
const libuvDefaultSlots = 4

// tpWidth is every thread-pool chart's width in user units; two sit side by side on a laptop.
const tpWidth = 640

// tpRGBA is colour (#rrggbb) at opacity a, for marks drawn over one another.
func tpRGBA(colour string, a float64) string {
	var r, g, b int
	if _, err := fmt.Sscanf(colour, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return colour
	}
	return fmt.Sprintf("rgba(%d,%d,%d,%s)", r, g, b, strconv.FormatFloat(a, 'f', -1, 64))
}

// tpJitter spreads the i-th of many dots across a strip in [-0.5, 0.5), the same way on every
// render, so that equal values do not hide one another.
func tpJitter(i int) float64 {
	_, f := math.Modf(float64(i) * 0.6180339887)
	return f - 0.5
}

// tpSlots is the pool size a UV_THREADPOOL_SIZE value gives: libuv's default when unset.
func tpSlots(size string) int {
	n, err := strconv.Atoi(size)
	if err != nil || n < 1 {
		return libuvDefaultSlots
	}
	return n
}

// tpShownSize is a UV_THREADPOOL_SIZE value as a title shows it.
func tpShownSize(size string) string {
	if size == "" {
		return "unset (libuv's default)"
	}
	return size
}

// tpSizeTitle is a UV_THREADPOOL_SIZE setting as a title names it.
func tpSizeTitle(size string) string {
	if size == "" {
		return "UV_THREADPOOL_SIZE unset (libuv's default)"
	}
	return "UV_THREADPOOL_SIZE=" + size
}

// tpCell is a table cell: a data mark whose fill says yes, no or unknown, with its text on it.
func tpCell(c *svg.Canvas, x, y, w, h float64, fill, text, tip string) {
	c.Bar(x, y, w, h, fill, tip)
	c.Text(x+w/2, y+h/2+4, svg.Middle, text)
}

// tpDashedKey draws a legend entry for a dashed line at (x, y) and returns where it ended.
func tpDashedKey(c *svg.Canvas, x, y float64, label string) float64 {
	c.Line(x, y-4, x+18, y-4, svg.Ink, true)
	c.Text(x+22, y, svg.Start, label)
	return x + 22 + 6.2*float64(len(label)) + 14
}

// --- threadpool.waves (P3, P4) ---

// tpWaveEnds is when each wave of jobs equal pure-CPU jobs of jobMs ends in a pool of slots on
// cores CPUs: a wave runs min(slots, jobs left) at once, sharing the cores.
func tpWaveEnds(jobs, slots, cores int, jobMs float64) []float64 {
	var ends []float64
	t := 0.0
	for left := jobs; left > 0; {
		w := min(slots, left)
		share := w
		if cores > 0 {
			share = min(cores, w)
		}
		t += jobMs * float64(w) / float64(share)
		ends = append(ends, t)
		left -= w
	}
	return ends
}

// tpWavesChart draws every job's end in every trial, one band per configuration, one line per
// trial in it, with where the waves of pure CPU work would end.
func tpWavesChart(e Entry) ([]Figure, error) {
	var (
		params  family.WavesParameters
		summary family.WavesSummary
		trials  []family.WaveTrial
	)
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.waves: no trials")
	}
	configs := params.Configs
	if len(configs) == 0 {
		for _, r := range trials[0].Runs {
			configs = append(configs, r.WaveConfig)
		}
	}
	cores := cmp.Or(summary.Cores, e.Result.Environment.Cores)

	// The domain: every end and every expected wave's end.
	maxMs := 0.0
	for _, tr := range trials {
		for _, r := range tr.Runs {
			for _, end := range r.EndsMs {
				maxMs = max(maxMs, end)
			}
		}
	}
	if maxMs == 0 {
		return nil, errors.New("threadpool.waves: no job ends in the trials")
	}
	for _, cf := range configs {
		maxMs = max(maxMs, slices.Max(append([]float64{0}, tpWaveEnds(cf.Jobs, tpSlots(cf.Size), cores, float64(params.JobMs))...)))
	}

	const (
		left, right, top = 118.0, 16.0, 30.0
		line, pad        = 9.0, 8.0
	)
	band := float64(len(trials))*line + 2*pad
	height := top + float64(len(configs))*band + 46
	c := svg.New(tpWidth, height, "Each job's end by pool configuration, every trial")
	x := svg.Scale{D0: 0, D1: svg.Nice(maxMs), R0: left, R1: tpWidth - right}
	lx := c.Legend(left, 14, svg.LegendItem{Colour: svg.Series[0], Label: "a job ends (a line per trial)"})
	tpDashedKey(c, lx, 14, "a wave of pure CPU work ends")

	for i, cf := range configs {
		y0 := top + float64(i)*band
		if i%2 == 0 {
			c.Rect(left, y0, x.R1-left, band, "#f4f4f4")
		}
		c.Text(left-8, y0+band/2-2, svg.End, cf.Config)
		c.Text(left-8, y0+band/2+11, svg.End, "size "+tpShownSize(cf.Size))
		for _, end := range tpWaveEnds(cf.Jobs, tpSlots(cf.Size), cores, float64(params.JobMs)) {
			c.Line(x.At(end), y0+2, x.At(end), y0+band-2, svg.Ink, true)
		}
		for t, tr := range trials {
			j := slices.IndexFunc(tr.Runs, func(r family.WaveRun) bool { return r.Config == cf.Config })
			if j < 0 {
				continue
			}
			y := y0 + pad + float64(t)*line
			for k, end := range tr.Runs[j].EndsMs {
				c.Bar(x.At(end)-1.25, y, 2.5, line-2, tpRGBA(svg.Series[0], 0.75),
					fmt.Sprintf("%s, trial %d, job %d: ends %.1f ms", cf.Config, t+1, k+1, end))
			}
		}
	}
	c.XAxis(x, top+float64(len(configs))*band, 8, svg.Format(0), "time since the batch started (ms)")

	coresText := fmt.Sprintf("%d cores", cores)
	if cores == 0 {
		coresText = "as many cores as jobs (the result names no core count)"
	}
	return []Figure{{
		Title: "Pool waves: when each job ends, by pool size",
		Caption: fmt.Sprintf("Each mark is one job's end, in ms after its batch started; all %d trials are overlaid, "+
			"one thin line each (trial 1 at the top of its band). Dashed: where each wave would end if the jobs were "+
			"pure CPU of %s ms each sharing %s, the pool running as many at once as it has slots.",
			len(trials), svg.Format(0)(float64(params.JobMs)), coresText),
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}

// --- threadpool.apiTable (P2, P7) ---

const (
	tpDocsPool    = "uses the pool"
	tpDocsNotPool = "does not use the pool"
)

// tpPoolCell is the fill and text of a "does it use the pool" cell.
func tpPoolCell(s string) (fill, text string) {
	switch s {
	case tpDocsPool:
		return tpYes, "uses"
	case tpDocsNotPool:
		return tpNo, "does not"
	}
	return tpMixed, s
}

// tpAPITableChart draws the result's table, one row per API: what the docs say, what the runs
// measured, whether they agree, and each run's figures, each cell coloured by its answer.
func tpAPITableChart(e Entry) ([]Figure, error) {
	var (
		params  family.APITableParameters
		summary family.APITableSummary
		trials  []family.APITableRun
	)
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(summary.Table) == 0 {
		return nil, errors.New("threadpool.apiTable: the summary's table has no rows")
	}

	const (
		top, rowH, gap       = 46.0, 19.0, 2.0
		apiW, docsW, measW   = 150.0, 78.0, 78.0
		agreeW, left, margin = 52.0, 4.0, 4.0
	)
	runW := (tpWidth - left - margin - apiW - docsW - measW - agreeW) / float64(max(len(trials), 1))
	height := top + float64(len(summary.Table))*rowH + 8
	c := svg.New(tpWidth, height, "Which APIs wait for a pool slot, with the result's table row by row")
	lx := c.Legend(left, 13, svg.LegendItem{Colour: tpYes, Label: "uses the pool / waited"}, svg.LegendItem{Colour: tpNo, Label: "does not / did not wait"})
	c.Legend(lx, 13, svg.LegendItem{Colour: tpAgree, Label: "agrees"}, svg.LegendItem{Colour: tpDisagree, Label: "disagrees"}, svg.LegendItem{Colour: tpMixed, Label: "mixed"})

	cols := []float64{left, left + apiW, left + apiW + docsW, left + apiW + docsW + measW, left + apiW + docsW + measW + agreeW}
	c.Text(cols[0], top-8, svg.Start, "API")
	c.Text(cols[1]+docsW/2, top-8, svg.Middle, "docs say")
	c.Text(cols[2]+measW/2, top-8, svg.Middle, "measured")
	c.Text(cols[3]+agreeW/2, top-8, svg.Middle, "agree")
	for r := range trials {
		c.Text(cols[4]+float64(r)*runW+runW/2, top-8, svg.Middle, fmt.Sprintf("run %d: done after", r+1))
	}
	for i, row := range summary.Table {
		y := top + float64(i)*rowH
		c.Text(cols[0], y+rowH/2+3, svg.Start, row.API)
		fill, text := tpPoolCell(row.Docs)
		tpCell(c, cols[1], y, docsW-gap, rowH-gap, fill, text, row.API+": the docs say it "+row.Docs)
		fill, text = tpPoolCell(row.Measured)
		tpCell(c, cols[2], y, measW-gap, rowH-gap, fill, text, row.API+": measured, "+row.Measured)
		fill, text = tpDisagree, "no"
		if row.Agree {
			fill, text = tpAgree, "yes"
		}
		tpCell(c, cols[3], y, agreeW-gap, rowH-gap, fill, text, row.API+": agrees with the docs: "+text)
		for r, tr := range trials {
			x := cols[4] + float64(r)*runW
			j := slices.IndexFunc(tr.Rows, func(a family.APIRow) bool { return a.API == row.API })
			if j < 0 {
				tpCell(c, x, y, runW-gap, rowH-gap, tpMixed, "not run", fmt.Sprintf("%s: not in run %d", row.API, r+1))
				continue
			}
			a := tr.Rows[j]
			fill, waited := tpNo, "did not wait"
			if a.WaitedForSlot {
				fill, waited = tpYes, "waited for a slot"
			}
			heavy := cmp.Or(tr.HeavyJobs, params.HeavyJobs)
			text := fmt.Sprintf("%.1f ms, %d/%d jobs", a.CompletedMs, a.HeavyDoneBefore, heavy)
			if runW < 110 {
				text = fmt.Sprintf("%.0f ms", a.CompletedMs)
			}
			tpCell(c, x, y, runW-gap, rowH-gap, fill, text, fmt.Sprintf("%s, run %d: completed %.1f ms after the call, after %d of %d saturating jobs; %s",
				row.API, r+1, a.CompletedMs, a.HeavyDoneBefore, heavy, waited))
		}
	}
	return []Figure{{
		Title: fmt.Sprintf("Which APIs wait for a pool slot, with %d pbkdf2 jobs holding the pool", params.HeavyJobs),
		Caption: fmt.Sprintf("One row per API the lab tried, as the result's table has them; UV_THREADPOOL_SIZE=%s, each job about %d ms. "+
			"A run's cell: ms from the call to its callback, and how many of the saturating jobs had ended by then; orange where it waited for a slot.",
			tpShownSize(params.UVThreadpoolSize), params.JobMs),
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}

// --- threadpool.entry (P5) ---

// tpEntryChart draws each entry form on each runtime: did the pool take the size the program's
// first line set? Both runtimes are in one result, so they sit side by side in one table.
func tpEntryChart(e Entry) ([]Figure, error) {
	var (
		params family.EntryParameters
		target family.EntryTarget
		trials []family.EntryOutcome
	)
	if err := decodeParts(e, &params, nil, &trials); err != nil {
		return nil, err
	}
	if err := Decode(e.Result.Target, &target); err != nil {
		return nil, fmt.Errorf("threadpool.entry target: %w", err)
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.entry: no trials")
	}
	// Columns by Node major, oldest first; rows by form, as the target lists them.
	slices.SortStableFunc(target.Nodes, func(a, b noderuntime.Node) int { return a.Major - b.Major })
	var nodes, forms []string
	for _, n := range target.Nodes {
		nodes = append(nodes, n.Version)
	}
	for _, f := range target.Forms {
		forms = append(forms, f.Name)
	}
	for _, tr := range trials {
		if !slices.Contains(nodes, tr.Node) {
			nodes = append(nodes, tr.Node)
		}
		if !slices.Contains(forms, tr.Form) {
			forms = append(forms, tr.Form)
		}
	}

	const (
		top, rowH, gap, left = 48.0, 26.0, 3.0, 110.0
	)
	// One figure holds every runtime, so it has its row to itself: a wider canvas keeps its
	// text the size of the figures drawn two to a row.
	const width = 1.5 * tpWidth
	colW := min(260, (width-left-8)/float64(len(nodes)))
	height := top + float64(len(forms))*rowH + 10
	c := svg.New(width, height, "Whether each entry form's pool size took effect, by runtime")
	c.Legend(8, 13, svg.LegendItem{Colour: tpAgree, Label: "honoured: the pool has the size set"},
		svg.LegendItem{Colour: tpDisagree, Label: "ignored"}, svg.LegendItem{Colour: tpMixed, Label: "not run"})
	for j, n := range nodes {
		c.Text(left+float64(j)*colW+colW/2, top-8, svg.Middle, "Node "+n)
	}
	for i, f := range forms {
		y := top + float64(i)*rowH
		c.Text(left-8, y+rowH/2+3, svg.End, f)
		for j, n := range nodes {
			x := left + float64(j)*colW
			k := slices.IndexFunc(trials, func(t family.EntryOutcome) bool { return t.Node == n && t.Form == f })
			if k < 0 {
				tpCell(c, x, y, colW-gap, rowH-gap, tpMixed, "not run", f+" on Node "+n+": not run")
				continue
			}
			tr := trials[k]
			fill, word := tpDisagree, "ignored"
			if tr.Honored {
				fill, word = tpAgree, "honoured"
			}
			text := fmt.Sprintf("%d slots: %s", tr.Slots, word)
			tpCell(c, x, y, colW-gap, rowH-gap, fill, text, fmt.Sprintf("%s on Node %s: %s (set %d)", f, n, text, params.SetPoolSize))
		}
	}
	return []Figure{{
		Title: fmt.Sprintf("UV_THREADPOOL_SIZE=%d set on the entry's first line: does the pool take it?", params.SetPoolSize),
		Caption: "Each cell is one entry form on one runtime: the slots the lab counted after the program set the size itself, " +
			"with nothing set in the environment.",
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}

// --- threadpool.slots and threadpool.poolThreads (P3, P4, P11) ---

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

// --- strip charts: threadpool.blocking, threadpool.interference, threadpool.syncPath ---

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
