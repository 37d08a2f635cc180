package report

// The thread-pool tables: which APIs use the pool (threadpool.apiTable, P2 and P7) and whether
// a size set inside the program is honoured (threadpool.entry, P5).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	noderuntime "github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

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
