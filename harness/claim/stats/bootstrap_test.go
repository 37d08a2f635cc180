package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
