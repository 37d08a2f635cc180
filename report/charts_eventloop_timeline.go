package report

// The event-loop charts' timeline: one row per trial, a bar for each request's handler on the
// answering process's own clock, and its legend.

import (
	"fmt"
	"html/template"
	"math"

	"github.com/serverless-claims/claims/report/svg"
)

// elTimeline is a chart of trials as rows of handler bars.
type elTimeline struct {
	legend []svg.LegendItem
	look   func(elTrial) elPingLook
	label  string
}

// elBar is one request's bar on the trial's time axis.
type elBar struct {
	lane         int
	from, to     float64 // ms from the trial's start
	sent         float64 // the client's send, for a /ping's lead-in
	colour, what string
	ping, client bool // client: drawn from the client's times
}

// Layout, in user units: a row per trial, a lane in it per request of the pattern.
const (
	elWidth       = 640.0
	elLeft        = 44.0  // trial numbers
	elRight       = 190.0 // the /ping's latency and the row's words
	elPingMinW    = 4.0   // a /ping's handler takes microseconds; drawn at least this wide to be seen
	elManyTrials  = 20    // from here rows are packed tighter
	elAxisHeight  = 40.0
	elLegendLine  = 16.0
	elHeaderSpace = 14.0
)

// draw lays out trials and returns the chart and how many requests were drawn from the client's
// times.
func (t elTimeline) draw(trials []elTrial) (html template.HTML, fallbacks int) {
	rows := make([][]elBar, len(trials))
	looks := make([]elPingLook, len(trials))
	lanes, end := 1, 1.0
	for i, tr := range trials {
		looks[i] = t.look(tr)
		var n int
		rows[i], n = elBarsOf(tr, looks[i].colour)
		fallbacks += n
		lanes = max(lanes, len(tr.Requests))
		for _, b := range rows[i] {
			end = math.Max(end, b.to)
		}
	}

	rowH, gap := 20.0, 4.0
	if len(trials) >= elManyTrials {
		rowH, gap = 13, 2
	}
	laneH := (rowH - gap) / float64(lanes)
	legendLines := t.legendLines()
	top := 8 + elLegendLine*float64(legendLines) + elHeaderSpace
	height := top + rowH*float64(len(trials)) + elAxisHeight
	c := svg.New(elWidth, height, t.label)
	plotR := elWidth - elRight
	x := svg.Scale{D0: 0, D1: svg.Nice(end), R0: elLeft, R1: plotR}

	t.drawLegend(c)
	c.Text(plotR+62, top-4, svg.End, "/ping latency")
	for i, tr := range trials {
		y := top + rowH*float64(i)
		if i%2 == 1 {
			c.Rect(elLeft, y, plotR-elLeft, rowH, "#f4f4f4")
		}
		mid := y + rowH/2 + 4
		c.Text(elLeft-6, mid, svg.End, fmt.Sprint(tr.Index+1))
		for _, b := range rows[i] {
			by := y + gap/2 + laneH*float64(b.lane)
			x0, x1 := x.At(b.from), x.At(b.to)
			if b.ping && !b.client {
				c.Line(x.At(b.sent), by+laneH/2, x0, by+laneH/2, svg.Grey, false)
			}
			if b.ping {
				x1 = math.Max(x1, x0+elPingMinW)
			}
			c.Bar(x0, by, x1-x0, laneH, b.colour, fmt.Sprintf("trial %d: %s", tr.Index+1, b.what))
		}
		if pings := elOf(tr, "ping"); len(pings) > 0 {
			c.Text(plotR+62, mid, svg.End, fmt.Sprintf("%.1f ms", pings[0].LatencyMs))
		}
		c.Text(plotR+70, mid, svg.Start, looks[i].note)
	}
	bottom := top + rowH*float64(len(trials))
	c.XAxis(x, bottom, 6, svg.Format(elTickDecimals(x.Ticks(6))), "ms from the trial's start")
	c.TextRotated(12, (top+bottom)/2, "trial")
	return c.HTML(), fallbacks
}

// elBarsOf is a trial's bars, each request in its own lane, in the order the trial lists them;
// ping is the colour of its /ping. n counts the requests drawn from the client's times.
//
// A process's clock has its own zero, so each process (envId) of the trial is shifted by one
// amount: the least that puts none of its requests' handlers before the client sent them.
// Handlers of one process keep their order and gaps, which is what waiting is decided on.
func elBarsOf(tr elTrial, ping string) (bars []elBar, n int) {
	shift := map[string]float64{}
	for _, q := range tr.Requests {
		if !probeTimes(q) {
			continue
		}
		d := q.SentMs - q.Answer.ReceivedAt
		if s, ok := shift[q.Answer.EnvID]; !ok || d > s {
			shift[q.Answer.EnvID] = d
		}
	}
	for lane, q := range tr.Requests {
		b := elBar{lane: lane, sent: q.SentMs, colour: svg.CPU, ping: q.Kind == "ping"}
		if b.ping {
			b.colour = ping
		}
		if probeTimes(q) {
			d := shift[q.Answer.EnvID]
			b.from, b.to = q.Answer.ReceivedAt+d, q.Answer.FinishedAt+d
			b.what = fmt.Sprintf("%s %s handled %.1f to %.1f ms in process %s", q.Name, q.Path, b.from, b.to, elShortID(q.Answer.EnvID))
		} else {
			b.from, b.to, b.client = q.SentMs, q.DoneMs, true
			n++
			b.what = fmt.Sprintf("%s %s sent %.1f, done %.1f ms (client's times: no probe times)", q.Name, q.Path, b.from, b.to)
		}
		bars = append(bars, b)
	}
	return bars, n
}

// elTickDecimals is how many decimals tell ticks apart: none 100 ms apart, one 0.2 ms apart.
func elTickDecimals(ticks []float64) int {
	if len(ticks) < 2 {
		return 0
	}
	return max(0, int(math.Ceil(-math.Log10(ticks[1]-ticks[0])-1e-9)))
}

// elShortID is the start of an envId, enough to tell a trial's processes apart.
func elShortID(id string) string {
	if len(id) > 6 {
		return id[:6]
	}
	return id
}

// legendLines is how many lines the legend wraps onto, the lead-in's key included.
func (t elTimeline) legendLines() int {
	lines, x := 1, elLeft
	for _, w := range t.legendWidths() {
		if x+w > elWidth && x > elLeft {
			lines++
			x = elLeft
		}
		x += w
	}
	return lines
}

// legendWidths are the widths svg.Legend gives its items, then the lead-in's key's.
func (t elTimeline) legendWidths() []float64 {
	var ws []float64
	for _, it := range t.legend {
		ws = append(ws, svg.LegendWidth(it.Label))
	}
	return append(ws, svg.LegendWidth(elLeadIn))
}

// elLeadIn is the legend's words for the grey line before a /ping's bar.
const elLeadIn = "/ping not yet handled"

// drawLegend draws the colours' legend and the lead-in's key, wrapping where a line is full.
func (t elTimeline) drawLegend(c *svg.Canvas) {
	x, y := elLeft, 8+elLegendLine-4
	ws := t.legendWidths()
	for i, w := range ws {
		if x+w > elWidth && x > elLeft {
			x, y = elLeft, y+elLegendLine
		}
		if i < len(t.legend) {
			x = c.Legend(x, y, t.legend[i])
			continue
		}
		c.Line(x, y-4, x+10, y-4, svg.Grey, false)
		c.Text(x+14, y, svg.Start, elLeadIn)
		x += w
	}
}
