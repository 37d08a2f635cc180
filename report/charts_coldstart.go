package report

// The cold-start families' charts (claims T1-T6, T8): each cold start as a waterfall of its
// phases, T5's handshake time and cost by memory size as the memory-tuning tools draw it, T8's
// busy loop as runs and stalls on a time axis, T6's two calls on the SDK's own connection and
// T4's Init with the warm-up's endpoint down, in a file per kind (charts_coldstart_*.go), each
// reading the families' types (results/family), never the experiments'; this file registers them
// and holds the phases' waterfalls they share.

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

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

// coldPlatform is the target's platform where it says where the functions ran: a live
// platform's region and architecture, which price its GB-seconds. (The target is the
// experiment's platform record, which results/family does not type.)
type coldPlatform struct {
	Region       string `json:"region"`
	Architecture string `json:"architecture"`
}

// coldOK says the function answered with the item, for a chart's label; whether a cold start is
// evidence is the experiment's to say (ColdStart.NotEvidence).
func coldOK(i family.Invoked) bool {
	return i.Status == 200 && i.Error == "" && i.Body == "" && i.Answer.Found
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
func coldMedians(label string, invs []family.Invoked, withInit bool) coldRow {
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
	var trials []family.ColdStart
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
	byArm := map[string][]family.Invoked{}
	all := map[string]int{}
	for i, c := range trials {
		if !slices.ContainsFunc(params.Arms, func(a family.ArmParameters) bool { return a.Arm == c.Arm }) {
			return nil, fmt.Errorf("coldstart.phases: cold start %d is of arm %q, which the parameters do not list", i+1, c.Arm)
		}
		all[c.Arm]++
		if c.NotEvidence == "" { // evidence, as the experiment judged it
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

// coldArmLabel names an arm for a row: its name, with its memory size where the name lacks it.
func coldArmLabel(a family.ArmParameters) string {
	if strings.Contains(a.Arm, "MB") {
		return a.Arm
	}
	return fmt.Sprintf("%s, %d MB", a.Arm, a.MemoryMB)
}

// coldCounts says how many cold starts each arm's medians are of: "8 cold starts" where every
// arm has the same, else each arm's.
func coldCounts(arms []family.ArmParameters, kept map[string][]family.Invoked, all map[string]int) string {
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
