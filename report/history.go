package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/report/svg"
)

// History is the verdict history (harness/claim/history) as the report shows it: each record's
// verdicts run after run with its margin to the bound, the warnings the history gives before a
// verdict flips, and whether a claim's local and live runs agree. One result set says what holds
// today; the history says whether that is news, and which claim is about to change.
//
// NewHistory makes it from the history's own runs, so that the report reads the history the way
// cmd/history writes it; a Set that carries one (Set.History) shows it in both forms.
type History struct {
	Runs  int      // how many runs the history holds
	Kinds []string // their kinds, in the order they first ran
	First string   // the oldest run's ID, "" without runs
	Last  string   // the newest run's ID
	// Updated is when the newest run started: when what the page shows last changed, which is
	// not when the page was drawn (a page drawn again from the same runs is no fresher).
	Updated time.Time
	// Schedules are the history's kinds that run on a schedule, each with the runs it missed up
	// to the newest run and whether it stopped.
	Schedules []Schedule
	// Rows are one per record key, in the report's claim order (compareClaims, then the
	// experiment, the mode as the summary orders modes, and the matrix column).
	Rows []HistoryRow
	// Warnings are what each kind's runs say before a flip: margins that shrank by more than
	// half (history.Shrinks), claims inconclusive run after run (history.Streaks).
	Warnings []HistoryWarning
	// Agreements are the claims with both a local and a live record, in catalog order; none
	// where no claim has both (NoLiveAgreement says why that matters).
	Agreements []Agreement
}

// HistoryRow is one record key across the runs that hold it.
type HistoryRow struct {
	history.Key
	Claims []string
	// Cells are its verdicts, oldest first: one per run that holds the key.
	Cells []HistoryCell
	// Margins are the margins the sparkline draws, one per run whose record has one. Where
	// they are not all in one unit (the tightest check changed between runs) the line draws
	// each margin relative to its limit instead (Relative), which compares across units and has
	// the bound at zero too.
	Margins  []HistoryMargin
	Relative bool
	// Last is the newest margin, nil where no run of the key has one.
	Last *history.Margin
	// Spark is the sparkline of Margins with the bound (zero) drawn, "" with fewer than two: one
	// point is not a trend, and an empty chart would be a chart that drew nothing.
	Spark template.HTML
}

// HistoryMargin is one point of a row's sparkline.
type HistoryMargin struct {
	Index  int // the cell (run) it belongs to
	Run    string
	Margin float64 // in the bound's unit, or relative to the limit where the row is Relative
	Unit   string  // the bound's unit; "" where Relative
}

// HistoryCell is one run's verdict of a record.
type HistoryCell struct {
	Run      string
	Outcome  verdict.Outcome
	Headline string
	// Asserted is a refutation its test asserts (the record's Expected): coloured as the
	// summary colours it.
	Asserted bool
	// Confirmed says the verdict flipped in this run and the claim, run again, gave it again;
	// Unconfirmed that the second run did not.
	Confirmed, Unconfirmed bool
}

// Mark is what the cell shows besides its colour, and what its word carries in Markdown: ✓ a
// flip confirmed, ? a flip the second run did not confirm.
func (c HistoryCell) Mark() string {
	switch {
	case c.Confirmed:
		return "✓"
	case c.Unconfirmed:
		return "?"
	}
	return ""
}

// Class is the cell's CSS classes: its outcome (the colour the page gives verdicts), then
// asserted, confirmed or unconfirmed.
func (c HistoryCell) Class() string {
	cls := []string{"cell", string(c.Outcome)}
	if c.Asserted {
		cls = append(cls, "asserted")
	}
	if c.Confirmed {
		cls = append(cls, "confirmed")
	}
	if c.Unconfirmed {
		cls = append(cls, "unconfirmed")
	}
	return strings.Join(cls, " ")
}

// Title is the cell's tooltip: the run, its verdict and headline, and the flip's confirmation.
func (c HistoryCell) Title() string {
	s := fmt.Sprintf("%s: %s", c.Run, c.Outcome)
	if c.Asserted {
		s += " (refutation asserted)"
	}
	if c.Headline != "" {
		s += " — " + c.Headline
	}
	switch {
	case c.Confirmed:
		s += " (flip confirmed by a second run)"
	case c.Unconfirmed:
		s += " (flip NOT confirmed by a second run)"
	}
	return s
}

// Text is the cell in Markdown: its verdict and mark, "fail✓".
func (c HistoryCell) Text() string { return string(c.Outcome) + c.Mark() }

// LastText is the newest margin in words (history.Margin's String), or "" without one.
func (r HistoryRow) LastText() string { return r.Last.String() }

// HistoryWarning is one warning of the history about a record.
type HistoryWarning struct {
	Kind string // the runs' kind it comes from
	history.Key
	Claims []string
	Text   string
}

// Agreement is a claim's local and live verdicts, each its latest: the verdict of the newest run
// of each of its records in that mode, fail over inconclusive over pass where the claim has
// several (as the matrix combines a cell's results).
type Agreement struct {
	Claim                 string
	Local, Live           verdict.Outcome
	LocalRuns, LiveRuns   []string // the runs those latest verdicts come from
	LocalCount, LiveCount int      // how many records of the claim in each mode
}

// Agree says the two latest verdicts are the same.
func (a Agreement) Agree() bool { return a.Local == a.Live }

// Text is the agreement in one line.
func (a Agreement) Text() string {
	word := "they agree"
	if !a.Agree() {
		word = "they disagree"
	}
	return fmt.Sprintf("%s: local %s (%s), live %s (%s): %s.", a.Claim, a.Local, recordsText(a.LocalCount, a.LocalRuns),
		a.Live, recordsText(a.LiveCount, a.LiveRuns), word)
}

func recordsText(n int, runs []string) string {
	s := "1 record"
	if n != 1 {
		s = fmt.Sprintf("%d records", n)
	}
	return s + ", latest in " + strings.Join(runs, ", ")
}

// NoLiveAgreement is what the section says where no claim has both a local and a live record. A
// live-standin record does not count as live: it proves the live code path against stand-ins,
// not the platform.
const NoLiveAgreement = "No claim has both a local and a live record in this history, so none can be compared " +
	"(live-standin is not live: it runs the live code path against stand-ins)."

// NewHistory is runs (oldest first, as history.Read gives them) as the report shows them.
func NewHistory(runs []history.Run) *History {
	h := &History{Runs: len(runs)}
	if len(runs) > 0 {
		h.First, h.Last = runs[0].ID(), runs[len(runs)-1].ID()
		h.Updated = runs[len(runs)-1].StartedAt.UTC()
	}
	for _, r := range runs {
		if !slices.Contains(h.Kinds, r.Kind) {
			h.Kinds = append(h.Kinds, r.Kind)
		}
	}
	h.Schedules = schedules(runs, h.Kinds, h.Updated)
	// Every kind's runs together: a record's strip is every run that holds it. Flips and their
	// confirmations are each run's own, against the last run of its kind.
	for _, p := range history.Pasts(runs, "") {
		h.Rows = append(h.Rows, historyRow(p))
	}
	slices.SortStableFunc(h.Rows, func(a, b HistoryRow) int { return compareKeys(a.Claims, a.Key, b.Claims, b.Key) })
	for _, kind := range h.Kinds {
		for _, s := range history.Shrinks(runs, kind) {
			h.Warnings = append(h.Warnings, HistoryWarning{Kind: kind, Key: s.Key, Claims: s.Claims, Text: fmt.Sprintf(
				"the margin of %s shrank to %s from a median of %s over its %d runs before: a flip may be coming",
				s.Check, history.Amount(s.Now, s.Unit), history.Amount(s.Before, s.Unit), s.Runs-1)})
		}
		for _, s := range history.Streaks(runs, kind) {
			h.Warnings = append(h.Warnings, HistoryWarning{Kind: kind, Key: s.Key, Claims: s.Claims, Text: fmt.Sprintf(
				"inconclusive in each of its last %d runs: the runs cannot decide it", s.N)})
		}
	}
	slices.SortStableFunc(h.Warnings, func(a, b HistoryWarning) int { return compareKeys(a.Claims, a.Key, b.Claims, b.Key) })
	h.Agreements = agreements(h.Rows)
	return h
}

// compareKeys orders records as the summary orders results: by claim, experiment and mode, then
// by matrix column.
func compareKeys(ca []string, a history.Key, cb []string, b history.Key) int {
	return cmp.Or(compareClaims(ca, cb), strings.Compare(a.Experiment, b.Experiment),
		modeOrder(a.Mode)-modeOrder(b.Mode), strings.Compare(a.Mode, b.Mode),
		compareVersions(a.Column, b.Column), strings.Compare(a.Column, b.Column))
}

// historyRow is p's cells and margins.
func historyRow(p history.Past) HistoryRow {
	row := HistoryRow{Key: p.Key, Claims: p.Claims}
	for _, pt := range p.Runs {
		rec := pt.Record
		row.Cells = append(row.Cells, HistoryCell{Run: pt.Run, Outcome: rec.Outcome, Headline: rec.Headline,
			Asserted: rec.Expected != "", Confirmed: pt.Confirmed, Unconfirmed: pt.Unconfirmed})
		if rec.Margin != nil {
			row.Last = rec.Margin
		}
	}
	for i, pt := range p.Runs {
		m := pt.Record.Margin
		if m == nil || math.IsNaN(m.Margin) || math.IsInf(m.Margin, 0) {
			continue
		}
		row.Relative = row.Relative || m.Unit != row.Last.Unit
		row.Margins = append(row.Margins, HistoryMargin{Index: i, Run: pt.Run, Margin: m.Margin, Unit: m.Unit})
	}
	if row.Relative {
		for i := range row.Margins {
			m := p.Runs[row.Margins[i].Index].Record.Margin
			row.Margins[i].Margin, row.Margins[i].Unit = m.Relative, ""
		}
	}
	if len(row.Margins) >= 2 {
		row.Spark = sparkline(row)
	}
	return row
}

// The sparkline's size, in the page's pixels.
const (
	sparkWidth, sparkHeight, sparkPad = 120.0, 30.0, 3.0
)

// sparkline draws row's margins over its runs (a run without a margin leaves a gap in x), with
// the bound, margin zero, as a dashed line across. The y axis always holds zero, so that a margin
// below it, a check that failed, lies beyond the line; such a point is drawn in the fail colour.
func sparkline(row HistoryRow) template.HTML {
	lo, hi := 0.0, 0.0
	for _, m := range row.Margins {
		lo, hi = math.Min(lo, m.Margin), math.Max(hi, m.Margin)
	}
	if lo == hi {
		hi = 1
	}
	x := svg.Scale{D0: 0, D1: float64(max(len(row.Cells)-1, 1)), R0: sparkPad, R1: sparkWidth - sparkPad}
	y := svg.Scale{D0: lo, D1: hi, R0: sparkHeight - sparkPad, R1: sparkPad}
	what := "margin"
	if row.Relative {
		what = "margin relative to the limit (the tightest check's unit changed)"
	}
	c := svg.New(sparkWidth, sparkHeight, fmt.Sprintf("%s of %s over %d runs; the dashed line is the bound (margin 0)", what, row.Key, len(row.Margins)))
	c.Line(sparkPad, y.At(0), sparkWidth-sparkPad, y.At(0), svg.Grey, true)
	var xy []float64
	for _, m := range row.Margins {
		xy = append(xy, x.At(float64(m.Index)), y.At(m.Margin))
	}
	c.Polyline(svg.Ink, 1, xy...)
	for i, m := range row.Margins {
		fill := svg.Ink
		if m.Margin < 0 {
			fill = failColour
		}
		c.Dot(xy[2*i], xy[2*i+1], 1.8, fill, fmt.Sprintf("%s: %s %s", m.Run, what, history.Amount(m.Margin, m.Unit)))
	}
	return c.HTML()
}

// failColour is the page's colour of a failed verdict (.fail in page.html.tmpl).
const failColour = "#b00020"

// agreements are the claims, in catalog order, that rows hold both locally and live.
func agreements(rows []HistoryRow) []Agreement {
	type side struct {
		links []MatrixLink
		runs  []string
	}
	local, live := map[string]*side{}, map[string]*side{}
	var ids []string
	for _, r := range rows {
		var m map[string]*side
		switch r.Mode {
		case results.ModeLocal:
			m = local
		case results.ModeLive:
			m = live
		default:
			continue // live-standin and local-router are neither
		}
		last := r.Cells[len(r.Cells)-1]
		for _, id := range r.Claims {
			if m[id] == nil {
				m[id] = &side{}
			}
			m[id].links = append(m[id].links, MatrixLink{Outcome: last.Outcome})
			if !slices.Contains(m[id].runs, last.Run) {
				m[id].runs = append(m[id].runs, last.Run)
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int { return compareClaims([]string{a}, []string{b}) })
	var out []Agreement
	for _, id := range ids {
		l, v := local[id], live[id]
		if l == nil || v == nil {
			continue
		}
		out = append(out, Agreement{Claim: id, Local: cellOutcome(l.links), Live: cellOutcome(v.links),
			LocalRuns: l.runs, LiveRuns: v.runs, LocalCount: len(l.links), LiveCount: len(v.links)})
	}
	return out
}

// historyLegend says how to read a verdict sequence, in both forms.
const historyLegend = "Verdicts run by run, oldest first. ✓ marks a flip confirmed by running the claim again; " +
	"? a flip the second run did not confirm. The margin is the newest run's distance to the bound of its tightest check, " +
	"in the bound's unit: positive inside the bound (the check holds), negative outside."

// writeHistoryMarkdown writes h as the report's History section: a table row per record key
// with its verdicts as words, then the warnings and the local-against-live agreement.
func writeHistoryMarkdown(b *strings.Builder, h *History) {
	fmt.Fprintln(b)
	fmt.Fprintln(b, "## History")
	fmt.Fprintln(b)
	if h.Runs == 0 {
		fmt.Fprintln(b, "The verdict history holds no run yet.")
		return
	}
	fmt.Fprintf(b, "Last updated %s, when the newest run started (`%s`).\n\n", pageTime(h.Updated), h.Last)
	for _, sc := range h.Schedules {
		fmt.Fprintln(b, ScheduleText(sc))
		for _, g := range sc.Gaps {
			fmt.Fprintf(b, "- %s\n", GapText(g))
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintf(b, "%d runs (%s), from `%s` to `%s`. %s\n\n", h.Runs, strings.Join(h.Kinds, ", "), h.First, h.Last, historyLegend)
	fmt.Fprintln(b, "| claims | experiment | mode | column | verdicts | last margin |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|")
	for _, r := range h.Rows {
		words := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			words[i] = c.Text()
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s | %s |\n", cell(strings.Join(r.Claims, ", ")), r.Experiment, r.Mode,
			cell(r.Column), strings.Join(words, " "), cell(r.LastText()))
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "### Warnings")
	fmt.Fprintln(b)
	if len(h.Warnings) == 0 {
		fmt.Fprintln(b, "None: no margin shrank by more than half, and no claim stayed inconclusive run after run.")
	}
	for _, w := range h.Warnings {
		fmt.Fprintf(b, "- %s `%s` [%s runs]: %s.\n", strings.Join(w.Claims, ", "), w.Key, w.Kind, w.Text)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "### Local against live")
	fmt.Fprintln(b)
	if len(h.Agreements) == 0 {
		fmt.Fprintln(b, NoLiveAgreement)
	}
	for _, a := range h.Agreements {
		fmt.Fprintf(b, "- %s\n", a.Text())
	}
}

// HistoryGroup is the rows of one claim (or one set of claims a test decides together), under
// the claim's statement: the page groups a claim's records, locally, live and per runtime.
type HistoryGroup struct {
	Claims    []string
	Statement string // the first claim's statement in the catalog
	Rows      []HistoryRow
}

// Groups are h's rows by their claims, in the rows' (claim) order.
func (h *History) Groups() []HistoryGroup {
	var out []HistoryGroup
	for _, r := range h.Rows {
		if n := len(out); n > 0 && slices.Equal(out[n-1].Claims, r.Claims) {
			out[n-1].Rows = append(out[n-1].Rows, r)
			continue
		}
		out = append(out, HistoryGroup{Claims: r.Claims, Statement: claimTitle(r.Claims), Rows: []HistoryRow{r}})
	}
	return out
}

// claimTitle is a claim's statement from the catalog, for a group's heading; "" for an unknown ID.
func claimTitle(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	for _, c := range catalog.All() {
		if c.ID == ids[0] {
			return c.Statement
		}
	}
	return ""
}
