package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
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
	assert.Equal(t, "p50 495.0 ms, p95 577.3, max 591.0 (n=4)", s.String())

	empty := Summarize(nil)
	assert.Equal(t, Summary{}, empty)
}

func TestProportion(t *testing.T) {
	assert.Equal(t, "20/20", Proportion{20, 20}.String())
	assert.True(t, Proportion{20, 20}.All())
	assert.False(t, Proportion{19, 20}.All())
	assert.True(t, Proportion{0, 20}.None())
	assert.False(t, Proportion{0, 0}.All(), "no trials is no evidence")
	assert.False(t, Proportion{0, 0}.None(), "no trials is no evidence")
}
