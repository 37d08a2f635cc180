package verdict

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/stats"
)

func TestDecide(t *testing.T) {
	ok := All("waited", stats.Proportion{K: 20, N: 20})
	bad := None("waited", stats.Proportion{K: 3, N: 20})

	v := Decide(stats.Proportion{K: 20, N: 20}, ok)
	assert.Equal(t, Pass, v.Outcome)
	assert.Equal(t, "over 20/20 evidential trials: waited = 20/20 (want 20/20)", v.Reason)

	v = Decide(stats.Proportion{K: 20, N: 20}, ok, bad)
	assert.Equal(t, Fail, v.Outcome)
	assert.Equal(t, "waited = 3/20; want 0/20", v.Reason)

	v = Decide(stats.Proportion{K: 9, N: 20}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "fewer than half evidential")
	v = Decide(stats.Proportion{K: 0, N: 0}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "no trials")
}

// TestAnInconclusiveVerdictNamesWhyTheRestWereNotEvidence: where too few trials were evidence,
// the reason says why the others were not, as the claim counted them; a verdict the evidence
// decides does not carry them, nor one with no reasons given.
func TestAnInconclusiveVerdictNamesWhyTheRestWereNotEvidence(t *testing.T) {
	ok := All("kept", stats.Proportion{K: 1, N: 1})
	const why = "2 the first REPORT has no Init Duration: not a cold start"
	v := DecideWith(stats.Proportion{K: 1, N: 3}, why, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "verdict with 1/3 evidence")
	assert.Equal(t, "only 1/3 trials were evidence; at least half are needed; not evidence: "+why, v.Reason,
		"reason = %q; want how many were evidence, then why the rest were not", v.Reason)

	v = DecideWith(stats.Proportion{K: 2, N: 3}, "1 an invocation did not answer with the item", ok)
	assert.Equal(t, Pass, v.Outcome, "verdict with 2/3 evidence")
	assert.NotContains(t, v.Reason, "not evidence", "reason = %q; want the checks alone where the evidence sufficed", v.Reason)

	assert.Equal(t, Decide(stats.Proportion{K: 1, N: 3}, ok), DecideWith(stats.Proportion{K: 1, N: 3}, "", ok), "DecideWith without reasons = Decide")
}

func TestChecks(t *testing.T) {
	c := Within("ping p50 / (spin - 15 ms)", 490, 485, 0.9, 1.2, "spin 500 ms")
	assert.True(t, c.Pass)
	assert.Equal(t, "ping p50 / (spin - 15 ms) = 1.01; want within [0.90, 1.20] (490.0 ms / 485.0 ms, spin 500 ms)", c.String())
	assert.False(t, Within("r", 600, 485, 0.9, 1.2, "").Pass)
	assert.False(t, Within("r", 400, 485, 0.9, 1.2, "").Pass)
	assert.False(t, Within("r", 1, 0, 0, 2, "").Pass, "a zero reference proves nothing")

	assert.True(t, AtMost("p50", 0.4, 1, "ms", "").Pass)
	assert.False(t, AtMost("p50", 1.01, 1, "ms", "").Pass)

	assert.True(t, Minority("w", stats.Proportion{K: 1, N: 8}).Pass)
	assert.False(t, Minority("w", stats.Proportion{K: 4, N: 8}).Pass, "half is not fewer than half")
	assert.Equal(t, "fewer than 4/8", Minority("w", stats.Proportion{K: 4, N: 8}).Want)
	assert.Equal(t, "fewer than 5/9", Minority("w", stats.Proportion{K: 4, N: 9}).Want)
	assert.True(t, Minority("w", stats.Proportion{K: 4, N: 9}).Pass)
	assert.False(t, Minority("w", stats.Proportion{}).Pass, "no trials is no evidence")
	assert.False(t, All("w", stats.Proportion{K: 19, N: 20}).Pass)
	assert.False(t, None("w", stats.Proportion{K: 1, N: 20}).Pass)
}

func TestLimitsAndRatios(t *testing.T) {
	assert.True(t, AtLeast("split", 2.0, 1.6, "", "").Pass)
	assert.False(t, AtLeast("split", 1.2, 1.6, "", "").Pass)
	assert.Equal(t, "1.20", AtLeast("split", 1.2, 1.6, "", "").Got, "a ratio has no unit")
	assert.Equal(t, "at least 1.60", AtLeast("split", 1.2, 1.6, "", "").Want)

	c := RatioAtLeast("read with load / alone", 40, 0.25, 10, "alone")
	assert.True(t, c.Pass, c.String())
	assert.Equal(t, "160.00", c.Got)
	assert.Contains(t, c.Note, "40.00 ms / 0.25 ms, alone")
	assert.False(t, RatioAtLeast("r", 40, 0, 10, "alone").Pass, "a zero reference must not pass as an infinite ratio")
	assert.True(t, RatioAtMost("r", 1, 2, 3, "idle").Pass)
	assert.False(t, RatioAtMost("r", 7, 2, 3, "idle").Pass)
	assert.False(t, RatioAtMost("r", 0, 0, 3, "idle").Pass, "0/0 is no evidence")
}

func TestDecideWithAnOpenCheck(t *testing.T) {
	ok := All("waited", stats.Proportion{K: 20, N: 20})
	open := Check{Name: "ratio", Got: "10.00 (8.00 to 12.00)", Want: "at least 10.00", Undecided: true}
	bad := None("waited", stats.Proportion{K: 3, N: 20})

	v := Decide(stats.Proportion{K: 20, N: 20}, ok, open)
	assert.Equal(t, Inconclusive, v.Outcome)
	assert.Contains(t, v.Reason, "left open by the evidence")
	assert.Contains(t, v.Reason, "ratio = 10.00 (8.00 to 12.00); want at least 10.00")

	v = Decide(stats.Proportion{K: 20, N: 20}, ok, open, bad)
	assert.Equal(t, Fail, v.Outcome, "a check that fails decides, whatever else is open")
	assert.NotContains(t, v.Reason, "ratio")
}

func TestEstimateChecksDecideOnTheWholeInterval(t *testing.T) {
	est := func(v, lo, hi float64) stats.Estimate {
		return stats.Estimate{Value: v, Lo: lo, Hi: hi, Confidence: 0.95, N: 20, Method: "test", Finite: true}
	}
	for _, tc := range []struct {
		name            string
		check           Check
		pass, undecided bool
	}{
		{"at least, interval above", EstimateAtLeast("r", est(8, 6, 10), 5, "a / b"), true, false},
		{"at least, interval straddles", EstimateAtLeast("r", est(6, 4, 8), 5, "a / b"), false, true},
		{"at least, interval below", EstimateAtLeast("r", est(3, 2, 4), 5, "a / b"), false, false},
		{"at least, interval open", EstimateAtLeast("r", stats.Estimate{Value: 8}, 5, "a / b"), false, true},
		{"at most, interval below", EstimateAtMost("r", est(0.3, 0.2, 0.4), 1, "a / b"), true, false},
		{"at most, interval straddles", EstimateAtMost("r", est(0.9, 0.7, 1.1), 1, "a / b"), false, true},
		{"at most, interval above", EstimateAtMost("r", est(1.5, 1.2, 1.8), 1, "a / b"), false, false},
	} {
		assert.Equal(t, tc.pass, tc.check.Pass, "%s: pass = %v; want %v (%s)", tc.name, tc.check.Pass, tc.pass, tc.check)
		assert.Equal(t, tc.undecided, tc.check.Undecided, "%s: undecided = %v; want %v (%s)", tc.name, tc.check.Undecided, tc.undecided, tc.check)
	}
}

func TestInBand(t *testing.T) {
	c := InBand("share", 0.07, 0.0615, 0.0832, "", "7.2% of one CPU")
	assert.True(t, c.Pass, "%s", c)
	assert.Equal(t, "share = 0.07; want within [0.06, 0.08] (7.2% of one CPU)", c.String())
	for _, got := range []float64{0.05, 0.09, math.NaN()} {
		assert.False(t, InBand("share", got, 0.0615, 0.0832, "", "").Pass, "InBand(%v) passes; want it to fail", got)
	}
	assert.Equal(t, "period = 20.00 ms; want within [18.00 ms, 22.00 ms]", InBand("period", 20, 18, 22, "ms", "").String())
}

func TestSomeAndExactly(t *testing.T) {
	assert.True(t, Some("ignored", stats.Proportion{K: 1, N: 4}).Pass)
	assert.False(t, Some("ignored", stats.Proportion{K: 0, N: 4}).Pass)
	assert.False(t, Some("ignored", stats.Proportion{}).Pass, "no trials is no case")
	assert.Equal(t, "ignored = 1/4; want at least 1/4", Some("ignored", stats.Proportion{K: 1, N: 4}).String())

	assert.True(t, Exactly("threads", 1024, 1024, "").Pass)
	assert.False(t, Exactly("threads", 1023, 1024, "").Pass)
	assert.False(t, Exactly("threads", 2000, 1024, "").Pass)
	assert.Equal(t, "threads = 2000; want exactly 1024 (from /proc)", Exactly("threads", 2000, 1024, "from /proc").String())
}
