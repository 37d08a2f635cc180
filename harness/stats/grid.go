package stats

import (
	"math"
	"slices"
)

// GridFit is the coarsest grid a set of instants falls on.
type GridFit struct {
	// PeriodMs is the grid's spacing, refined by least squares over the instants on it.
	PeriodMs float64 `json:"periodMs"`
	// OffsetMs is the grid line nearest the earliest instant: where the grid starts.
	OffsetMs float64 `json:"offsetMs"`
	// OnGrid is the instants within ToleranceMs of the grid, of all those given.
	OnGrid      Proportion `json:"onGrid"`
	ToleranceMs float64    `json:"toleranceMs"`
	// Found is false when there are fewer than 3 instants, or no candidate period fits.
	Found bool `json:"found"`
}

// Limits of the search: a spacing is tried as up to gridMaxDivisor periods, and each candidate
// is anchored at each of the first gridAnchors instants, in case the first is a stray.
const (
	gridMaxDivisor = 64
	gridAnchors    = 5
)

// Grid finds the coarsest (largest) period P, at least minMs, such that at least fraction minFit
// of the instants (times in ms, any order) lie within tolMs of offset + n*P for integer n.
//
// It is how the CFS period is read from the instants at which a throttled loop's stalls end: they
// fall on the period's boundaries, but a stall can last one or two periods, so the spacings are
// multiples of the period and their median need not be it. Every divisor of the period fits too,
// hence the coarsest; a multiple fits only the instants that share its phase, so it fails minFit.
//
// Candidates are each spacing divided by 1, 2, 3 and so on. A candidate is fitted incrementally
// from an anchor instant: each later instant on the grid (within tolMs of it) refits the grid by
// least squares, so that a period that is a little off the candidate does not drift off over
// hundreds of periods. A period of at most 2*tolMs is never reported, since every instant is
// within tolMs of such a grid. Non-finite instants count as off the grid; bad arguments (minMs
// or tolMs not positive) find nothing.
func Grid(instants []float64, minMs, tolMs, minFit float64) GridFit {
	out := GridFit{OnGrid: Proportion{N: len(instants)}, ToleranceMs: tolMs}
	if !(minMs > 0) || !(tolMs > 0) || math.IsNaN(minFit) {
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
	if need > len(ts) {
		return out
	}
	maxRejects := len(ts) - need
	span := ts[len(ts)-1] - ts[0]

	for _, p0 := range gridCandidates(ts, minMs, tolMs) {
		// Candidates come largest first, and a fit moves the period by about tolMs at most, so
		// once one fits only those close below it can still be better (on the same grid).
		if out.Found && p0 < out.PeriodMs-tolMs {
			break
		}
		for anchor := range min(gridAnchors, len(ts)) {
			a, p, k, ok := fitGrid(ts, anchor, p0, tolMs, maxRejects)
			if !ok || k < need || p < minMs || p <= 2*tolMs {
				continue
			}
			if !out.Found || gridBetter(p, k, out.PeriodMs, out.OnGrid.K, span, tolMs) {
				out.Found = true
				out.PeriodMs = p
				out.OnGrid.K = k
				out.OffsetMs = a + p*math.Round((ts[0]-a)/p)
			}
			if k == len(ts) {
				break // no other anchor can do better
			}
		}
	}
	return out
}

// gridBetter reports whether a fit of period p with k instants on it beats the best so far. Two
// periods whose grids part by less than tolMs over the whole span are the same grid, found twice
// from different candidates: then the one with more instants on it is better.
func gridBetter(p float64, k int, bestP float64, bestK int, span, tolMs float64) bool {
	if math.Abs(p-bestP)*span/min(p, bestP) <= tolMs {
		return k > bestK
	}
	return p > bestP
}

// gridCandidates returns the candidate periods, largest first: every spacing d of consecutive
// instants (ts sorted) divided by k = 1, 2, ... while d/k is at least minMs and above 2*tolMs.
// Candidates within tolMs/10 of the largest of a run are merged into their mean, which keeps the
// prediction of an instant ten periods on within tolMs.
func gridCandidates(ts []float64, minMs, tolMs float64) []float64 {
	var cs []float64
	for i := 1; i < len(ts); i++ {
		d := ts[i] - ts[i-1]
		for k := 1; k <= gridMaxDivisor; k++ {
			p := d / float64(k)
			if p < minMs || p <= 2*tolMs {
				break
			}
			cs = append(cs, p)
		}
	}
	slices.Sort(cs)
	slices.Reverse(cs)
	eps := tolMs / 10
	merged := cs[:0]
	for i := 0; i < len(cs); {
		j, sum := i, 0.0
		for ; j < len(cs) && cs[i]-cs[j] <= eps; j++ {
			sum += cs[j]
		}
		merged = append(merged, sum/float64(j-i))
		i = j
	}
	return merged
}

// fitGrid fits the grid t = a + p*n to the sorted instants ts, starting from the candidate
// period p0 and the instant ts[anchor], and returns it with the count k of instants within tolMs
// of it. It gives up (ok false) once more than maxRejects instants are off the grid, since the
// fit can then no longer reach the fraction asked for.
func fitGrid(ts []float64, anchor int, p0, tolMs float64, maxRejects int) (a, p float64, k int, ok bool) {
	// Times are taken from the anchor and n counted from it, so that the sums stay small.
	t0 := ts[anchor]
	var m, sn, sx, snn, snx float64
	add := func(n, x float64) {
		m++
		sn += n
		sx += x
		snn += n * n
		snx += n * x
	}
	refit := func() {
		// With every n equal (one instant, or several on one line) the slope is unknown: keep p.
		if den := m*snn - sn*sn; den > 0 {
			p = (m*snx - sn*sx) / den
		}
		a = (sx - p*sn) / m
	}
	on := func(x, a, p float64) (n float64, hit bool) {
		n = math.Round((x - a) / p)
		return n, math.Abs(x-(a+n*p)) <= tolMs
	}

	p = p0
	add(0, 0)
	rejects := 0
	for _, t := range ts[anchor+1:] {
		if n, hit := on(t-t0, a, p); hit {
			add(n, t-t0)
			refit()
			continue
		}
		if rejects++; rejects > maxRejects {
			return 0, 0, 0, false
		}
	}
	// The instants before the anchor are judged against the grid the later ones found.
	fa, fp := a, p
	for _, t := range ts[:anchor] {
		if n, hit := on(t-t0, fa, fp); hit {
			add(n, t-t0)
			continue
		}
		if rejects++; rejects > maxRejects {
			return 0, 0, 0, false
		}
	}
	refit()
	return a + t0, p, int(m), true
}
