package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Estimate is a figure computed from the means of samples, with its bootstrap percentile
// interval: the figure recomputed over resamples of the trials, its (1-Confidence)/2 and
// (1+Confidence)/2 quantiles the bounds.
//
// It is for times under a CPU quota, where a phase holds a whole number of throttles: a sample's
// median sits in one mode or jumps to the next, and its interval straddles both when the modes
// are near even, while the mean moves smoothly with the share of throttled trials, and its
// interval narrows as trials are added.
type Estimate struct {
	Value      float64 `json:"value"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence" jsonschema:"exclusiveMaximum=1,exclusiveMinimum=0"`
	// N is the trials in the smallest group.
	N int `json:"n" jsonschema:"minimum=0"`
	// Method says how the interval was made.
	Method string `json:"method"`
	// Finite is false when a group has fewer than MinBootstrapTrials trials, or the figure
	// is not a number (a mean of zero under a division; Value is 0 then).
	Finite bool `json:"finite"`
}

// MinBootstrapTrials is the fewest trials per group a bootstrap interval is made from: with fewer,
// resamples repeat too few values for their quantiles to mean anything.
const MinBootstrapTrials = 5

// bootstrapResamples is how many resamples an interval is made from; 4,000 puts the bounds of a
// 95% interval within a few tenths of a percent of where more would.
const bootstrapResamples = 4000

// Paired is one group of trials for MeansCI: columns of figures of the same trials (the i-th of
// each column comes from trial i), resampled together, so that a comparison within a trial
// (one environment's first and warm invocations) keeps its pairing.
type Paired [][]float64

// MeansCI computes f of the groups' column means, and its bootstrap interval at level
// confidence: each resample draws each group's trials with replacement, independently of the
// other groups. The draws come from a fixed seed, so the same figures give the same interval.
// f gets means[g][c], the mean of column c of group g.
func MeansCI(groups []Paired, f func(means [][]float64) float64, confidence float64) (Estimate, error) {
	e := Estimate{Confidence: confidence, Method: fmt.Sprintf("mean, percentile bootstrap over %d resamples of the trials", bootstrapResamples)}
	e.N = math.MaxInt
	for g, cols := range groups {
		if len(cols) == 0 {
			return e, fmt.Errorf("stats: group %d has no columns", g)
		}
		for c, col := range cols {
			if len(col) != len(cols[0]) {
				return e, fmt.Errorf("stats: group %d: column %d has %d trials, column 0 has %d; want paired columns", g, c, len(col), len(cols[0]))
			}
		}
		e.N = min(e.N, len(cols[0]))
	}
	if len(groups) == 0 {
		return e, fmt.Errorf("stats: no groups")
	}
	means := make([][]float64, len(groups))
	for g, cols := range groups {
		means[g] = make([]float64, len(cols))
		for c, col := range cols {
			means[g][c] = Mean(col)
		}
	}
	e.Value = f(means)
	if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
		e.Value = 0 // (JSON has no infinity; Finite says there is no figure)
		return e, nil
	}
	if e.N < MinBootstrapTrials {
		return e, nil
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draws := make([]float64, 0, bootstrapResamples)
	for range bootstrapResamples {
		for g, cols := range groups {
			n := len(cols[0])
			sums := make([]float64, len(cols))
			for range n {
				i := rng.IntN(n)
				for c, col := range cols {
					sums[c] += col[i]
				}
			}
			for c := range cols {
				means[g][c] = sums[c] / float64(n)
			}
		}
		if v := f(means); !math.IsNaN(v) && !math.IsInf(v, 0) {
			draws = append(draws, v)
		}
	}
	if len(draws) < bootstrapResamples/2 {
		return e, nil
	}
	slices.Sort(draws)
	e.Lo, e.Hi = Quantile(draws, (1-confidence)/2), Quantile(draws, (1+confidence)/2)
	e.Finite = true
	return e, nil
}

// String prints "5.30 (4.90 to 6.10)", or "5.30 (interval open)".
func (e Estimate) String() string {
	if !e.Finite {
		return fmt.Sprintf("%.2f (interval open)", e.Value)
	}
	return fmt.Sprintf("%.2f (%.2f to %.2f)", e.Value, e.Lo, e.Hi)
}
