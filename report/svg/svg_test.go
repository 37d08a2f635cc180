package svg

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTicksAreRound(t *testing.T) {
	assert.Equal(t, []float64{0, 100, 200, 300, 400, 500, 600}, Scale{D0: 0, D1: 600}.Ticks(6))
	assert.Equal(t, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, Scale{D0: 0, D1: 1}.Ticks(5))
	assert.Equal(t, []float64{20, 40, 60}, Scale{D0: 13, D1: 61}.Ticks(3), "ticks start at the first round value inside the domain")
	assert.Equal(t, []float64{5}, Scale{D0: 5, D1: 5}.Ticks(4), "an empty domain has its one value")
}

func TestNiceEndsOnARoundValue(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0.93, 1}, {486, 500}, {1031, 1200}, {0, 1}, {-3, 1}} {
		assert.Equal(t, c.want, Nice(c.in), "Nice(%v)", c.in)
	}
}

func TestScaleMapsTheDomainOntoTheRange(t *testing.T) {
	s := Scale{D0: 0, D1: 200, R0: 50, R1: 450}
	assert.Equal(t, 50.0, s.At(0))
	assert.Equal(t, 250.0, s.At(100))
	assert.Equal(t, 450.0, s.At(200))
	assert.Equal(t, 7.0, Scale{D0: 3, D1: 3, R0: 7, R1: 9}.At(3), "an empty domain maps to the range's start")
}

func TestMarksAreCountableAndTextIsEscaped(t *testing.T) {
	c := New(100, 50, `a "label" <x>`)
	c.Bar(10, 10, -5, 0, CPU, "<tip>") // a negative width is drawn from its other end; no size is drawn as half a unit
	c.Dot(1, 2, 3, Ping, "")
	c.Line(0, 0, 1, 1, Ink, true)
	c.Text(1, 1, Start, "a < b & c")
	out := string(c.HTML())
	assert.Equal(t, 2, strings.Count(out, `class="mark"`), "marks = %d; want the bar and the dot, not the line", strings.Count(out, `class="mark"`))
	assert.Contains(t, out, `x="5" y="10" width="5" height="0.5"`)
	assert.Contains(t, out, "a &lt; b &amp; c")
	assert.Contains(t, out, `aria-label="a &#34;label&#34; &lt;x&gt;"`)
	assert.Contains(t, out, "<title>&lt;tip&gt;</title>")
	assert.NotContains(t, out, "NaN")
}

func TestLegendWidthGrowsWithItsLabel(t *testing.T) {
	assert.Greater(t, LegendWidth("/ping that waited for a /cpu"), LegendWidth("/ping"))
	assert.Greater(t, LegendWidth("WWW"), LegendWidth("www"), "capitals are wider")
	c := New(100, 20, "legend")
	end := c.Legend(10, 15, LegendItem{CPU, "/cpu"}, LegendItem{Ping, "/ping"})
	assert.InDelta(t, 10+LegendWidth("/cpu")+LegendWidth("/ping"), end, 1e-9)
}
