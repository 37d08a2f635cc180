// Package stats summarises samples the way the articles report them: p50, p95 and max of
// latencies in milliseconds, and proportions as k/n; and gives the intervals the claims are
// decided on (medians, bootstrap estimates from means) and the grid a set of instants falls on.
// It knows nothing of probes or claims.
package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Quantile returns the q-quantile (0 <= q <= 1) of xs by linear interpolation between closest
// ranks (Hyndman and Fan's type 7, numpy's default), so p50 of an even count is the mean of the
// middle two. It returns NaN for no samples; xs is not modified.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || q < 0 || q > 1 || math.IsNaN(q) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := q * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo == len(s)-1 {
		return s[lo]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Summary is a latency sample as the articles report it, in milliseconds.
type Summary struct {
	N     int     `json:"n" jsonschema:"minimum=0"`
	P50Ms float64 `json:"p50Ms" jsonschema:"minimum=0"`
	P95Ms float64 `json:"p95Ms" jsonschema:"minimum=0"`
	MaxMs float64 `json:"maxMs" jsonschema:"minimum=0"`
	MinMs float64 `json:"minMs" jsonschema:"minimum=0"`
	// MeanMs is the mean: the expected time where a sample is bimodal, as phases under a CPU
	// quota are (a throttle falls inside a phase or it does not), and a quantile picks a mode.
	MeanMs float64 `json:"meanMs" jsonschema:"minimum=0"`
}

// Summarize returns the summary of a sample of milliseconds. An empty sample gives the zero
// Summary (N = 0), not NaNs, so that it can be written as JSON; check N before reading it.
func Summarize(ms []float64) Summary {
	if len(ms) == 0 {
		return Summary{}
	}
	return Summary{
		N:      len(ms),
		P50Ms:  Quantile(ms, 0.50),
		P95Ms:  Quantile(ms, 0.95),
		MaxMs:  slices.Max(ms),
		MinMs:  slices.Min(ms),
		MeanMs: Mean(ms),
	}
}

// Mean is the arithmetic mean of xs, NaN for no samples.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// String prints the summary as the article does: "p50 4.0 ms, p95 12.0, max 37.0 (n=20)".
func (s Summary) String() string {
	return fmt.Sprintf("p50 %.1f ms, p95 %.1f, max %.1f (n=%d)", s.P50Ms, s.P95Ms, s.MaxMs, s.N)
}

// Proportion is k of n trials, as in "waited 20/20".
type Proportion struct {
	K int `json:"k" jsonschema:"minimum=0"`
	N int `json:"n" jsonschema:"minimum=0"`
}

// String prints "k/n".
func (p Proportion) String() string { return fmt.Sprintf("%d/%d", p.K, p.N) }

// All reports whether every one of at least one trial counted.
func (p Proportion) All() bool { return p.N > 0 && p.K == p.N }

// None reports whether at least one trial was seen and none counted.
func (p Proportion) None() bool { return p.N > 0 && p.K == 0 }

// Wilson is the proportion's Wilson score interval at 95%: unlike k/n plus or minus a normal
// margin it stays inside [0, 1] and is not empty at 0/n or n/n, the shares routing claims see.
func (p Proportion) Wilson() (lo, hi float64) {
	if p.N == 0 {
		return 0, 1
	}
	const z = 1.959964 // the normal quantile of 97.5%, for two-sided 95%
	n, share := float64(p.N), float64(p.K)/float64(p.N)
	center := (share + z*z/(2*n)) / (1 + z*z/n)
	margin := z / (1 + z*z/n) * math.Sqrt(share*(1-share)/n+z*z/(4*n*n))
	return math.Max(0, center-margin), math.Min(1, center+margin)
}

// Confidence is the confidence level of every interval these experiments report.
const Confidence = 0.95

// Interval is a sample's median with its distribution-free confidence interval: the order
// statistics that bracket the median with at least Confidence, as x/perf's benchmath computes it
// (AssumeNothing), so that no distribution is assumed of times that are bimodal, as phases under a
// CPU quota are. Too few samples leave the interval open: Finite is false, and Warning says how
// many it needs.
type Interval struct {
	N          int     `json:"n" jsonschema:"minimum=0"`
	Median     float64 `json:"median"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	Finite     bool    `json:"finite"`
	Warning    string  `json:"warning,omitempty"`
}

// MedianCI is the median of xs with its interval at level confidence; xs is not modified. An
// interval that is not finite is written with Lo and Hi at 0 (JSON has no infinity).
func MedianCI(xs []float64, confidence float64) Interval {
	if len(xs) == 0 {
		return Interval{Confidence: confidence, Warning: "no samples"}
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds), confidence)
	iv := Interval{N: len(xs), Median: s.Center, Lo: s.Lo, Hi: s.Hi, Confidence: s.Confidence}
	iv.Finite = !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
	if !iv.Finite {
		iv.Lo, iv.Hi = 0, 0
	}
	for _, w := range s.Warnings {
		iv.Warning = w.Error()
	}
	return iv
}

// Estimate is the median as an Estimate, for the checks that take one (verdict.EstimateAtLeast):
// not finite where the interval is open.
func (iv Interval) Estimate() Estimate {
	return Estimate{Value: iv.Median, Lo: iv.Lo, Hi: iv.Hi, Confidence: iv.Confidence, N: iv.N, Finite: iv.Finite,
		Method: "median, distribution-free order-statistic interval (x/perf benchmath)"}
}

// String prints "5.30 [4.90, 6.10]", or "5.30 [open: need >= 6 samples ...]".
func (iv Interval) String() string {
	if !iv.Finite {
		return fmt.Sprintf("%.2f [open: %s]", iv.Median, iv.Warning)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", iv.Median, iv.Lo, iv.Hi)
}

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
