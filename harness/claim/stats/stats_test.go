package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3} // unsorted on purpose: Quantile sorts a copy
	assert.Equal(t, 3.0, Quantile(xs, 0.5))
	assert.Equal(t, 1.0, Quantile(xs, 0))
	assert.Equal(t, 5.0, Quantile(xs, 1))
	assert.InDelta(t, 4.8, Quantile(xs, 0.95), 1e-9)
	assert.Equal(t, []float64{5, 1, 4, 2, 3}, xs, "input must not be reordered")

	assert.Equal(t, 2.5, Quantile([]float64{1, 2, 3, 4}, 0.5), "even count: mean of the middle two")
	assert.Equal(t, 7.0, Quantile([]float64{7}, 0.95))
	assert.True(t, math.IsNaN(Quantile(nil, 0.5)))
	assert.True(t, math.IsNaN(Quantile(xs, 1.5)))
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{490, 480, 500, 591})
	assert.Equal(t, 4, s.N)
	assert.Equal(t, 495.0, s.P50Ms)
	assert.Equal(t, 591.0, s.MaxMs)
	assert.Equal(t, 480.0, s.MinMs)
	assert.Equal(t, 515.25, s.MeanMs)
	assert.Equal(t, "p50 495.0 ms, p95 577.3, max 591.0 (n=4)", s.String())

	empty := Summarize(nil)
	assert.Equal(t, Summary{}, empty)
}

func TestMean(t *testing.T) {
	// Bimodal, as a phase under a CPU quota is: the mean weighs both modes, the median picks one.
	xs := []float64{3, 3, 3, 95, 95}
	assert.Equal(t, 39.8, Mean(xs))
	assert.Equal(t, 3.0, Quantile(xs, 0.5))
	assert.True(t, math.IsNaN(Mean(nil)), "Mean(nil) = %v; want NaN", Mean(nil))
}

func TestProportion(t *testing.T) {
	assert.Equal(t, "20/20", Proportion{20, 20}.String())
	assert.True(t, Proportion{20, 20}.All())
	assert.False(t, Proportion{19, 20}.All())
	assert.True(t, Proportion{0, 20}.None())
	assert.False(t, Proportion{0, 0}.All(), "no trials is no evidence")
	assert.False(t, Proportion{0, 0}.None(), "no trials is no evidence")
}

func TestMedianCI(t *testing.T) {
	xs := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	iv := MedianCI(xs, Confidence)
	assert.Equal(t, 20, iv.N)
	assert.Equal(t, 10.5, iv.Median)
	// For 20 samples the distribution-free 95% interval of the median is the 6th to the 15th
	// smallest (P = 0.959).
	assert.Equal(t, 6.0, iv.Lo)
	assert.Equal(t, 15.0, iv.Hi)
	assert.True(t, iv.Finite)
	assert.GreaterOrEqual(t, iv.Confidence, Confidence)
	assert.Equal(t, 9.0, xs[0], "MedianCI sorted its argument")
	assert.Equal(t, "10.50 [6.00, 15.00]", iv.String())

	few := MedianCI([]float64{1, 2, 3}, Confidence)
	assert.False(t, few.Finite, "3 samples give a finite 95%% interval: %v", few)
	assert.Contains(t, few.Warning, "need")
	assert.Zero(t, few.Lo, "an open interval is written with Lo 0")
	assert.False(t, MedianCI(nil, Confidence).Finite)
}

func TestWilson(t *testing.T) {
	cases := []struct {
		p      Proportion
		lo, hi float64
	}{
		// Reference values of the Wilson score interval at 95%.
		{Proportion{K: 0, N: 8}, 0, 0.3244},
		{Proportion{K: 8, N: 8}, 0.6756, 1},
		{Proportion{K: 4, N: 20}, 0.0807, 0.4160},
		{Proportion{K: 0, N: 0}, 0, 1},
	}
	for _, c := range cases {
		lo, hi := c.p.Wilson()
		assert.InDelta(t, c.lo, lo, 5e-4, "Wilson(%s) lo = %.4f; want %.4f", c.p, lo, c.lo)
		assert.InDelta(t, c.hi, hi, 5e-4, "Wilson(%s) hi = %.4f; want %.4f", c.p, hi, c.hi)
	}
}

func ratioOfMeans(m [][]float64) float64 { return m[0][0] / m[1][0] }

func TestMeansCIBracketsTheRatioOfMeans(t *testing.T) {
	// Two modes, as a throttled phase has: 2 ms or 22 ms, against a steady 100 ms.
	short := []float64{2, 2, 22, 2, 22, 2, 2, 22, 2, 2, 22, 2, 2, 2, 22, 2, 22, 2, 2, 2}
	long := []float64{95, 100, 105, 98, 102, 101, 99, 97, 103, 100, 96, 104, 100, 99, 101, 100, 98, 102, 100, 100}
	e, err := MeansCI([]Paired{{long}, {short}}, ratioOfMeans, Confidence)
	require.NoError(t, err)
	want := Mean(long) / Mean(short)
	assert.InDelta(t, want, e.Value, 1e-9, "value = %v; want the ratio of the means %v", e.Value, want)
	assert.True(t, e.Finite, "finite = false; want true over %d trials", e.N)
	assert.Less(t, e.Lo, e.Value, "lo = %v; want below the value %v", e.Lo, e.Value)
	assert.Greater(t, e.Hi, e.Value, "hi = %v; want above the value %v", e.Hi, e.Value)
	again, err := MeansCI([]Paired{{long}, {short}}, ratioOfMeans, Confidence)
	require.NoError(t, err)
	assert.Equal(t, e, again, "a second run on the same figures = %v; want the same interval %v (fixed seed)", again, e)
}

func TestMeansCIKeepsPairs(t *testing.T) {
	// b is a times 10 trial by trial: resampling trials together keeps the ratio at 10 in every
	// resample, so the interval has no width; resampled apart it would.
	a := []float64{1, 5, 2, 9, 3, 7, 4, 8, 6, 10}
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = 10 * x
	}
	e, err := MeansCI([]Paired{{b, a}}, func(m [][]float64) float64 { return m[0][0] / m[0][1] }, Confidence)
	require.NoError(t, err)
	assert.InDelta(t, 10, e.Lo, 1e-9, "lo = %v; want 10 (paired)", e.Lo)
	assert.InDelta(t, 10, e.Hi, 1e-9, "hi = %v; want 10 (paired)", e.Hi)
}

func TestMeansCIWithTooFewTrialsIsOpen(t *testing.T) {
	e, err := MeansCI([]Paired{{{1, 2, 3, 4}}, {{1, 2, 3, 4, 5}}}, ratioOfMeans, Confidence)
	require.NoError(t, err)
	assert.False(t, e.Finite, "finite = true; want false with %d trials in a group", e.N)
	assert.Equal(t, 4, e.N)
	assert.Equal(t, "0.83 (interval open)", e.String())
}

func TestMeansCIRefusesUnpairedColumns(t *testing.T) {
	_, err := MeansCI([]Paired{{{1, 2, 3, 4, 5}, {1, 2, 3}}}, ratioOfMeans, Confidence)
	assert.ErrorContains(t, err, "want paired columns")
	_, err = MeansCI(nil, ratioOfMeans, Confidence)
	assert.Error(t, err)
}

func TestMeansCIOfAZeroDenominatorIsOpen(t *testing.T) {
	e, err := MeansCI([]Paired{{{1, 1, 1, 1, 1}}, {{0, 0, 0, 0, 0}}}, ratioOfMeans, Confidence)
	require.NoError(t, err)
	assert.False(t, e.Finite, "finite = true; want false for a ratio over zero")
	assert.Zero(t, e.Value, "value = %v; want 0 where the figure is not a number", e.Value)
}
