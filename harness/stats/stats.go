// Package stats summarises samples the way the articles report them: p50, p95 and max of
// latencies in milliseconds, and proportions as k/n. It knows nothing of probes or claims.
package stats

import (
	"fmt"
	"math"
	"slices"
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
	N     int     `json:"n"`
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	MaxMs float64 `json:"maxMs"`
	MinMs float64 `json:"minMs"`
}

// Summarize returns the summary of a sample of milliseconds. An empty sample gives the zero
// Summary (N = 0), not NaNs, so that it can be written as JSON; check N before reading it.
func Summarize(ms []float64) Summary {
	if len(ms) == 0 {
		return Summary{}
	}
	return Summary{
		N:     len(ms),
		P50Ms: Quantile(ms, 0.50),
		P95Ms: Quantile(ms, 0.95),
		MaxMs: slices.Max(ms),
		MinMs: slices.Min(ms),
	}
}

// String prints the summary as the article does: "p50 4.0 ms, p95 12.0, max 37.0 (n=20)".
func (s Summary) String() string {
	return fmt.Sprintf("p50 %.1f ms, p95 %.1f, max %.1f (n=%d)", s.P50Ms, s.P95Ms, s.MaxMs, s.N)
}

// Proportion is k of n trials, as in "waited 20/20".
type Proportion struct {
	K int `json:"k"`
	N int `json:"n"`
}

// String prints "k/n".
func (p Proportion) String() string { return fmt.Sprintf("%d/%d", p.K, p.N) }

// All reports whether every one of at least one trial counted.
func (p Proportion) All() bool { return p.N > 0 && p.K == p.N }

// None reports whether at least one trial was seen and none counted.
func (p Proportion) None() bool { return p.N > 0 && p.K == 0 }
