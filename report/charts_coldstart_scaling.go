package report

// T5's scaling: the handshake's time and cost by memory size, as the memory-tuning tools draw
// them, priced from the repository's table of Lambda's list prices.

import (
	"fmt"
	"slices"

	"github.com/serverless-claims/claims/harness/aws/prices"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

// coldScalingFigure is T5 as the memory-tuning tools draw it: against the memory size, the
// handshake's and the cold start's time (means, as the claim is decided), and below it their cost
// in MB·s, with dollars beside where the result says where it ran and the repository's price
// table has that region and architecture.
func coldScalingFigure(e Entry, params []family.ArmParameters, arms []family.ArmSummary) (Figure, error) {
	var sizes []family.ArmSummary
	for _, a := range arms {
		// An unthrottled control has no memory size's CPU: it has no place on this axis.
		control := slices.ContainsFunc(params, func(p family.ArmParameters) bool { return p.Arm == a.Arm && p.Unthrottled })
		if a.TLSMs.N > 0 && !control {
			sizes = append(sizes, a)
		}
	}
	slices.SortStableFunc(sizes, func(a, b family.ArmSummary) int { return a.MemoryMB - b.MemoryMB })
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
		ms     func(family.ArmSummary) float64
	}{
		{"TLS handshake", coldTLSColour, func(a family.ArmSummary) float64 { return a.TLSMs.MeanMs }},
		{"first invocation", coldRestColour, func(a family.ArmSummary) float64 { return a.FirstDurationMs.MeanMs }},
		{"Init + first invocation", coldInitColour, func(a family.ArmSummary) float64 { return a.BilledMs.MeanMs }},
	}
	mbs := func(a family.ArmSummary, ms float64) float64 { return ms / 1000 * float64(a.MemoryMB) }
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
