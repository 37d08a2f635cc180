package report_test

import (
	"bytes"
	"errors"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/report"
)

// The keys of the hand-built history (handHistory).
var (
	keyW2Local  = history.Key{Experiment: "TestPingWaitsBehindCPU/cpu=1", Mode: results.ModeLocal}
	keyW2Live   = history.Key{Experiment: "TestPingWaitsBehindCPU/cpu=1", Mode: results.ModeLive}
	keyW5       = history.Key{Experiment: "TestGoPingDoesNotWait/cpu=2", Mode: results.ModeLocal}
	keyW12      = history.Key{Experiment: "TestConcurrency", Mode: results.ModeLocal, Column: "node24"}
	keyT1Local  = history.Key{Experiment: "TestColdStart", Mode: results.ModeLocal}
	keyT1Stand  = history.Key{Experiment: "TestColdStart", Mode: results.ModeLiveStandIn}
	keyP3       = history.Key{Experiment: "TestPoolSlots/node24", Mode: results.ModeLocal}
	handRunDate = time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)
)

// rec is a record of claims with outcome, its headline, and a margin in ms where margin is not nil.
func rec(k history.Key, claims []string, outcome verdict.Outcome, headline string, margin *float64) history.Record {
	r := history.Record{Key: k, Claims: claims, Outcome: outcome, Headline: headline}
	if margin != nil {
		r.Margin = &history.Margin{Check: "p50", Bound: verdict.Bound{Figure: 50 - *margin, Limit: 50, Side: verdict.BoundAtMost, Unit: "ms"},
			Margin: *margin, Relative: *margin / 50}
	}
	return r
}

func ms(v float64) *float64 { return &v }

// handHistory is three runs of kind "claims", a day apart, holding:
//   - W2 locally: pass, pass, fail, the flip confirmed; margins 10, 8, -2 ms;
//   - W2 live: pass in all three (so local and live disagree in the end); margins 30, 31, 29 ms;
//   - W5: pass, fail, fail, the flip in run 2 not confirmed; no margin;
//   - W12 on node24's column from run 2 on only: pass, pass;
//   - T1 locally: pass all three, margins 20, 22, 5 ms (shrank by more than half);
//   - T1 live-standin: pass all three (not live: no agreement line for T1);
//   - P3: inconclusive in all three (a streak).
func handHistory(t *testing.T) []history.Run {
	t.Helper()
	W2, W5, W12, T1, P3 := []string{"W2"}, []string{"W5"}, []string{"W12"}, []string{"T1"}, []string{"P3"}
	var runs []history.Run
	for i, recs := range [][]history.Record{
		{
			rec(keyP3, P3, verdict.Inconclusive, "3 slots in 1/3 counts", nil),
			rec(keyT1Local, T1, verdict.Pass, "init 30 ms", ms(20)),
			rec(keyT1Stand, T1, verdict.Pass, "init 31 ms", nil),
			rec(keyW5, W5, verdict.Pass, "waited 0/20", nil),
			rec(keyW2Local, W2, verdict.Pass, "p50 40 ms", ms(10)),
			rec(keyW2Live, W2, verdict.Pass, "p50 20 ms", ms(30)),
		},
		{
			rec(keyW12, W12, verdict.Pass, "12 in flight", nil),
			rec(keyP3, P3, verdict.Inconclusive, "3 slots in 2/3 counts", nil),
			rec(keyT1Local, T1, verdict.Pass, "init 28 ms", ms(22)),
			rec(keyT1Stand, T1, verdict.Pass, "init 31 ms", nil),
			rec(keyW5, W5, verdict.Fail, "waited 3/20", nil),
			rec(keyW2Local, W2, verdict.Pass, "p50 42 ms", ms(8)),
			rec(keyW2Live, W2, verdict.Pass, "p50 19 ms", ms(31)),
		},
		{
			rec(keyW12, W12, verdict.Pass, "12 in flight", nil),
			rec(keyP3, P3, verdict.Inconclusive, "3 slots in 1/3 counts", nil),
			rec(keyT1Local, T1, verdict.Pass, "init 45 ms", ms(5)),
			rec(keyT1Stand, T1, verdict.Pass, "init 31 ms", nil),
			rec(keyW5, W5, verdict.Fail, "waited 4/20", nil),
			rec(keyW2Local, W2, verdict.Fail, "p50 52 ms", ms(-2)),
			rec(keyW2Live, W2, verdict.Pass, "p50 21 ms", ms(29)),
		},
	} {
		runs = append(runs, history.Run{Schema: history.Schema, Kind: "claims", Trigger: "schedule",
			StartedAt: handRunDate.Add(time.Duration(i) * 24 * time.Hour), Commit: "abcdef0123", Records: recs})
	}
	runs[1].Confirmations = []history.Confirmation{{Flip: history.Flip{Key: keyW5, Claims: W5, Was: verdict.Pass, Now: verdict.Fail},
		Again: verdict.Pass, Confirmed: false}}
	runs[2].Confirmations = []history.Confirmation{{Flip: history.Flip{Key: keyW2Local, Claims: W2, Was: verdict.Pass, Now: verdict.Fail},
		Again: verdict.Fail, Confirmed: true}}
	return runs
}

// historyCell is a verdict cell as the page draws it.
type historyCell struct{ Class, Title, Mark string }

// historyRowHTML is a row of the page's History section as drawn.
type historyRowHTML struct {
	Key    string
	Cells  []historyCell
	Points [][2]float64 // the sparkline's polyline, nil without one
	Dots   []historyDot
	ZeroY  float64 // the dashed line's y: the bound
	Zero   bool    // whether the sparkline draws that line
	Height float64 // the sparkline's height (its viewBox)
	Last   string  // the newest margin's text
}

type historyDot struct {
	Y    float64
	Fill string
}

var (
	historyRowRE   = regexp.MustCompile(`(?s)<tr data-key="([^"]*)">(.*?)</tr>`)
	historyCellRE  = regexp.MustCompile(`<span class="(cell[^"]*)" title="([^"]*)">([^<]*)</span>`)
	historyLineRE  = regexp.MustCompile(`<polyline class="mark"[^>]* points="([^"]*)"`)
	historyDotRE   = regexp.MustCompile(`<circle class="mark" cx="[^"]+" cy="([^"]+)" r="[^"]+" fill="([^"]+)">`)
	historyZeroRE  = regexp.MustCompile(`<line x1="[^"]+" y1="([^"]+)" x2="[^"]+" y2="[^"]+" stroke="[^"]+" stroke-width="1" stroke-dasharray`)
	historyViewRE  = regexp.MustCompile(`<svg class="chart"[^>]* viewBox="0 0 [^ ]+ ([^"]+)"`)
	historyLastRE  = regexp.MustCompile(`<span class="last">([^<]*)</span>`)
	historySection = regexp.MustCompile(`(?s)<h2 id="history">.*`)
)

// historyRows are the rows of page's History section, in page order.
func historyRows(t *testing.T, page string) []historyRowHTML {
	t.Helper()
	section := historySection.FindString(page)
	require.NotEmpty(t, section, "the page has no History section (h2#history)")
	var rows []historyRowHTML
	for _, m := range historyRowRE.FindAllStringSubmatch(section, -1) {
		r := historyRowHTML{Key: html.UnescapeString(m[1])}
		for _, c := range historyCellRE.FindAllStringSubmatch(m[2], -1) {
			r.Cells = append(r.Cells, historyCell{Class: c[1], Title: html.UnescapeString(c[2]), Mark: c[3]})
		}
		if l := historyLineRE.FindStringSubmatch(m[2]); l != nil {
			for _, pt := range strings.Fields(l[1]) {
				x, y, ok := strings.Cut(pt, ",")
				require.True(t, ok, "%s: polyline point %q is not x,y", r.Key, pt)
				r.Points = append(r.Points, [2]float64{parseNum(t, x), parseNum(t, y)})
			}
		}
		for _, d := range historyDotRE.FindAllStringSubmatch(m[2], -1) {
			r.Dots = append(r.Dots, historyDot{Y: parseNum(t, d[1]), Fill: d[2]})
		}
		if z := historyZeroRE.FindStringSubmatch(m[2]); z != nil {
			r.ZeroY, r.Zero = parseNum(t, z[1]), true
		}
		if v := historyViewRE.FindStringSubmatch(m[2]); v != nil {
			r.Height = parseNum(t, v[1])
		}
		if l := historyLastRE.FindStringSubmatch(m[2]); l != nil {
			r.Last = html.UnescapeString(l[1])
		}
		rows = append(rows, r)
	}
	return rows
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// renderHistory renders a page and a Markdown report of no results with runs' history.
func renderHistory(t *testing.T, runs []history.Run) (page, md string) {
	t.Helper()
	s := report.Set{Dir: "results", History: report.NewHistory(runs)}
	var h, m bytes.Buffer
	require.NoError(t, report.WriteHTML(&h, s, handRunDate))
	require.NoError(t, report.WriteMarkdown(&m, s))
	return h.String(), m.String()
}

func classes(cells []historyCell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Class)
	}
	return out
}

func TestHistorySectionShowsEachRecordRunByRun(t *testing.T) {
	runs := handHistory(t)
	page, md := renderHistory(t, runs)
	rows := historyRows(t, page)

	var keys []string
	byKey := map[string]historyRowHTML{}
	for _, r := range rows {
		keys = append(keys, r.Key)
		byKey[r.Key] = r
	}
	want := []string{keyW2Local.String(), keyW2Live.String(), keyW5.String(), keyW12.String(), keyT1Local.String(), keyT1Stand.String(), keyP3.String()}
	assert.Equal(t, want, keys, "history rows = %q; want %q (claim order W, T, P; local before live-standin before live)", keys, want)

	for _, c := range []struct {
		key  history.Key
		want []string
	}{
		{keyW2Local, []string{"cell pass", "cell pass", "cell fail confirmed"}},
		{keyW2Live, []string{"cell pass", "cell pass", "cell pass"}},
		{keyW5, []string{"cell pass", "cell fail unconfirmed", "cell fail"}},
		{keyW12, []string{"cell pass", "cell pass"}},
		{keyP3, []string{"cell inconclusive", "cell inconclusive", "cell inconclusive"}},
	} {
		got := classes(byKey[c.key.String()].Cells)
		assert.Equal(t, c.want, got, "%s: cells = %q; want %q (oldest first, one per run that holds it)", c.key, got, c.want)
	}
	w2 := byKey[keyW2Local.String()]
	if assert.Len(t, w2.Cells, 3, "%s: cells = %d; want 3", keyW2Local, len(w2.Cells)) {
		assert.Equal(t, "✓", w2.Cells[2].Mark, "%s: the confirmed flip's mark = %q; want ✓", keyW2Local, w2.Cells[2].Mark)
		for i, c := range w2.Cells {
			assert.Contains(t, c.Title, runs[i].ID(), "%s: cell %d's title = %q; want its run %s named", keyW2Local, i, c.Title, runs[i].ID())
			assert.Contains(t, c.Title, runs[i].Records[len(runs[i].Records)-2].Headline, "%s: cell %d's title = %q; want its headline", keyW2Local, i, c.Title)
		}
	}
	if w5 := byKey[keyW5.String()]; assert.Len(t, w5.Cells, 3, "%s: cells = %d; want 3", keyW5, len(w5.Cells)) {
		assert.Equal(t, "?", w5.Cells[1].Mark, "%s: the unconfirmed flip's mark = %q; want ?", keyW5, w5.Cells[1].Mark)
	}

	// The sparklines: a point per margin, the bound's line inside the chart, the negative margin
	// beyond it.
	for _, r := range []historyRowHTML{w2, byKey[keyT1Local.String()]} {
		assert.True(t, r.Zero && r.ZeroY > 0 && r.ZeroY < r.Height, "%s: the bound's line = %v at y %v; want it drawn inside the chart's height %v", r.Key, r.Zero, r.ZeroY, r.Height)
	}
	assert.Len(t, w2.Points, 3, "%s: sparkline points = %d; want 3, one per margin (%v)", keyW2Local, len(w2.Points), w2.Points)
	assert.Len(t, w2.Dots, 3, "%s: sparkline dots = %d; want 3, one per margin", keyW2Local, len(w2.Dots))
	if len(w2.Points) == 3 && len(w2.Dots) == 3 {
		assert.Less(t, w2.Points[0][1], w2.ZeroY, "%s: margin +10's y = %v; want above the bound's line at y %v", keyW2Local, w2.Points[0][1], w2.ZeroY)
		assert.Greater(t, w2.Points[2][1], w2.ZeroY, "%s: margin -2's y = %v; want below the bound's line at y %v (SVG y grows down)", keyW2Local, w2.Points[2][1], w2.ZeroY)
		assert.Less(t, w2.Points[0][0], w2.Points[2][0], "%s: first point's x = %v; want left of the last's %v (oldest first)", keyW2Local, w2.Points[0][0], w2.Points[2][0])
		assert.Equal(t, "#b00020", w2.Dots[2].Fill, "%s: the negative margin's dot = %s; want the fail colour", keyW2Local, w2.Dots[2].Fill)
		assert.NotEqual(t, "#b00020", w2.Dots[0].Fill, "%s: a positive margin's dot = %s; want not the fail colour", keyW2Local, w2.Dots[0].Fill)
	}
	assert.Contains(t, w2.Last, "-2.00 ms · p50", "%s: last margin = %q; want -2.00 ms and its check", keyW2Local, w2.Last)
	t1 := byKey[keyT1Local.String()]
	assert.Len(t, t1.Points, 3, "%s: sparkline points = %d; want 3", keyT1Local, len(t1.Points))
	for _, p := range t1.Points {
		assert.Less(t, p[1], t1.ZeroY, "%s: a positive margin's y = %v; want above the bound's line at %v", keyT1Local, p[1], t1.ZeroY)
	}
	assert.Empty(t, byKey[keyW5.String()].Points, "%s: sparkline points = %d; want none, it has no margin", keyW5, len(byKey[keyW5.String()].Points))

	// The warnings and the agreement.
	section := historySection.FindString(page)
	warnings := regexp.MustCompile(`<li data-key="([^"]*)">([^\n]*)</li>`).FindAllStringSubmatch(section, -1)
	var warned []string
	for _, w := range warnings {
		warned = append(warned, html.UnescapeString(w[1]))
	}
	assert.Equal(t, []string{keyT1Local.String(), keyP3.String()}, warned, "warnings = %q; want the shrinking T1 and the inconclusive P3", warned)
	if len(warnings) == 2 {
		assert.Contains(t, html.UnescapeString(warnings[0][2]), "shrank to 5.00 ms from a median of 21.0 ms", "T1's warning = %q; want the shrink", warnings[0][2])
		assert.Contains(t, warnings[1][2], "inconclusive in each of its last 3 runs", "P3's warning = %q; want the streak", warnings[1][2])
	}
	agree := regexp.MustCompile(`<li data-claim="([^"]*)" class="([^"]*)">([^\n]*)</li>`).FindAllStringSubmatch(section, -1)
	if assert.Len(t, agree, 1, "agreement lines = %d; want 1, W2's (T1's live-standin is not live) (%q)", len(agree), agree) {
		assert.Equal(t, "W2", agree[0][1], "agreement's claim = %s; want W2", agree[0][1])
		assert.Equal(t, "disagree", agree[0][2], "W2's agreement = %s; want disagree (local fail, live pass)", agree[0][2])
		assert.Contains(t, agree[0][3], "local fail", "W2's agreement = %q; want its local verdict", agree[0][3])
		assert.Contains(t, agree[0][3], "live pass", "W2's agreement = %q; want its live verdict", agree[0][3])
	}

	// The Markdown form: one row per key, the verdicts as words.
	for _, want := range []string{
		"`TestPingWaitsBehindCPU/cpu=1` | local |  | pass pass fail✓ | -2.00 ms · p50 (figure 52.0 at most 50.0) |",
		"`TestGoPingDoesNotWait/cpu=2` | local |  | pass fail? fail |  |",
		"`TestConcurrency` | local | node24 | pass pass |",
		"`TestPoolSlots/node24` | local |  | inconclusive inconclusive inconclusive |",
		"- T1 `TestColdStart (local)` [claims runs]: the margin of p50 shrank to 5.00 ms from a median of 21.0 ms",
		"- P3 `TestPoolSlots/node24 (local)` [claims runs]: inconclusive in each of its last 3 runs",
		"- W2: local fail (1 record, latest in " + runs[2].ID() + "), live pass (1 record, latest in " + runs[2].ID() + "): they disagree.",
	} {
		assert.Contains(t, md, want, "report.md's history = %s; want a line containing %q", md[strings.Index(md, "## History"):], want)
	}
	assert.Equal(t, 7, strings.Count(md, "\n| W")+strings.Count(md, "\n| T")+strings.Count(md, "\n| P"),
		"report.md's history rows = %d; want 7, one per key", strings.Count(md, "\n| W")+strings.Count(md, "\n| T")+strings.Count(md, "\n| P"))
}

func TestHistoryWithoutALivePairSaysSo(t *testing.T) {
	runs := handHistory(t)
	for i := range runs {
		var kept []history.Record
		for _, r := range runs[i].Records {
			if r.Mode != results.ModeLive {
				kept = append(kept, r)
			}
		}
		runs[i].Records = kept
	}
	page, md := renderHistory(t, runs)
	assert.Contains(t, page, `<p class="small agreements">`+html.EscapeString(report.NoLiveAgreement)+`</p>`,
		"the page's local-against-live = no line saying none compares; want %q", report.NoLiveAgreement)
	assert.NotContains(t, page, `<li data-claim=`, "the page shows an agreement line; want none without a live record")
	assert.Contains(t, md, report.NoLiveAgreement, "report.md = no line saying none compares; want %q", report.NoLiveAgreement)
	assert.Contains(t, report.NoLiveAgreement, "live-standin is not live", "the line = %q; want it to say a stand-in is not live", report.NoLiveAgreement)
}

func TestAnEmptyHistorySaysSo(t *testing.T) {
	page, md := renderHistory(t, nil)
	assert.Contains(t, page, "The verdict history holds no run yet.", "the page's History of no runs = no line saying so; want one")
	assert.Contains(t, md, "## History\n\nThe verdict history holds no run yet.", "report.md's History of no runs = no line saying so; want one")
	assert.Empty(t, historyRows(t, page), "history rows of no runs = some; want none")
}

func TestHistoryRelativeMarginsWhereTheUnitChanged(t *testing.T) {
	runs := handHistory(t)
	// T1's tightest check in run 3 is a count of trials, not ms: its line draws margins
	// relative to their limits.
	for i, r := range runs[2].Records {
		if r.Key == keyT1Local {
			runs[2].Records[i].Margin = &history.Margin{Check: "waited", Bound: verdict.Bound{Figure: 18, Limit: 20, Side: verdict.BoundAtMost, Unit: "trials"},
				Margin: 2, Relative: 0.1}
		}
	}
	h := report.NewHistory(runs)
	for _, r := range h.Rows {
		if r.Key != keyT1Local {
			continue
		}
		assert.True(t, r.Relative, "%s: relative = false; want true (ms then trials)", r.Key)
		var got []float64
		for _, m := range r.Margins {
			got = append(got, m.Margin)
		}
		assert.Equal(t, []float64{0.4, 0.44, 0.1}, got, "%s: margins drawn = %v; want each relative to its limit", r.Key, got)
		assert.Contains(t, string(r.Spark), "relative to the limit", "%s: sparkline's label does not say it is relative", r.Key)
	}
}

// reportHistoryEnv names a verdict history folder (cmd/history's -history) that the page at
// reportPageEnv was rendered with (cmd/report -history): `make test` sets both. Unset, the sample
// test reads the sample history in testdata/history and renders its own page from it.
const reportHistoryEnv = "CLAIMS_REPORT_HISTORY"

// sampleHistoryDir is testdata/history: runs of the claims recorded by cmd/history.
var sampleHistoryDir = filepath.Join("testdata", "history")

// TestHistoryChartsDrawTheSampleHistory checks the History section against a real history: one
// row per record key, one cell per run that holds it, and a margin line for each key with margins
// in at least two runs, a point per margin.
func TestHistoryChartsDrawTheSampleHistory(t *testing.T) {
	dir, page := os.Getenv(reportHistoryEnv), ""
	if dir != "" {
		page = os.Getenv(reportPageEnv)
	} else {
		dir = sampleHistoryDir
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			t.Skipf("no sample history: %s does not exist (record one with cmd/history, or set %s to a history folder)", filepath.Join("report", dir), reportHistoryEnv)
		}
	}
	runs, err := history.Read(dir)
	require.NoError(t, err, "reading the history under %s", dir)
	require.NotEmpty(t, runs, "runs under %s = 0; want the history it holds", dir)
	var text string
	if page == "" {
		text, _ = renderHistory(t, runs)
	} else {
		data, err := os.ReadFile(page)
		require.NoError(t, err, "the page %s=%s", reportPageEnv, page)
		text = string(data)
	}
	rows := historyRows(t, text)
	pasts := history.Pasts(runs, "")
	assert.Len(t, rows, len(pasts), "history rows on the page = %d; want %d, one per record key in %s", len(rows), len(pasts), dir)
	byKey := map[string]historyRowHTML{}
	for _, r := range rows {
		_, dup := byKey[r.Key]
		assert.False(t, dup, "history rows of %s = 2 or more; want 1", r.Key)
		byKey[r.Key] = r
	}
	for _, p := range pasts {
		r, ok := byKey[p.Key.String()]
		if !assert.True(t, ok, "history row of %s = none; want one", p.Key) {
			continue
		}
		assert.Len(t, r.Cells, len(p.Runs), "%s: cells = %d; want %d, one per run that holds it", p.Key, len(r.Cells), len(p.Runs))
		for i, c := range r.Cells {
			if i < len(p.Runs) {
				want := string(p.Runs[i].Record.Outcome)
				assert.Contains(t, strings.Fields(c.Class), want, "%s: cell %d's classes = %q; want %s, run %s's verdict", p.Key, i, c.Class, want, p.Runs[i].Run)
			}
		}
		margins := 0
		for _, pt := range p.Runs {
			if pt.Record.Margin != nil {
				margins++
			}
		}
		if margins >= 2 {
			assert.Len(t, r.Points, margins, "%s: margin line points = %d; want %d, one per run with a margin", p.Key, len(r.Points), margins)
			assert.Len(t, r.Dots, margins, "%s: margin dots = %d; want %d", p.Key, len(r.Dots), margins)
		} else {
			assert.Empty(t, r.Points, "%s: margin line points = %d; want no line with %d margins", p.Key, len(r.Points), margins)
		}
	}
	t.Logf("%s: %d runs, %d record keys", dir, len(runs), len(pasts))
}

func TestTheHistorySaysWhenItWasUpdatedAndWhichRunsAreMissing(t *testing.T) {
	runs := handHistory(t)
	// The third run three days after the second: the run due the day between did not start.
	runs[2].StartedAt = runs[1].StartedAt.Add(48 * time.Hour)
	live := runs[0]
	live.Kind, live.Records, live.Confirmations = history.KindLive, live.Records[:1], nil
	runs = append([]history.Run{live}, runs...) // weekly, its last run 4 days before the newest: stopped it is not
	h := report.NewHistory(runs)
	assert.Equal(t, runs[3].StartedAt, h.Updated, "updated = %s; want the newest run's start %s", h.Updated, runs[3].StartedAt)
	require.Len(t, h.Schedules, 2, "schedules = %+v; want live's and claims'", h.Schedules)
	sl, sc := h.Schedules[0], h.Schedules[1]
	assert.Equal(t, history.KindLive, sl.Kind, "the first schedule's kind")
	assert.Empty(t, sl.Gaps, "the weekly live runs' gaps four days after their last run")
	assert.False(t, sl.Stopped, "the weekly live runs stopped, four days after their last run")
	assert.Equal(t, 1, sc.Missed(), "the daily claims runs' missed runs = %d; want 1 (%+v)", sc.Missed(), sc.Gaps)
	assert.False(t, sc.Stopped, "the daily claims runs stopped, with the newest run theirs")

	_, md := renderHistory(t, runs)
	for _, want := range []string{
		"Last updated 2026-03-04 06:00 UTC, when the newest run started (`" + runs[3].ID() + "`).",
		"**live** runs (weekly): last scheduled run 2026-03-01 06:00 UTC. No expected run is missing.",
		"**claims** runs (daily): last scheduled run 2026-03-04 06:00 UTC. **1 expected run is missing:**",
		"- 1 scheduled run due 2026-03-03 06:00 UTC did not start (after run " + runs[2].ID() + ", before run " + runs[3].ID() + ")",
	} {
		assert.Contains(t, md, want, "report.md's history = %s; want a line containing %q", md[strings.Index(md, "## History"):], want)
	}

	// Fifteen days after the live run, the live runs have stopped by the alert's rule, and the page says so.
	runs[3].StartedAt = runs[0].StartedAt.Add(15 * 24 * time.Hour)
	h = report.NewHistory(runs)
	assert.True(t, h.Schedules[0].Stopped, "the weekly live runs stopped, 15 days after their last run")
	assert.Contains(t, report.ScheduleText(h.Schedules[0]), "The schedule has stopped", "the live schedule's line")
}
