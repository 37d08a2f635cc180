package stats

import (
	"math"
	"slices"
)

// GridFit is the coarsest grid a set of instants falls on.
type GridFit struct {
	// PeriodMs is the grid's spacing: of the periods tried around the coarsest that fits, the one
	// with the most instants on its grid, or a divisor of it whose other lines hold far more of
	// the rest than chance would.
	PeriodMs float64 `json:"periodMs"`
	// OffsetMs is the grid line nearest the earliest instant: where the grid starts.
	OffsetMs float64 `json:"offsetMs"`
	// OnGrid is the instants within ToleranceMs of the grid, of all those given.
	OnGrid      Proportion `json:"onGrid"`
	ToleranceMs float64    `json:"toleranceMs"`
	// Found is false when there are fewer than 3 instants, or no period tried fits.
	Found bool `json:"found"`
}

// Grid finds the coarsest (largest) period P from minMs to maxMs such that at least fraction
// minFit of the instants (times in ms, any order) lie within tolMs of offset + n*P for integer n.
//
// It is how the CFS period is read from the instants at which a throttled loop's stalls end: they
// fall on the period's boundaries, but a stall can last one or two periods, so the spacings are
// multiples of the period and their median need not be it. Every divisor of the period fits too,
// hence the coarsest; a multiple fits only the instants that share its phase, so it fails minFit,
// unless most spacings are the same multiple: then the instants off its grid fall on a divisor's
// other lines, and that divisor is the grid (finerGrid).
//
// The search tries every period from maxMs down, each a little smaller than the last, by so
// little that the grid drifts half a tolerance over the instants' span: none can fall between two
// periods tried. For each it places the grid where the most instants are within tolMs of it (a
// window slid round their phases), so that no instant decides where the grid lies: the stall ends
// of a busy machine come in clumps, at the refill and a scheduler tick later, and a line through
// any one instant, or through their mean, can miss a clump that a line between them holds. The
// cost is about n log n times log(maxMs/minMs) times span/tolMs; a few milliseconds for a
// two-second loop. A period of at most 2*tolMs is never reported, since every instant is within
// tolMs of such a grid. Non-finite instants count as off the grid; bad arguments (minMs or tolMs
// not positive, maxMs below minMs) find nothing.
func Grid(instants []float64, minMs, maxMs, tolMs, minFit float64) GridFit {
	out := GridFit{OnGrid: Proportion{N: len(instants)}, ToleranceMs: tolMs}
	if !(minMs > 0) || !(tolMs > 0) || !(maxMs >= minMs) || math.IsInf(maxMs, 0) || math.IsNaN(minFit) {
		return out
	}
	ts := make([]float64, 0, len(instants))
	for _, t := range instants {
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			ts = append(ts, t)
		}
	}
	if len(ts) < 3 {
		return out
	}
	slices.Sort(ts)
	// At least two instants must be on the grid for it to have been measured at all.
	need := max(int(math.Ceil(minFit*float64(len(instants))-1e-9)), 2)
	span := ts[len(ts)-1] - ts[0]
	if need > len(ts) || !(span > 0) {
		return out
	}
	// A period q off p drifts the grid by span*(q-p)/p over the span.
	shrink := 1 - tolMs/(2*span)
	t0 := ts[0]
	h := newPhaseHistogram(maxMs, tolMs)
	var offset float64
	for p := maxMs; p >= minMs; p *= shrink {
		if p <= 2*tolMs {
			break
		}
		// The histogram's count is never below the exact one: only where it reaches need is
		// the exact count worth its sort.
		k := h.most(ts, t0, p)
		var a float64
		if k >= need {
			a, k = densestPhase(ts, t0, p, tolMs)
		}
		if k < need {
			if out.Found {
				break // past the periods around the coarsest grid
			}
			continue
		}
		if !out.Found || k > out.OnGrid.K {
			out.Found, out.PeriodMs, out.OnGrid.K, offset = true, p, k, a
		}
	}
	if out.Found {
		out.PeriodMs, out.OnGrid.K, offset = finerGrid(ts, t0, out.PeriodMs, out.OnGrid.K, offset, minMs, tolMs)
		// The grid line nearest the earliest instant.
		p := out.PeriodMs
		out.OffsetMs = t0 + offset - p*math.Round(offset/p)
	}
	return out
}

// finerChance is how unlikely, were the instants off a grid strays, the number of them on a
// finer grid's other lines must be for the finer grid to be the one they fall on: one in a
// thousand, so that strays alone all but never halve a grid.
const finerChance = 1e-3

// finerGrid returns the grid of a divisor p/k (k = 2, 3, 4, finest first) of the coarsest grid
// that fits, p, where the instants off p's grid fall on p/k's other lines far more often than
// strays would, and again from there; otherwise p. The coarsest grid is not the period where
// most stalls last the same whole number of periods: a thread that overruns its quota by up to
// a scheduler tick is taken back from the next period and stalls two (seen at 128 MB here: 43
// of 53 stall ends on a 40 ms grid, and 50 on the 20 ms one). A stray off p's grid lands within
// tolMs of one of the k-1 other lines with a chance of 2*tolMs*(k-1)/(p-2*tolMs) at most.
func finerGrid(ts []float64, t0, p float64, k int, a, minMs, tolMs float64) (float64, int, float64) {
	for refined := true; refined; {
		refined = false
		for d := 2; d <= 4; d++ {
			q := p / float64(d)
			if q < minMs || q <= 2*tolMs {
				break
			}
			qa, qk := densestPhase(ts, t0, q, tolMs)
			off := len(ts) - k
			chance := min(1, 2*tolMs*float64(d-1)/(p-2*tolMs))
			if qk > k && binomialTail(off, qk-k, chance) < finerChance {
				p, k, a, refined = q, qk, qa, true
				break
			}
		}
	}
	return p, k, a
}

// binomialTail is the chance of at least x successes in n trials of chance c each.
func binomialTail(n, x int, c float64) float64 {
	if x <= 0 {
		return 1
	}
	if x > n || c <= 0 {
		return 0
	}
	if c >= 1 {
		return 1
	}
	var sum float64
	for i := x; i <= n; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lni, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lg - li - lni + float64(i)*math.Log(c) + float64(n-i)*math.Log1p(-c))
	}
	return sum
}

// densestPhase returns the phase a in [0, p) of the grid of period p (lines at t0 + a + n*p)
// that has the most of ts within tolMs of it, and how many: a window of 2*tolMs slid round the
// instants' phases, the line in the middle of the best window's outermost phases.
func densestPhase(ts []float64, t0, p, tolMs float64) (a float64, k int) {
	ph := make([]float64, 0, 2*len(ts))
	for _, t := range ts {
		x := t - t0
		ph = append(ph, x-p*math.Floor(x/p))
	}
	slices.Sort(ph)
	n := len(ph)
	for i := range n { // the phases once more, a period on, for windows that wrap round
		ph = append(ph, ph[i]+p)
	}
	for i, j := 0, 0; i < n; i++ {
		for j < i+n && ph[j]-ph[i] <= 2*tolMs {
			j++
		}
		if j-i > k {
			k, a = j-i, math.Mod((ph[i]+ph[j-1])/2, p)
		}
	}
	return a, k
}

// phaseHistogram counts instants' phases in bins of a quarter tolerance, for a quick bound on
// how many can lie within a tolerance of one grid line.
type phaseHistogram struct {
	width  float64
	counts []int
}

// histogramBins is how many bins a window of the histogram spans: nine quarters of a tolerance
// hold every window of two tolerances, wherever it starts within a bin.
const histogramBins = 9

// newPhaseHistogram makes a histogram for periods up to maxMs.
func newPhaseHistogram(maxMs, tolMs float64) *phaseHistogram {
	w := tolMs / 4
	return &phaseHistogram{width: w, counts: make([]int, int(maxMs/w)+2)}
}

// most returns how many of ts fall in the fullest window of histogramBins bins of their phases
// for period p: at least as many as densestPhase counts for p.
func (h *phaseHistogram) most(ts []float64, t0, p float64) int {
	bins := int(p/h.width) + 1
	c := h.counts[:bins]
	clear(c)
	for _, t := range ts {
		x := t - t0
		c[int((x-p*math.Floor(x/p))/h.width)]++
	}
	win := min(histogramBins, bins)
	sum := 0
	for i := range win {
		sum += c[i]
	}
	best := sum
	for i := range bins - 1 { // slide round: the window starting at bin i+1
		sum += c[(i+win)%bins] - c[i]
		best = max(best, sum)
	}
	return best
}
