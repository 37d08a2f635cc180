package report

// The cold-start families' charts (claims T1-T6, T8): each cold start as a waterfall of its
// phases, T5's handshake time and cost by memory size as the memory-tuning tools draw it, T8's
// busy loop as runs and stalls on a time axis, T6's two calls on the SDK's own connection and
// T4's Init with the warm-up's endpoint down. The JSON is read through the small structs below
// (results/README.md, Families, coldstart), never through the experiments' types.

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/aws/prices"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

func init() {
	register("coldstart.phases", coldPhasesCharts)
	register("coldstart.ownConnection", coldOwnConnectionCharts)
	register("coldstart.warmupFailure", coldWarmupFailureCharts)
	register("coldstart.throttle", coldThrottleCharts)
}

// The phases' colours: one per phase, the same in every cold-start chart. TLS has the strongest,
// as it is the phase the claims are about.
const (
	coldInitColour      = "#9467bd" // Init, the function's own measure
	coldWarmupColour    = "#c5b0d5" // the warm variant's warm-up call, inside Init
	coldDNSColour       = "#17becf"
	coldTCPColour       = "#bcbd22"
	coldTLSColour       = "#c51b7d"
	coldFirstByteColour = "#8c564b" // the request's write and DynamoDB's answer, after the set-up
	coldRestColour      = "#e7ba52" // the handler's time outside its GetItem's wait
)

// coldPhase is one segment of a cold start's waterfall, in the order they run.
type coldPhase int

// The phases of a cold start, in the order they run.
const (
	coldInit coldPhase = iota
	coldWarmup
	coldDNS
	coldTCP
	coldTLS
	coldFirstByte
	coldRest
	coldPhaseCount
)

// coldPhaseNames and coldPhaseColours are each phase's legend entry.
var (
	coldPhaseNames   = [coldPhaseCount]string{"Init", "warm-up (in Init)", "DNS", "TCP", "TLS", "first byte", "rest of the invocation"}
	coldPhaseColours = [coldPhaseCount]string{coldInitColour, coldWarmupColour, coldDNSColour, coldTCPColour, coldTLSColour, coldFirstByteColour, coldRestColour}
)

// The cold-start families' parts the charts read (results/family).
type (
	coldCall       = family.Call
	coldInvoked    = family.Invoked
	coldStartTrial = family.ColdStart
	coldArm        = family.ArmParameters
	coldArmSummary = family.ArmSummary
	coldSpan       = family.Span
)

// coldPlatform is the target's platform where it says where the functions ran: a live
// platform's region and architecture, which price its GB-seconds. (The target is the
// experiment's platform record, which results/family does not type.)
type coldPlatform struct {
	Region       string `json:"region"`
	Architecture string `json:"architecture"`
}

// coldOK says the function answered with the item: the cold start's figures are evidence, as the
// experiments count it.
func coldOK(i coldInvoked) bool {
	return i.Status == 200 && i.Error == "" && i.Body == "" && i.Answer.Found
}

// coldAnswered says every invocation of the cold start answered with the item, and the experiment
// counted it as evidence.
func coldAnswered(c coldStartTrial) bool {
	return c.NotEvidence == "" && coldOK(c.First) && coldOK(c.Second) && !slices.ContainsFunc(c.Later, func(i coldInvoked) bool { return !coldOK(i) })
}

// coldRow is one waterfall: a label, the median of each phase present (0 where absent) over n
// cold starts, or a note where there was nothing to draw.
type coldRow struct {
	Label  string
	N      int
	Phases [coldPhaseCount]float64
	Note   string
}

// present are the row's phases with a median above 0, in order: a phase that took no time in
// most cold starts (DNS to an IP address, TCP and TLS on a reused connection) draws nothing.
func (r coldRow) present() []coldPhase {
	var ps []coldPhase
	for p := range coldPhaseCount {
		if r.Phases[p] > 0 {
			ps = append(ps, p)
		}
	}
	return ps
}

// total is the sum of the row's medians, where its bar ends.
func (r coldRow) total() float64 {
	var t float64
	for _, v := range r.Phases {
		t += v
	}
	return t
}

// coldMedians is a row of the medians of each phase of invs, with Init (and a warm-up in it)
// where withInit: the invocations are first ones.
func coldMedians(label string, invs []coldInvoked, withInit bool) coldRow {
	r := coldRow{Label: label, N: len(invs)}
	if len(invs) == 0 {
		r.Note = "no cold start answered"
		return r
	}
	var per [coldPhaseCount][]float64
	for _, inv := range invs {
		a := inv.Answer
		var v [coldPhaseCount]float64
		if withInit {
			if a.Warmup != nil {
				v[coldWarmup] = a.Warmup.TotalMs
			}
			v[coldInit] = max(0, a.InitMs-v[coldWarmup])
		}
		v[coldDNS], v[coldTCP], v[coldTLS] = a.DNSMs, a.ConnectMs, a.TLSMs
		v[coldFirstByte] = max(0, a.TTFBMs-a.DNSMs-a.ConnectMs-a.TLSMs)
		v[coldRest] = max(0, a.HandlerMs-a.TTFBMs)
		for p := range coldPhaseCount {
			per[p] = append(per[p], v[p])
		}
	}
	for p := range coldPhaseCount {
		r.Phases[p] = stats.Quantile(per[p], 0.5)
	}
	return r
}

// Layout of the horizontal charts (waterfalls, T4's and T8's rows), in user units.
const (
	coldWidth     = 640.0
	coldRowHeight = 26.0
	coldBar       = 14.0
	coldTop       = 30.0 // under the legend
)

// coldWaterfall draws rows as consecutive horizontal segments on one time axis in ms, the total
// at the right of each. The axis reaches at least axisMs: a figure drawn again on the axis of
// the other languages' figures in its row (Figure.Rescale).
func coldWaterfall(label, axis string, rows []coldRow, axisMs float64) template.HTML {
	left, right := 135.0, coldWidth-70
	maxTotal := axisMs
	var used [coldPhaseCount]bool
	for _, r := range rows {
		maxTotal = max(maxTotal, r.total())
		for _, p := range r.present() {
			used[p] = true
		}
	}
	h := coldTop + coldRowHeight*float64(len(rows)) + 44
	c := svg.New(coldWidth, h, label)
	var legend []svg.LegendItem
	for p := range coldPhaseCount {
		if used[p] {
			legend = append(legend, svg.LegendItem{Colour: coldPhaseColours[p], Label: coldPhaseNames[p]})
		}
	}
	c.Legend(10, 14, legend...)
	x := svg.Scale{D0: 0, D1: svg.Nice(maxTotal), R0: left, R1: right}
	for i, r := range rows {
		y := coldTop + coldRowHeight*float64(i)
		mid := y + coldRowHeight/2
		c.Text(left-8, mid+4, svg.End, r.Label)
		if r.Note != "" {
			c.Text(left+4, mid+4, svg.Start, r.Note)
			continue
		}
		at := 0.0
		for _, p := range r.present() {
			v := r.Phases[p]
			c.Bar(x.At(at), mid-coldBar/2, x.At(at+v)-x.At(at), coldBar, coldPhaseColours[p],
				fmt.Sprintf("%s: %s median of %d", coldPhaseNames[p], coldMs(v), r.N))
			at += v
		}
		c.Text(x.At(at)+5, mid+4, svg.Start, coldMs(at))
	}
	c.XAxis(x, coldTop+coldRowHeight*float64(len(rows))+4, 6, svg.Format(0), axis)
	return c.HTML()
}

// coldWaterfallFigure is a figure of the waterfall of rows, which a row of several languages can
// draw again on a longer axis (Figure.Rescale): its axis ends past its longest total.
func coldWaterfallFigure(e Entry, title, caption, label, axis string, rows []coldRow) Figure {
	draw := func(axisMs float64) template.HTML { return coldWaterfall(label, axis, rows, axisMs) }
	var longest float64
	for _, r := range rows {
		longest = max(longest, r.total())
	}
	return Figure{Title: title, Caption: caption, SVG: draw(0), Entry: e, MaxMs: longest, Rescale: draw}
}

// coldMs writes a time for a label: whole ms from 10 ms up, a tenth below.
func coldMs(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// coldClaims names a result's claims for its titles: "T1, T6".
func coldClaims(e Entry) string { return strings.Join(e.Result.Claims, ", ") }

// coldSegmentsNote is what every waterfall's caption says of its segments.
const coldSegmentsNote = "The total at the right is the sum of the medians. Init is the function's own measure (with the warm variant's warm-up call at its end); " +
	"first byte is the request's write and DynamoDB's answer after the connection's set-up; the rest is the handler's time before the request and after the answer's first byte. " +
	"A phase whose median is 0 ms is left out (DNS to an IP address; TCP and TLS on a reused connection)."

// coldPhasesCharts draws a coldstart.phases result (T1, T2, T3, T5): a waterfall per arm, and
// for T5 the handshake's time and cost by memory size; a result without cold starts draws
// nothing (the summary's table still lists it, with its verdict).
func coldPhasesCharts(e Entry) ([]Figure, error) {
	var params family.PhasesParameters
	var summary family.PhasesSummary
	var trials []coldStartTrial
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(params.Arms) == 0 {
		return nil, fmt.Errorf("coldstart.phases: no arms; want at least one")
	}
	if len(trials) == 0 {
		// A run that stopped before its first cold start (its test's deadline too near) is a
		// result, inconclusive, with nothing to draw; its verdict says why.
		return nil, nil
	}
	byArm := map[string][]coldInvoked{}
	all := map[string]int{}
	for i, c := range trials {
		if !slices.ContainsFunc(params.Arms, func(a coldArm) bool { return a.Arm == c.Arm }) {
			return nil, fmt.Errorf("coldstart.phases: cold start %d is of arm %q, which the parameters do not list", i+1, c.Arm)
		}
		all[c.Arm]++
		if coldAnswered(c) {
			byArm[c.Arm] = append(byArm[c.Arm], c.First)
		}
	}
	rows := make([]coldRow, len(params.Arms))
	answered := 0
	for i, a := range params.Arms {
		rows[i] = coldMedians(coldArmLabel(a), byArm[a.Arm], true)
		answered += len(byArm[a.Arm])
	}
	if answered == 0 {
		// Nothing to draw, and nothing malformed: no cold start answered, or none was cold (an
		// endpoint whose updates keep the environment), which the verdict says.
		return nil, nil
	}
	figs := []Figure{coldWaterfallFigure(e, coldClaims(e)+" · the cold start phase by phase, each arm",
		fmt.Sprintf("Each segment is the %s; one waterfall per arm. ", coldCounts(params.Arms, byArm, all))+coldSegmentsNote,
		"Cold start waterfalls, one per arm: median Init and first-invocation phases in ms", "ms from the start of Init (Init, then the first invocation)", rows)}
	if summary.Setup != nil && summary.Setup.Article != nil {
		figs[0].Table = coldArticleTable(*summary.Setup.Article)
	}
	if summary.Scaling != nil {
		f, err := coldScalingFigure(e, params.Arms, summary.Arms)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// coldArticleTable is T1's handshake at 128 MB beside the article's (family.ArticleComparison):
// the article's wall time and the most CPU it can have held, this run's wall time and CPU, the
// wall time the quota makes of that CPU, the same function unthrottled, the roots' loading where
// the function times it apart, and the first call beyond its set-up; under it the key exchange
// and the machines, and the result's own sentences on what the difference is made of. The
// article measured wall time only, so the CPU columns are what tell a slower handshake from a
// more throttled one.
func coldArticleTable(a family.ArticleComparison) *Table {
	const none = "—"
	t := &Table{
		Title: "The handshake at 128 MB beside the article's",
		Head:  []string{"", "wall time", "CPU"},
		Rows: [][]string{
			{"the article's (mean)", coldArticleMs(a.PublishedTLSMs), "at most " + coldArticleMs(a.PublishedCPUMs)},
			{"this run's (mean)", coldArticleMs(a.TLSMs), coldArticleMs(a.TLSCPUMs)},
			{"expected from that CPU at the share", coldArticleMs(a.ExpectedTLSMs), none},
			{"unthrottled", coldArticleMs(a.ControlTLSMs), coldArticleMs(a.ControlTLSCPUMs)},
		},
		Notes: a.Explanation,
	}
	if r := a.Roots; r != nil {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d roots, loaded at %s (not in the handshake)", r.Count, r.When), coldArticleMs(r.Ms), coldArticleMs(r.CPUMs)})
	} else {
		t.Rows = append(t.Rows, []string{"roots", "in the handshake", "in the handshake"})
	}
	t.Rows = append(t.Rows, []string{"the first call beyond DNS, TCP and TLS", coldArticleMs(a.OtherFirstCallMs), none})
	var parts []string
	if a.Curve != "" {
		kx := "Key exchange " + a.Curve
		if neg := strings.TrimSpace(strings.Join([]string{a.TLSVersion, a.CipherSuite}, " ")); neg != "" {
			kx += " (" + neg + ")"
		}
		parts = append(parts, kx)
	}
	if a.Machine != "" {
		m := "measured on " + a.Machine
		if a.ArticleArch != "" {
			m += ", the article's on " + a.ArticleArch
		}
		parts = append(parts, m)
	}
	if a.PeriodMs > 0 {
		parts = append(parts, fmt.Sprintf("the CPU model's period %s", coldArticleMs(a.PeriodMs)))
	}
	if len(parts) > 0 {
		parts[0] = strings.ToUpper(parts[0][:1]) + parts[0][1:]
		t.Caption = strings.Join(parts, "; ") + "."
	}
	return t
}

// coldArticleMs writes a time of the article's comparison: whole ms from 100 ms up, as the
// article's 745 ms, a tenth below, where a CPU figure's differences are.
func coldArticleMs(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// coldArticleTables are the article comparisons of s's coldstart.phases results (T1's), each
// with its result, for the Markdown summary, which draws no chart. A result whose summary does
// not read is left out: the page reports it in its figures' place.
func coldArticleTables(s Set) []entryTable {
	var out []entryTable
	for _, e := range s.Entries {
		if e.Result.Family != "coldstart.phases" {
			continue
		}
		var summary family.PhasesSummary
		if decodeParts(e, nil, &summary, nil) != nil || summary.Setup == nil || summary.Setup.Article == nil {
			continue
		}
		out = append(out, entryTable{Entry: e, Table: coldArticleTable(*summary.Setup.Article)})
	}
	// In the page's order, one claim's languages in turn within each mode, rather than the
	// set's, whose experiments' names sort the languages by their spelling.
	base := map[string]int{}
	for _, et := range out {
		if _, ok := base[et.Entry.Base()]; !ok {
			base[et.Entry.Base()] = len(base)
		}
	}
	slices.SortStableFunc(out, func(a, b entryTable) int {
		return cmp.Or(base[a.Entry.Base()]-base[b.Entry.Base()], modeOrder(a.Entry.Result.Mode)-modeOrder(b.Entry.Result.Mode),
			languageOrder(a.Entry.FunctionLanguage())-languageOrder(b.Entry.FunctionLanguage()))
	})
	return out
}

// coldArmLabel names an arm for a row: its name, with its memory size where the name lacks it.
func coldArmLabel(a coldArm) string {
	if strings.Contains(a.Arm, "MB") {
		return a.Arm
	}
	return fmt.Sprintf("%s, %d MB", a.Arm, a.MemoryMB)
}

// coldCounts says how many cold starts each arm's medians are of: "8 cold starts" where every
// arm has the same, else each arm's.
func coldCounts(arms []coldArm, kept map[string][]coldInvoked, all map[string]int) string {
	var parts []string
	same := true
	for _, a := range arms {
		n, m := len(kept[a.Arm]), all[a.Arm]
		same = same && n == len(kept[arms[0].Arm]) && m == all[arms[0].Arm]
		parts = append(parts, fmt.Sprintf("%s: %d of %d", coldArmLabel(a), n, m))
	}
	if n, m := len(kept[arms[0].Arm]), all[arms[0].Arm]; same && n == m {
		return fmt.Sprintf("median of %d cold starts", n)
	} else if same {
		return fmt.Sprintf("median of the %d cold starts of %d that answered with the item", n, m)
	}
	return "median of the cold starts that answered with the item (" + strings.Join(parts, "; ") + ")"
}

// coldScalingFigure is T5 as the memory-tuning tools draw it: against the memory size, the
// handshake's and the cold start's time (means, as the claim is decided), and below it their cost
// in MB·s, with dollars beside where the result says where it ran and the repository's price
// table has that region and architecture.
func coldScalingFigure(e Entry, params []coldArm, arms []coldArmSummary) (Figure, error) {
	var sizes []coldArmSummary
	for _, a := range arms {
		// An unthrottled control has no memory size's CPU: it has no place on this axis.
		control := slices.ContainsFunc(params, func(p coldArm) bool { return p.Arm == a.Arm && p.Unthrottled })
		if a.TLSMs.N > 0 && !control {
			sizes = append(sizes, a)
		}
	}
	slices.SortStableFunc(sizes, func(a, b coldArmSummary) int { return a.MemoryMB - b.MemoryMB })
	if len(sizes) < 2 {
		return Figure{}, fmt.Errorf("coldstart.phases: T5's scaling has %d memory sizes with a handshake; want at least 2", len(sizes))
	}
	var target struct {
		Platform coldPlatform `json:"platform"`
	}
	if err := Decode(e.Result.Target, &target); err != nil {
		return Figure{}, fmt.Errorf("coldstart.phases: reading its target: %w", err)
	}
	price, priceNote := coldPrice(target.Platform)

	series := []struct {
		name   string
		colour string
		ms     func(coldArmSummary) float64
	}{
		{"TLS handshake", coldTLSColour, func(a coldArmSummary) float64 { return a.TLSMs.MeanMs }},
		{"first invocation", coldRestColour, func(a coldArmSummary) float64 { return a.FirstDurationMs.MeanMs }},
		{"Init + first invocation", coldInitColour, func(a coldArmSummary) float64 { return a.BilledMs.MeanMs }},
	}
	mbs := func(a coldArmSummary, ms float64) float64 { return ms / 1000 * float64(a.MemoryMB) }
	var maxMs, maxMBs float64
	for _, a := range sizes {
		for _, s := range series {
			maxMs, maxMBs = max(maxMs, s.ms(a)), max(maxMBs, mbs(a, s.ms(a)))
		}
	}

	const left, right, timeTop, timeBottom, costTop, costBottom = 70.0, coldWidth - 80, 30.0, 190.0, 225.0, 345.0
	c := svg.New(coldWidth, costBottom+40, "T5: the handshake's and the cold start's mean time and cost by memory size")
	items := make([]svg.LegendItem, len(series))
	for i, s := range series {
		items[i] = svg.LegendItem{Colour: s.colour, Label: s.name}
	}
	c.Legend(left, 14, items...)
	x := svg.Scale{D0: 0, D1: svg.Nice(float64(sizes[len(sizes)-1].MemoryMB)), R0: left, R1: right}
	tY := svg.Scale{D0: 0, D1: svg.Nice(maxMs), R0: timeBottom, R1: timeTop}
	cY := svg.Scale{D0: 0, D1: svg.Nice(maxMBs), R0: costBottom, R1: costTop}
	c.YAxis(tY, left, right, 4, svg.Format(0), "time, ms (mean)")
	c.YAxis(cY, left, right, 4, coldFormatMBs(cY.D1), "cost, MB·s")
	for _, bottom := range []float64{timeBottom, costBottom} {
		c.Line(left, bottom, right, bottom, svg.Ink, false)
		for _, a := range sizes {
			px := x.At(float64(a.MemoryMB))
			c.Line(px, bottom, px, bottom+4, svg.Ink, false)
			c.Text(px, bottom+15, svg.Middle, fmt.Sprint(a.MemoryMB))
		}
	}
	c.Text((left+right)/2, costBottom+30, svg.Middle, "memory size, MB")
	if price > 0 {
		// Dollars are MB·s / 1,024 × the GB-second price: a second scale of the same line.
		perMillion := func(mbs float64) float64 { return mbs / 1024 * price * 1e6 }
		d := svg.Scale{D0: 0, D1: perMillion(cY.D1), R0: costBottom, R1: costTop}
		c.Line(right, costBottom, right, costTop, svg.Ink, false)
		for _, v := range cY.Ticks(4) {
			y := cY.At(v)
			c.Line(right, y, right+4, y, svg.Ink, false)
			c.Text(right+6, y+4, svg.Start, coldDollars(perMillion(v), d.D1))
		}
		c.TextRotated(right+62, (costTop+costBottom)/2, "$ per million")
	}
	for _, s := range series {
		var timeXY, costXY []float64
		for _, a := range sizes {
			px, ms := x.At(float64(a.MemoryMB)), s.ms(a)
			timeXY = append(timeXY, px, tY.At(ms))
			costXY = append(costXY, px, cY.At(mbs(a, ms)))
			c.Dot(px, tY.At(ms), 3, s.colour, fmt.Sprintf("%s at %d MB: %s (mean of %d)", s.name, a.MemoryMB, coldMs(ms), a.TLSMs.N))
			c.Dot(px, cY.At(mbs(a, ms)), 3, s.colour, fmt.Sprintf("%s at %d MB: %.3f MB·s", s.name, a.MemoryMB, mbs(a, ms)))
		}
		c.Polyline(s.colour, 1.5, timeXY...)
		c.Polyline(s.colour, 1.5, costXY...)
	}
	return Figure{
		Title: coldClaims(e) + " · time and cost by memory size",
		Caption: fmt.Sprintf("Means of the cold starts that answered at each size (%d at %d MB), as the claim is decided. Cost is memory × time: MB·s (÷ 1,024 for GB·s), per cold start. ",
			sizes[0].TLSMs.N, sizes[0].MemoryMB) + priceNote,
		SVG:   c.HTML(),
		Entry: e,
	}, nil
}

// coldPrice is the GB-second price for p, from the repository's table of Lambda's list prices,
// and what the caption says of it; 0 where the result names no region and architecture, or the
// table has no price for them: no price is ever assumed.
func coldPrice(p coldPlatform) (float64, string) {
	if p.Region == "" || p.Architecture == "" {
		return 0, "MB·s only: the result names no region and architecture to price them at."
	}
	gbs, _, fellBack := prices.Lambda(p.Region, p.Architecture)
	if gbs <= 0 || fellBack {
		return 0, fmt.Sprintf("MB·s only: the price table (read %s) has no price for %s in %s.", prices.Read, p.Architecture, p.Region)
	}
	return gbs, fmt.Sprintf("Dollars per million cold starts at Lambda's list price for %s in %s, $%.10f per GB-s (read %s, without the free tier), what these times would bill.",
		p.Architecture, p.Region, gbs, prices.Read)
}

// coldFormatMBs is a tick format for MB·s up to top: decimals enough to tell ticks apart.
func coldFormatMBs(top float64) func(float64) string {
	switch {
	case top >= 10:
		return svg.Format(0)
	case top >= 1:
		return svg.Format(1)
	}
	return svg.Format(2)
}

// coldDollars writes dollars for a tick of an axis up to top.
func coldDollars(v, top float64) string {
	switch {
	case top >= 10:
		return fmt.Sprintf("$%.0f", v)
	case top >= 1:
		return fmt.Sprintf("$%.1f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

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
	var firsts, seconds []coldInvoked
	for _, c := range trials {
		if coldAnswered(c.ColdStart) {
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

// coldThrottleWindowMs is how much of each busy loop T8's chart shows, from its start: a dozen
// periods of 20 ms, few enough that each run and stall is wide enough to see.
const coldThrottleWindowMs = 250.0

// coldGridShare is the largest share of a CPU whose period T8 reads from the stall ends: above
// it, stalls are short and many end off the grid (experiments/coldstart, maxGridShare).
const coldGridShare = 0.5

// coldInWindow are the spans that start within the window, as the chart draws them.
func coldInWindow(spans []coldSpan) []coldSpan {
	var in []coldSpan
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
			spans  []coldSpan
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
