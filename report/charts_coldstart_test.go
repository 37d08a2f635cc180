package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/prices"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/report/svg"
)

// coldEntry is a result of family in memory, its parts as results.Read leaves them (raw JSON).
func coldEntry(t *testing.T, family string, claims []string, params, target, summary, trials any) Entry {
	t.Helper()
	raw := func(v any) json.RawMessage {
		if s, ok := v.(string); ok {
			return json.RawMessage(s)
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	return Entry{Path: "coldstart/" + family + ".json", Result: results.Result{
		Family: family, Claims: claims, Mode: results.ModeLocal,
		Parameters: raw(params), Target: raw(target), Summary: raw(summary), Trials: raw(trials),
	}}
}

// coldCallJSON is an SDK call's phases as functions/getitem answers them.
type coldCallJSON struct {
	DNS, TCP, TLS, TTFB, Total float64
	Reused                     bool
}

func (c coldCallJSON) fields() map[string]any {
	return map[string]any{"dnsMs": c.DNS, "connectMs": c.TCP, "tlsMs": c.TLS, "ttfbMs": c.TTFB, "totalMs": c.Total, "reused": c.Reused}
}

// coldInvocation is an invocation that answered with the item: Init and a warm-up (0 for
// none), the GetItem's phases, and the handler's time.
func coldInvocation(initMs, warmupMs float64, call coldCallJSON, handlerMs float64) map[string]any {
	a := call.fields()
	a["found"], a["initMs"], a["handlerMs"] = true, initMs, handlerMs
	if warmupMs > 0 {
		a["warmup"] = coldCallJSON{TCP: 1, TLS: warmupMs - 3, TTFB: warmupMs - 1, Total: warmupMs}.fields()
	}
	return map[string]any{"status": 200, "answer": a, "report": map[string]any{}, "clientMs": initMs + handlerMs + 1}
}

// coldFailed is an invocation whose environment failed.
// coldNoAnswer is the reason the experiments give a cold start of coldFailed invocations for being
// no evidence: the charts leave it out by that reason, not by judging the invocations again.
const coldNoAnswer = "an invocation did not answer with the item (status 502 Runtime exited with error: exit status 1)"

func coldFailed(clientMs float64) map[string]any {
	return map[string]any{"status": 502, "error": "Runtime exited with error: exit status 1", "answer": map[string]any{}, "report": map[string]any{}, "clientMs": clientMs}
}

// coldMark is one data mark of a chart: where it is, its fill and its title.
type coldMark struct {
	X, Y, W     float64
	Fill, Title string
}

var coldBarRE = regexp.MustCompile(`<rect class="mark" x="([^"]+)" y="([^"]+)" width="([^"]+)" height="[^"]+" fill="([^"]+)">(?:<title>([^<]*)</title>)?</rect>`)

// coldBars are the chart's bars by row (their y), each row's in x order, rows top to bottom.
func coldBars(t *testing.T, chart string) [][]coldMark {
	t.Helper()
	rows := map[float64][]coldMark{}
	for _, m := range coldBarRE.FindAllStringSubmatch(chart, -1) {
		var v [3]float64
		for i := range v {
			f, err := strconv.ParseFloat(m[i+1], 64)
			require.NoError(t, err)
			v[i] = f
		}
		rows[v[1]] = append(rows[v[1]], coldMark{X: v[0], Y: v[1], W: v[2], Fill: m[4], Title: m[5]})
	}
	ys := slices.Sorted(maps.Keys(rows))
	out := make([][]coldMark, len(ys))
	for i, y := range ys {
		out[i] = rows[y]
		slices.SortFunc(out[i], func(a, b coldMark) int { return int(a.X*100 - b.X*100) })
	}
	return out
}

// coldDrawOne draws e with draw, which must give one figure, and its bars by row.
func coldDrawOne(t *testing.T, draw chart, e Entry) (Figure, [][]coldMark) {
	t.Helper()
	figs, err := draw(e)
	require.NoError(t, err)
	require.Len(t, figs, 1, "figures = %d; want 1", len(figs))
	return figs[0], coldBars(t, string(figs[0].SVG))
}

// fills are the marks' fills in order.
func fills(ms []coldMark) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Fill
	}
	return out
}

// coldPhasesResult is a coldstart.phases result of T3's shape: a cold arm, its first call a new
// connection, and a warm arm whose first call reused the warm-up's, three cold starts each; one
// more cold start of the cold arm failed and must count nowhere.
func coldPhasesResult(t *testing.T) Entry {
	t.Helper()
	var trials []map[string]any
	for i := range 3 {
		d := float64(i) // medians are the middle cold start's: d = 1
		cold := coldInvocation(20+d, 0, coldCallJSON{TCP: 2 + d, TLS: 200 + d, TTFB: 240 + 3*d, Total: 250}, 260+4*d)
		warm := coldInvocation(60+d, 40, coldCallJSON{TTFB: 5 + d, Total: 6, Reused: true}, 10+2*d)
		second := coldInvocation(20, 0, coldCallJSON{TTFB: 3, Total: 4, Reused: true}, 5)
		trials = append(trials,
			map[string]any{"arm": "cold", "first": cold, "second": second},
			map[string]any{"arm": "warm", "first": warm, "second": second})
	}
	trials = append(trials, map[string]any{"arm": "cold", "first": coldFailed(900), "second": coldFailed(0), "notEvidence": coldNoAnswer})
	params := map[string]any{"coldStarts": 4, "warmInvocations": 1, "invocationGapMs": 20, "arms": []map[string]any{
		{"arm": "cold", "variant": "cold", "memoryMB": 128, "unthrottled": false},
		{"arm": "warm", "variant": "warm", "memoryMB": 128, "unthrottled": false}}}
	summary := map[string]any{"statistic": "means", "arms": []map[string]any{}, "warmup": map[string]any{}}
	return coldEntry(t, "coldstart.phases", []string{"T3"}, params, map[string]any{"platform": map[string]any{}}, summary, trials)
}

func TestColdWaterfallSegmentsAreThePhasesPresent(t *testing.T) {
	f, rows := coldDrawOne(t, coldPhasesCharts, coldPhasesResult(t)) // one figure: no scaling in the summary
	require.Len(t, rows, 2, "waterfalls = %d; want one per arm (cold, warm)", len(rows))

	// The cold arm: no DNS (every median 0), a new connection; the warm arm: the warm-up in
	// Init and no set-up of its own.
	wantCold := []string{coldInitColour, coldTCPColour, coldTLSColour, coldFirstByteColour, coldRestColour}
	wantWarm := []string{coldInitColour, coldWarmupColour, coldFirstByteColour, coldRestColour}
	assert.Equal(t, wantCold, fills(rows[0]), "cold arm's segments = %v; want Init, TCP, TLS, first byte, rest (DNS 0 ms in every cold start)", fills(rows[0]))
	assert.Equal(t, wantWarm, fills(rows[1]), "warm arm's segments = %v; want Init, warm-up, first byte, rest (the first call reused the warm-up's connection)", fills(rows[1]))

	// Each segment starts where the last ended.
	for i, row := range rows {
		for j := 1; j < len(row); j++ {
			assert.InDelta(t, row[j-1].X+row[j-1].W, row[j].X, 0.02, "row %d segment %d starts at %v; want where segment %d ended, %v", i, j, row[j].X, j-1, row[j-1].X+row[j-1].W)
		}
	}
	// The medians, of the three cold starts that answered (the middle one's figures): TLS 201;
	// first byte 243 - 3 - 201 = 39; the warm arm's Init 61 - 40 of warm-up = 21.
	for _, want := range []string{"TLS: 201 ms median of 3", "first byte: 39 ms median of 3", "Init: 21 ms median of 3", "warm-up (in Init): 40 ms median of 3"} {
		assert.Contains(t, string(f.SVG), want, "waterfall titles lack %q (the medians of the cold starts that answered)", want)
	}
	// The totals: cold 21 + 3 + 201 + 39 + (264 - 243) = 285; warm 21 + 40 + 6 + (12 - 6) = 73.
	for _, want := range []string{">285 ms<", ">73 ms<"} {
		assert.Contains(t, string(f.SVG), want, "waterfall lacks the total %s at the right", want)
	}
	assert.Contains(t, f.Caption, "cold, 128 MB: 3 of 4", "caption = %q; want each arm's count of cold starts that answered", f.Caption)
	assert.NotContains(t, f.Title, "local", "title = %q; want no mode in it (the page shows the variant)", f.Title)
	assert.NotContains(t, string(f.SVG), ">DNS<", "legend has DNS; want only the phases drawn in its legend")
}

// TestColdWaterfallLeavesOutColdStartsThatWereNotEvidence: a cold start the experiment did not
// count (its notEvidence says why: a first invoke served warm, with no Init Duration) is drawn
// nowhere, though each of its invocations answered with the item.
func TestColdWaterfallLeavesOutColdStartsThatWereNotEvidence(t *testing.T) {
	e := coldPhasesResult(t)
	var trials []map[string]any
	require.NoError(t, json.Unmarshal(e.Result.Trials.(json.RawMessage), &trials))
	// Far from the counted ones' figures, so that it would move every median it entered.
	kept := coldInvocation(0, 0, coldCallJSON{TTFB: 900, Total: 901}, 950)
	for range 3 {
		trials = append(trials, map[string]any{"arm": "cold", "first": kept, "second": kept,
			"notEvidence": "the first REPORT has no Init Duration: not a cold start (invocation 2 of pid 7)"})
	}
	b, err := json.Marshal(trials)
	require.NoError(t, err)
	e.Result.Trials = json.RawMessage(b)
	f, rows := coldDrawOne(t, coldPhasesCharts, e)
	require.Len(t, rows, 2, "waterfalls = %d; want one per arm", len(rows))
	assert.Contains(t, f.Caption, "cold, 128 MB: 3 of 7", "caption = %q; want the cold arm's 3 counted cold starts of 7, those not evidence left out", f.Caption)
	assert.Contains(t, string(f.SVG), "TLS: 201 ms median of 3", "waterfall titles lack the medians of the 3 counted cold starts; want those not evidence left out")
	assert.Equal(t, []string{coldInitColour, coldTCPColour, coldTLSColour, coldFirstByteColour, coldRestColour}, fills(rows[0]),
		"cold arm's segments = %v; want those of the counted cold starts alone", fills(rows[0]))
}

// TestColdPhasesWithoutColdStartsDrawNothing: a coldstart.phases result whose run stopped before
// its first cold start (its test's deadline too near) is a result, with no trials: the chart
// draws nothing for it, and does not refuse it as unreadable.
func TestColdPhasesWithoutColdStartsDrawNothing(t *testing.T) {
	// A result none of whose cold starts answered, or counted as cold, is an honest one (its
	// verdict says why), not a malformed one.
	failed := []map[string]any{{"arm": "cold", "first": coldFailed(1), "second": coldFailed(1), "notEvidence": coldNoAnswer}}
	for family, draw := range map[string]chart{"coldstart.phases": coldPhasesCharts, "coldstart.ownConnection": coldOwnConnectionCharts} {
		e := coldEntry(t, family, []string{"T2"}, map[string]any{"coldStarts": 1, "memoryMB": 128, "arms": []map[string]any{{"arm": "cold", "memoryMB": 128}}}, "{}", "{}", failed)
		figs, err := draw(e)
		assert.NoError(t, err, "drawing a %s result none of whose cold starts answered; want no error, nothing to draw", family)
		assert.Empty(t, figs, "figures for a %s result none of whose cold starts answered = %d; want none", family, len(figs))
	}
	for _, trials := range []string{`[]`, `null`} {
		e := coldPhasesResult(t)
		e.Result.Trials = json.RawMessage(trials)
		figs, err := coldPhasesCharts(e)
		assert.NoError(t, err, "drawing a result with trials %s; want no error, nothing to draw", trials)
		assert.Empty(t, figs, "figures for a result with trials %s = %d; want none", trials, len(figs))
		rows := Rows(Set{Entries: []Entry{e}})
		for _, r := range rows {
			assert.Empty(t, r.Errors, "the page's errors for a result with trials %s = %v; want none", trials, r.Errors)
		}
	}
}

// coldScalingResult is a T5 result at three memory sizes and an unthrottled control, run on
// platform.
func coldScalingResult(t *testing.T, platform map[string]any) Entry {
	t.Helper()
	summ := func(mean float64) map[string]any {
		return map[string]any{"n": 5, "p50Ms": mean, "p95Ms": mean, "maxMs": mean, "minMs": mean, "meanMs": mean}
	}
	var arms, params []map[string]any
	var trials []map[string]any
	for _, a := range []struct {
		name        string
		mb          int
		tls         float64
		unthrottled bool
	}{{"128 MB", 128, 800, false}, {"512 MB", 512, 200, false}, {"1769 MB", 1769, 60, false}, {"128 MB, unthrottled", 128, 40, true}} {
		arms = append(arms, map[string]any{"arm": a.name, "memoryMB": a.mb, "tlsMs": summ(a.tls), "firstDurationMs": summ(a.tls + 100), "billedMs": summ(a.tls + 150)})
		params = append(params, map[string]any{"arm": a.name, "variant": "cold", "memoryMB": a.mb, "unthrottled": a.unthrottled})
		inv := coldInvocation(50, 0, coldCallJSON{TCP: 1, TLS: a.tls, TTFB: a.tls + 20, Total: a.tls + 30}, a.tls+100)
		trials = append(trials, map[string]any{"arm": a.name, "first": inv, "second": inv})
	}
	summary := map[string]any{"statistic": "means", "arms": arms, "scaling": map[string]any{"table": "..."}}
	return coldEntry(t, "coldstart.phases", []string{"T5"}, map[string]any{"coldStarts": 1, "arms": params}, map[string]any{"platform": platform}, summary, trials)
}

func TestColdScalingShowsAPriceOnlyWhenGiven(t *testing.T) {
	usd, _, fellBack := prices.Lambda("us-east-1", prices.ARM64)
	require.False(t, fellBack, "the price table has us-east-1 arm64")
	for _, c := range []struct {
		name     string
		platform map[string]any
		priced   bool
	}{
		{"local: no region", map[string]any{"emulator": "aws-lambda-rie"}, false},
		{"live in a listed region", map[string]any{"region": "us-east-1", "architecture": prices.ARM64}, true},
		{"a region the table lacks", map[string]any{"region": "xx-nowhere-1", "architecture": prices.ARM64}, false},
		{"an architecture the table lacks", map[string]any{"region": "us-east-1", "architecture": "sparc"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			figs, err := coldPhasesCharts(coldScalingResult(t, c.platform))
			require.NoError(t, err)
			require.Len(t, figs, 2, "figures = %d; want the waterfalls and T5's scaling", len(figs))
			f := figs[1]
			chart := string(f.SVG)
			dots := strings.Count(chart, "<circle class=\"mark\"")
			assert.Equal(t, 3*3*2, dots, "dots = %d; want 3 series × 3 memory sizes (the unthrottled control left out) × 2 panels", dots)
			assert.NotContains(t, chart, "unthrottled", "the unthrottled control has no memory size's CPU; want it off the axis")
			if c.priced {
				assert.Contains(t, f.Caption, fmt.Sprintf("$%.10f per GB-s", usd), "caption = %q; want the table's price for us-east-1 arm64", f.Caption)
				assert.Contains(t, chart, "$ per million", "chart lacks the dollar axis; want one where the result names a priced region")
			} else {
				assert.Contains(t, f.Caption, "MB·s only", "caption = %q; want it to say MB·s only, no price given", f.Caption)
				assert.NotContains(t, chart, "$", "chart shows a dollar sign; want no price where none is given")
			}
		})
	}
}

// TestColdThrottleWithNoSizeStartedDrawsNothing: a T8 result whose run started no memory size
// (its test's deadline too near) is a result, inconclusive, each size's trial saying it was not
// started: the chart draws nothing for it, and does not refuse it as unreadable.
func TestColdThrottleWithNoSizeStartedDrawsNothing(t *testing.T) {
	e, _ := coldThrottleResult(t)
	notStarted := []map[string]any{
		{"memoryMB": 128, "loops": []any{}, "failures": []string{"not started: none of 2 memory sizes started"}},
		{"memoryMB": 1769, "loops": []any{}, "failures": []string{"not started: none of 2 memory sizes started"}},
	}
	b, err := json.Marshal(notStarted)
	require.NoError(t, err)
	e.Result.Trials = json.RawMessage(b)
	figs, err := coldThrottleCharts(e)
	assert.NoError(t, err, "drawing a T8 result that started no size; want no error, nothing to draw")
	assert.Empty(t, figs, "figures for a T8 result that started no size = %d; want none", len(figs))
}

// coldThrottleResult is a T8 result: at 128 MB one loop whose runs and stalls go past the
// window, at 1769 MB one long run, and at 256 MB a size whose loop failed.
func coldThrottleResult(t *testing.T) (Entry, map[int][2]int) {
	t.Helper()
	var runs, stalls []map[string]float64
	for at := 0.0; at < 400; at += 20 {
		runs = append(runs, map[string]float64{"startMs": at, "endMs": at + 1.5})
		stalls = append(stalls, map[string]float64{"startMs": at + 1.5, "endMs": at + 20})
	}
	// 13 runs start before 250 ms (0, 20, ..., 240), as do 13 stalls (1.5, ..., 241.5).
	want := map[int][2]int{128: {13, 13}, 1769: {1, 0}}
	loop := func(runs, stalls any) map[string]any {
		return map[string]any{"wallMs": 2000, "runMs": 150, "runs": runs, "stalls": stalls}
	}
	trials := []map[string]any{
		{"memoryMB": 128, "loops": []any{loop(runs, stalls)}},
		{"memoryMB": 256, "loops": nil, "failures": []string{"status 502"}},
		{"memoryMB": 1769, "loops": []any{loop([]map[string]float64{{"startMs": 0, "endMs": 2000}}, nil)}},
	}
	summary := map[string]any{"table": "...", "bySize": []map[string]any{
		{"memoryMB": 128, "expectedShare": 0.0724, "share": 0.075, "grids": []map[string]any{{"periodMs": 20.01, "found": true}}},
		{"memoryMB": 256, "expectedShare": 0.1447, "share": 0, "grids": nil},
		{"memoryMB": 1769, "expectedShare": 1, "share": 0.99, "grids": []map[string]any{{"periodMs": 13.1, "found": true}}},
	}}
	params := map[string]any{"busyMs": 2000, "invocations": 1, "memorySizesMB": []int{128, 256, 1769}, "publishedPeriodMs": 20}
	return coldEntry(t, "coldstart.throttle", []string{"T8"}, params, map[string]any{"platform": map[string]any{}}, summary, trials), want
}

func TestColdThrottleBarsAreTheLoopsRunsAndStalls(t *testing.T) {
	e, want := coldThrottleResult(t)
	f, rows := coldDrawOne(t, coldThrottleCharts, e)
	chart := string(f.SVG)
	require.Len(t, rows, 2, "rows with bars = %d; want 2 (128 MB and 1769 MB; 256 MB's loop failed)", len(rows))
	for i, mb := range []int{128, 1769} {
		var ran, stalled int
		for _, m := range rows[i] {
			switch m.Fill {
			case svg.CPU:
				ran++
			case svg.Grey:
				stalled++
			}
			assert.LessOrEqual(t, m.X+m.W, coldWidth-160+0.01, "%d MB: a bar ends at %v; want within the window's axis", mb, m.X+m.W)
		}
		assert.Equal(t, want[mb][0], ran, "%d MB: run bars = %d; want %d, the loop's runs that start in the first %v ms", mb, ran, want[mb][0], coldThrottleWindowMs)
		assert.Equal(t, want[mb][1], stalled, "%d MB: stall bars = %d; want %d, the loop's stalls that start in the first %v ms", mb, stalled, want[mb][1], coldThrottleWindowMs)
	}
	for _, text := range []string{"7.5% (7.2%) of a CPU", "period 20.0 ms", "no loop answered", "period not read"} {
		assert.Contains(t, chart, text, "chart lacks %q", text)
	}
	assert.NotContains(t, chart, "13.1 ms", "at a whole CPU the period is not read; want its grid not shown")
}

func TestColdOwnConnectionDrawsBothCalls(t *testing.T) {
	first := coldInvocation(25, 0, coldCallJSON{TCP: 0.5, TLS: 10, TTFB: 15, Total: 16}, 17)
	second := coldInvocation(25, 0, coldCallJSON{TTFB: 2, Total: 2.5, Reused: true}, 3)
	handshakes := 1
	trials := []map[string]any{
		{"arm": "128 MB, unthrottled", "first": first, "second": second, "serverHandshakes": handshakes},
		{"arm": "128 MB, unthrottled", "first": first, "second": coldFailed(5), "notEvidence": coldNoAnswer},
	}
	summary := map[string]any{"newWithHandshake": map[string]int{"k": 1, "n": 1}, "countsAgree": map[string]int{"k": 1, "n": 1},
		"secondCallReused": map[string]int{"k": 1, "n": 1}, "firstCallTlsMs": map[string]any{}}
	e := coldEntry(t, "coldstart.ownConnection", []string{"T6"}, map[string]any{"coldStarts": 2, "variant": "cold", "memoryMB": 128},
		map[string]any{"platform": map[string]any{}}, summary, trials)
	f, rows := coldDrawOne(t, coldOwnConnectionCharts, e)
	require.Len(t, rows, 2, "waterfalls = %d; want the first invocation and the second", len(rows))
	assert.Equal(t, []string{coldInitColour, coldTCPColour, coldTLSColour, coldFirstByteColour, coldRestColour}, fills(rows[0]), "first invocation's segments")
	assert.Equal(t, []string{coldFirstByteColour, coldRestColour}, fills(rows[1]), "second invocation's segments = %v; want no Init and no set-up (it reused the connection)", fills(rows[1]))
	assert.Contains(t, f.Caption, "median of 1 cold starts that answered (of 2)", "caption = %q", f.Caption)
	assert.Contains(t, f.Caption, "equal those DynamoDB completed in 1/1", "caption = %q; want the handshake cross-check", f.Caption)
}

func TestColdWarmupFailureDrawsEachColdStart(t *testing.T) {
	refused := coldInvocation(30, 20, coldCallJSON{TCP: 1}, 4)
	refused["answer"].(map[string]any)["found"] = false
	refused["answer"].(map[string]any)["error"] = "connection refused"
	trials := []map[string]any{
		{"how": "refused", "whileDown": refused, "afterUp": coldInvocation(30, 20, coldCallJSON{TTFB: 2, Reused: true}, 3)},
		{"how": "stalled", "whileDown": coldFailed(620), "afterUp": map[string]any{"status": 0, "answer": map[string]any{}, "report": map[string]any{}, "clientMs": 0}},
	}
	params := map[string]any{"coldStarts": 2, "variant": "warm", "memoryMB": 128, "warmupTimeoutMs": 500, "initMarginMs": 1000, "stallForMs": 500}
	e := coldEntry(t, "coldstart.warmupFailure", []string{"T4"}, params, map[string]any{"platform": map[string]any{}}, map[string]any{}, trials)
	f, rows := coldDrawOne(t, coldWarmupFailureCharts, e)
	chart := string(f.SVG)
	require.Len(t, rows, 2, "rows = %d; want one per cold start", len(rows))
	assert.Equal(t, []string{coldInitColour, coldWarmupColour, coldInvocationColour}, fills(rows[0]), "refused cold start's segments")
	assert.Equal(t, []string{coldFailedColour}, fills(rows[1]), "failed cold start's bar = %v; want the caller's wait alone", fills(rows[1]))
	for _, text := range []string{"error, then served", "Init failed", "warm-up bound", "Init bound"} {
		assert.Contains(t, chart, text, "chart lacks %q", text)
	}
}

func TestColdChartsRefuseMalformedResults(t *testing.T) {
	phases := coldPhasesResult(t)
	unknownArm := coldPhasesResult(t)
	var trials []map[string]any
	require.NoError(t, json.Unmarshal(unknownArm.Result.Trials.(json.RawMessage), &trials))
	trials[0]["arm"] = "lukewarm"
	b, err := json.Marshal(trials)
	require.NoError(t, err)
	unknownArm.Result.Trials = json.RawMessage(b)
	throttle, _ := coldThrottleResult(t)

	for _, c := range []struct {
		name  string
		e     Entry
		edit  func(*Entry)
		draw  chart
		error string
	}{
		{"phases: trials cut short", phases, func(e *Entry) { e.Result.Trials = json.RawMessage(`[{"arm": "cold"`) }, coldPhasesCharts, "reading its trials"},
		{"phases: a time that is a string", phases, func(e *Entry) { e.Result.Trials = json.RawMessage(`[{"arm": "cold", "first": {"clientMs": "slow"}}]`) }, coldPhasesCharts, "reading its trials"},
		{"phases: no arms", phases, func(e *Entry) { e.Result.Parameters = json.RawMessage(`{"coldStarts": 4, "arms": []}`) }, coldPhasesCharts, "no arms"},
		{"phases: a cold start of an arm not listed", unknownArm, func(*Entry) {}, coldPhasesCharts, `"lukewarm"`},
		{"throttle: parameters not an object", throttle, func(e *Entry) { e.Result.Parameters = json.RawMessage(`"busy"`) }, coldThrottleCharts, "reading its parameters"},
		{"throttle: no sizes", throttle, func(e *Entry) { e.Result.Trials = json.RawMessage(`null`) }, coldThrottleCharts, "no memory sizes"},
		{"ownConnection: summary cut short", phases, func(e *Entry) { e.Result.Family = "coldstart.ownConnection"; e.Result.Summary = json.RawMessage(`{`) }, coldOwnConnectionCharts, "reading its summary"},
		{"warmupFailure: empty parts", phases, func(e *Entry) {
			e.Result.Family = "coldstart.warmupFailure"
			e.Result.Parameters = json.RawMessage(nil)
		}, coldWarmupFailureCharts, "has no parameters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			c.edit(&e)
			figs, err := c.draw(e)
			assert.ErrorContains(t, err, c.error, "draw = %d figures, error %v; want an error saying %q", len(figs), err, c.error)
		})
	}
}

func TestColdChartsDrawTheSampleResults(t *testing.T) {
	for _, e := range sampleEntries(t, "coldstart") {
		draw := charts[e.Result.Family]
		require.NotNil(t, draw, "%s: no chart for family %q", e.Path, e.Result.Family)
		figs, err := draw(e)
		if !assert.NoError(t, err, "%s: drawing its charts", e.Path) {
			continue
		}
		if len(figs) == 0 {
			// Only a run that measured nothing (its plan left no room) draws nothing: an
			// inconclusive result whose verdict says why.
			assert.Equal(t, verdict.Inconclusive, e.Result.Verdict.Outcome,
				"%s: figures = 0, verdict %s; want at least one figure, or an inconclusive result that measured nothing (%s)", e.Path, e.Result.Verdict.Outcome, e.Result.Verdict.Reason)
		}
		for _, f := range figs {
			marks := strings.Count(string(f.SVG), `class="mark"`)
			assert.Positive(t, marks, "%s, %q: marks = 0; want the data drawn", e.Path, f.Title)
			assert.Equal(t, e.Path, f.Entry.Path, "figure's entry = %s; want the result it was drawn from", f.Entry.Path)
		}
	}
}
