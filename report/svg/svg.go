// Package svg draws the report's charts as inline SVG: a canvas, linear scales with round ticks,
// and the marks a chart is made of. It knows nothing of results; the report's charts use it.
//
// A mark is an element that stands for data (a bar, a dot, a line of a series); the report's
// browser test counts them, so that a chart that drew nothing fails it. Axes, grid lines and
// labels are not marks.
package svg

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// Palette: the colours the charts share, so that one thing has one colour on the whole page.
const (
	CPU           = "#d62728" // a /cpu request
	Ping          = "#1f77b4" // a /ping that did not wait
	PingWaited    = "#ff7f0e" // a /ping that waited for a /cpu
	PingElsewhere = "#2ca02c" // a /ping in another environment
	Grey          = "#9e9e9e" // what is shown for context
	Ink           = "#333333" // axes and labels
)

// Series are colours for series that have no meaning of their own (one per memory size, say).
var Series = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// Canvas is one chart being drawn: Width by Height user units, scaled to the page's width.
type Canvas struct {
	Width, Height float64
	label         string
	b             strings.Builder
}

// New starts a chart; label says in words what it shows, for screen readers and the browser test.
func New(width, height float64, label string) *Canvas {
	return &Canvas{Width: width, Height: height, label: label}
}

// HTML is the finished chart as an <svg> element.
func (c *Canvas) HTML() template.HTML {
	return template.HTML(fmt.Sprintf(
		`<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" aria-label="%s" font-family="sans-serif" font-size="11">%s</svg>`,
		num(c.Width), num(c.Height), html.EscapeString(c.label), c.b.String()))
}

// Bar is a data mark: a rectangle filled with fill; title is shown on hover.
func (c *Canvas) Bar(x, y, w, h float64, fill, title string) {
	if w < 0 {
		x, w = x+w, -w
	}
	if h < 0 {
		y, h = y+h, -h
	}
	fmt.Fprintf(&c.b, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s">%s</rect>`,
		num(x), num(y), num(math.Max(w, 0.5)), num(math.Max(h, 0.5)), fill, tooltip(title))
}

// Dot is a data mark: a circle of radius r.
func (c *Canvas) Dot(x, y, r float64, fill, title string) {
	fmt.Fprintf(&c.b, `<circle class="mark" cx="%s" cy="%s" r="%s" fill="%s">%s</circle>`, num(x), num(y), num(r), fill, tooltip(title))
}

// Polyline is a data mark: a line through the points (x0, y0, x1, y1, ...).
func (c *Canvas) Polyline(stroke string, width float64, xy ...float64) {
	var pts []string
	for i := 0; i+1 < len(xy); i += 2 {
		pts = append(pts, num(xy[i])+","+num(xy[i+1]))
	}
	fmt.Fprintf(&c.b, `<polyline class="mark" fill="none" stroke="%s" stroke-width="%s" points="%s"/>`, stroke, num(width), strings.Join(pts, " "))
}

// Rect is a rectangle that is not data: a background band, a frame.
func (c *Canvas) Rect(x, y, w, h float64, fill string) {
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`, num(x), num(y), num(w), num(h), fill)
}

// Line is a line that is not data: an axis, a tick, a grid line, a bound. dashed draws it dashed.
func (c *Canvas) Line(x1, y1, x2, y2 float64, stroke string, dashed bool) {
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4 3"`
	}
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1"%s/>`, num(x1), num(y1), num(x2), num(y2), stroke, dash)
}

// Anchor is where a text sits against its point.
type Anchor string

// The anchors of Text.
const (
	Start  Anchor = "start"
	Middle Anchor = "middle"
	End    Anchor = "end"
)

// Text writes s at (x, y), its baseline at y.
func (c *Canvas) Text(x, y float64, anchor Anchor, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="%s" fill="%s">%s</text>`, num(x), num(y), anchor, Ink, html.EscapeString(s))
}

// TextRotated writes s at (x, y) turned a quarter left, for a vertical axis's label.
func (c *Canvas) TextRotated(x, y float64, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="middle" fill="%s" transform="rotate(-90 %s %s)">%s</text>`,
		num(x), num(y), Ink, num(x), num(y), html.EscapeString(s))
}

// LegendItem is one colour and what it means.
type LegendItem struct{ Colour, Label string }

// Legend draws the items in a row from (x, y), and returns the x where it ended.
func (c *Canvas) Legend(x, y float64, items ...LegendItem) float64 {
	for _, it := range items {
		c.Rect(x, y-9, 10, 10, it.Colour)
		c.Text(x+14, y, Start, it.Label)
		x += LegendWidth(it.Label)
	}
	return x
}

// LegendWidth is the width one legend item takes: its swatch, its label at the charts' font size
// (capitals a little wider) and the gap after it.
func LegendWidth(label string) float64 {
	w := 14 + 6.2*float64(len(label)) + 14
	for _, r := range label {
		if r >= 'A' && r <= 'Z' {
			w += 1.3
		}
	}
	return w
}

// Scale maps a domain [D0, D1] onto a range [R0, R1] linearly.
type Scale struct{ D0, D1, R0, R1 float64 }

// At is v's position on the range.
func (s Scale) At(v float64) float64 {
	if s.D1 == s.D0 {
		return s.R0
	}
	return s.R0 + (v-s.D0)/(s.D1-s.D0)*(s.R1-s.R0)
}

// Ticks are about n round values across the domain (1, 2 or 5 times a power of ten apart).
func (s Scale) Ticks(n int) []float64 {
	lo, hi := math.Min(s.D0, s.D1), math.Max(s.D0, s.D1)
	if hi == lo || n < 1 {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	// Count in whole steps and divide by the inverse of a step below 1 (0.2 is 1/5), so that a
	// tick is the round value itself (0.6, not 0.6000000000000001).
	at := func(k float64) float64 { return k * step }
	if step < 1 {
		inv := math.Round(1 / step)
		at = func(k float64) float64 { return k / inv }
	}
	var ts []float64
	for k := math.Ceil(lo / step); at(k) <= hi+step*1e-9; k++ {
		ts = append(ts, at(k))
	}
	return ts
}

// Nice widens [0, max] to end on a round value, for an axis that starts at zero.
func Nice(max float64) float64 {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(max)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= max {
			return m * p
		}
	}
	return 10 * p
}

// XAxis draws a horizontal axis at y for s, its ticks labelled by format, and label under it.
func (c *Canvas) XAxis(s Scale, y float64, ticks int, format func(float64) string, label string) {
	c.Line(s.R0, y, s.R1, y, Ink, false)
	for _, v := range s.Ticks(ticks) {
		x := s.At(v)
		c.Line(x, y, x, y+4, Ink, false)
		c.Text(x, y+15, Middle, format(v))
	}
	if label != "" {
		c.Text((s.R0+s.R1)/2, y+29, Middle, label)
	}
}

// YAxis draws a vertical axis at x for s, with grid lines across to x2 and label beside it.
func (c *Canvas) YAxis(s Scale, x, x2 float64, ticks int, format func(float64) string, label string) {
	c.Line(x, s.R0, x, s.R1, Ink, false)
	for _, v := range s.Ticks(ticks) {
		y := s.At(v)
		c.Line(x-4, y, x, y, Ink, false)
		if x2 > x {
			c.Line(x, y, x2, y, "#e0e0e0", false)
		}
		c.Text(x-6, y+4, End, format(v))
	}
	if label != "" {
		c.TextRotated(x-38, (s.R0+s.R1)/2, label)
	}
}

// Format is a tick format with d decimals.
func Format(d int) func(float64) string {
	return func(v float64) string { return fmt.Sprintf("%.*f", d, v) }
}

func tooltip(s string) string {
	if s == "" {
		return ""
	}
	return "<title>" + html.EscapeString(s) + "</title>"
}

// num writes a coordinate short: two decimals at most.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
