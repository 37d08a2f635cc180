package verdict

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/stats"
)

func TestDecide(t *testing.T) {
	ok := All("waited", stats.Proportion{K: 20, N: 20})
	bad := None("waited", stats.Proportion{K: 3, N: 20})

	v := Decide(stats.Proportion{K: 20, N: 20}, ok)
	assert.Equal(t, Pass, v.Outcome)
	assert.Equal(t, "over 20/20 evidential trials: waited = 20/20 (want all of them (20/20))", v.Reason)

	v = Decide(stats.Proportion{K: 20, N: 20}, ok, bad)
	assert.Equal(t, Fail, v.Outcome)
	assert.Equal(t, "waited = 3/20; want none of them (0/20)", v.Reason)

	v = Decide(stats.Proportion{K: 9, N: 20}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "fewer than half evidential")
	v = Decide(stats.Proportion{K: 0, N: 0}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "no trials")
}

// TestAChecksWantStatesItsRuleWithoutEvidence: with no trial, All and None fail and their want
// states the rule rather than echo the empty count (W6 read "= 0/0; want 0/0" against an
// endpoint of one environment).
func TestAChecksWantStatesItsRuleWithoutEvidence(t *testing.T) {
	for _, c := range []Check{All("away", stats.Proportion{}), None("waited", stats.Proportion{})} {
		assert.False(t, c.Pass, "%s passed; want a check of no trial to fail", c)
		assert.NotContains(t, c.String(), "want 0/0", "check = %q; want the rule, not the empty count", c)
		assert.Contains(t, c.String(), "of at least one", "check = %q", c)
	}
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
	assert.Equal(t, "ignored = 0/0; want at least one of at least one", Some("ignored", stats.Proportion{}).String(), "with no trial, the want states the rule, not a count of none")

	assert.True(t, Exactly("threads", 1024, 1024, "").Pass)
	assert.False(t, Exactly("threads", 1023, 1024, "").Pass)
	assert.False(t, Exactly("threads", 2000, 1024, "").Pass)
	assert.Equal(t, "threads = 2000; want exactly 1024 (from /proc)", Exactly("threads", 2000, 1024, "from /proc").String())
}

// TestChecksRecordTheirBound checks each constructor's Bound (figure, limit, side, unit) and the
// sign of its margin inside the bound, on it and outside; and that the checks with no distance
// to measure (all or none of the trials, an exact count, a figure that is not a number, an open
// interval, a reference that is not positive) have none.
func TestChecksRecordTheirBound(t *testing.T) {
	est := func(lo, hi float64) stats.Estimate {
		return stats.Estimate{Value: (lo + hi) / 2, Lo: lo, Hi: hi, Confidence: 0.95, N: 20, Method: "test", Finite: true}
	}
	const inside, on, outside = 1, 0, -1
	for _, tc := range []struct {
		name  string
		check Check
		want  *Bound // nil: no Bound
		sign  int
	}{
		{"AtLeast inside", AtLeast("r", 2, 1.6, "", ""), &Bound{Figure: 2, Limit: 1.6, Side: BoundAtLeast}, inside},
		{"AtLeast on", AtLeast("r", 1.6, 1.6, "", ""), &Bound{Figure: 1.6, Limit: 1.6, Side: BoundAtLeast}, on},
		{"AtLeast outside", AtLeast("r", 1.2, 1.6, "", ""), &Bound{Figure: 1.2, Limit: 1.6, Side: BoundAtLeast}, outside},
		{"AtLeast NaN", AtLeast("r", math.NaN(), 1.6, "", ""), nil, 0},
		{"AtMost inside", AtMost("p50", 0.5, 1, "ms", ""), &Bound{Figure: 0.5, Limit: 1, Side: BoundAtMost, Unit: "ms"}, inside},
		{"AtMost on", AtMost("p50", 1, 1, "ms", ""), &Bound{Figure: 1, Limit: 1, Side: BoundAtMost, Unit: "ms"}, on},
		{"AtMost outside", AtMost("p50", 1.5, 1, "ms", ""), &Bound{Figure: 1.5, Limit: 1, Side: BoundAtMost, Unit: "ms"}, outside},
		{"AtMost infinite", AtMost("p50", math.Inf(1), 1, "ms", ""), nil, 0},
		{"RatioAtLeast inside", RatioAtLeast("r", 40, 2, 10, "alone"), &Bound{Figure: 20, Limit: 10, Side: BoundAtLeast}, inside},
		{"RatioAtLeast on", RatioAtLeast("r", 20, 2, 10, "alone"), &Bound{Figure: 10, Limit: 10, Side: BoundAtLeast}, on},
		{"RatioAtLeast outside", RatioAtLeast("r", 10, 2, 10, "alone"), &Bound{Figure: 5, Limit: 10, Side: BoundAtLeast}, outside},
		{"RatioAtLeast zero reference", RatioAtLeast("r", 40, 0, 10, "alone"), nil, 0},
		{"RatioAtMost inside", RatioAtMost("r", 2, 2, 3, "idle"), &Bound{Figure: 1, Limit: 3, Side: BoundAtMost}, inside},
		{"RatioAtMost on", RatioAtMost("r", 6, 2, 3, "idle"), &Bound{Figure: 3, Limit: 3, Side: BoundAtMost}, on},
		{"RatioAtMost outside", RatioAtMost("r", 8, 2, 3, "idle"), &Bound{Figure: 4, Limit: 3, Side: BoundAtMost}, outside},
		{"RatioAtMost negative reference", RatioAtMost("r", 1, -2, 3, "idle"), nil, 0},
		{"EstimateAtLeast inside", EstimateAtLeast("r", est(7, 9), 5, "a / b"), &Bound{Figure: 7, Limit: 5, Side: BoundAtLeast}, inside},
		{"EstimateAtLeast on", EstimateAtLeast("r", est(5, 9), 5, "a / b"), &Bound{Figure: 5, Limit: 5, Side: BoundAtLeast}, on},
		{"EstimateAtLeast outside", EstimateAtLeast("r", est(4, 8), 5, "a / b"), &Bound{Figure: 4, Limit: 5, Side: BoundAtLeast}, outside},
		{"EstimateAtLeast open", EstimateAtLeast("r", stats.Estimate{Value: 8}, 5, "a / b"), nil, 0},
		{"EstimateAtMost inside", EstimateAtMost("r", est(0.2, 0.5), 1, "a / b"), &Bound{Figure: 0.5, Limit: 1, Side: BoundAtMost}, inside},
		{"EstimateAtMost on", EstimateAtMost("r", est(0.2, 1), 1, "a / b"), &Bound{Figure: 1, Limit: 1, Side: BoundAtMost}, on},
		{"EstimateAtMost outside", EstimateAtMost("r", est(0.7, 1.25), 1, "a / b"), &Bound{Figure: 1.25, Limit: 1, Side: BoundAtMost}, outside},
		{"EstimateAtMost open", EstimateAtMost("r", stats.Estimate{Value: 0.5}, 1, "a / b"), nil, 0},
		{"InBand inside, nearer lo", InBand("period", 19, 18, 22, "ms", ""), &Bound{Figure: 19, Limit: 18, Side: BoundAtLeast, Unit: "ms"}, inside},
		{"InBand inside, nearer hi", InBand("period", 21, 18, 22, "ms", ""), &Bound{Figure: 21, Limit: 22, Side: BoundAtMost, Unit: "ms"}, inside},
		{"InBand on lo", InBand("period", 18, 18, 22, "ms", ""), &Bound{Figure: 18, Limit: 18, Side: BoundAtLeast, Unit: "ms"}, on},
		{"InBand on hi", InBand("period", 22, 18, 22, "ms", ""), &Bound{Figure: 22, Limit: 22, Side: BoundAtMost, Unit: "ms"}, on},
		{"InBand below", InBand("period", 16, 18, 22, "ms", ""), &Bound{Figure: 16, Limit: 18, Side: BoundAtLeast, Unit: "ms"}, outside},
		{"InBand above", InBand("period", 30, 18, 22, "ms", ""), &Bound{Figure: 30, Limit: 22, Side: BoundAtMost, Unit: "ms"}, outside},
		{"InBand NaN", InBand("period", math.NaN(), 18, 22, "ms", ""), nil, 0},
		{"Within inside, nearer lo", Within("r", 100, 100, 0.5, 2, "ref"), &Bound{Figure: 1, Limit: 0.5, Side: BoundAtLeast}, inside},
		{"Within inside, nearer hi", Within("r", 150, 100, 0.5, 2, "ref"), &Bound{Figure: 1.5, Limit: 2, Side: BoundAtMost}, inside},
		{"Within on hi", Within("r", 200, 100, 0.5, 2, "ref"), &Bound{Figure: 2, Limit: 2, Side: BoundAtMost}, on},
		{"Within below", Within("r", 25, 100, 0.5, 2, "ref"), &Bound{Figure: 0.25, Limit: 0.5, Side: BoundAtLeast}, outside},
		{"Within above", Within("r", 300, 100, 0.5, 2, "ref"), &Bound{Figure: 3, Limit: 2, Side: BoundAtMost}, outside},
		{"Within zero reference", Within("r", 1, 0, 0, 2, "ref"), nil, 0},
		{"Within from 0, near 0: bounded above only", Within("r", 1, 500, 0, 0.1, "spin"), &Bound{Figure: 0.002, Limit: 0.1, Side: BoundAtMost}, inside},
		{"InBand from 0, near 0: bounded above only", InBand("share", 1, 0, 20, "%", ""), &Bound{Figure: 1, Limit: 20, Side: BoundAtMost, Unit: "%"}, inside},
		{"Minority inside", Minority("w", stats.Proportion{K: 1, N: 8}), &Bound{Figure: 1, Limit: 3, Side: BoundAtMost, Unit: "trials"}, inside},
		{"Minority on", Minority("w", stats.Proportion{K: 4, N: 9}), &Bound{Figure: 4, Limit: 4, Side: BoundAtMost, Unit: "trials"}, on},
		{"Minority outside", Minority("w", stats.Proportion{K: 4, N: 8}), &Bound{Figure: 4, Limit: 3, Side: BoundAtMost, Unit: "trials"}, outside},
		{"Minority without trials", Minority("w", stats.Proportion{}), nil, 0},
		{"Some inside", Some("ignored", stats.Proportion{K: 3, N: 4}), &Bound{Figure: 3, Limit: 1, Side: BoundAtLeast, Unit: "trials"}, inside},
		{"Some on", Some("ignored", stats.Proportion{K: 1, N: 4}), &Bound{Figure: 1, Limit: 1, Side: BoundAtLeast, Unit: "trials"}, on},
		{"Some outside", Some("ignored", stats.Proportion{K: 0, N: 4}), &Bound{Figure: 0, Limit: 1, Side: BoundAtLeast, Unit: "trials"}, outside},
		{"All", All("waited", stats.Proportion{K: 20, N: 20}), nil, 0},
		{"None", None("waited", stats.Proportion{K: 0, N: 20}), nil, 0},
		{"Exactly", Exactly("threads", 1024, 1024, ""), nil, 0},
	} {
		if tc.want == nil {
			assert.Nil(t, tc.check.Bound, "%s: bound = %+v; want none", tc.name, tc.check.Bound)
			continue
		}
		if !assert.NotNil(t, tc.check.Bound, "%s: bound = nil; want %+v", tc.name, *tc.want) {
			continue
		}
		b := *tc.check.Bound
		assert.InDelta(t, tc.want.Figure, b.Figure, 1e-12, "%s: figure = %v; want %v", tc.name, b.Figure, tc.want.Figure)
		assert.Equal(t, tc.want.Limit, b.Limit, "%s: limit = %v; want %v", tc.name, b.Limit, tc.want.Limit)
		assert.Equal(t, tc.want.Side, b.Side, "%s: side = %q; want %q", tc.name, b.Side, tc.want.Side)
		assert.Equal(t, tc.want.Unit, b.Unit, "%s: unit = %q; want %q", tc.name, b.Unit, tc.want.Unit)
		m := b.Margin()
		var sign int
		switch {
		case m > 0:
			sign = inside
		case m < 0:
			sign = outside
		}
		assert.Equal(t, tc.sign, sign, "%s: margin = %v; want sign %d", tc.name, m, tc.sign)
		if tc.sign != on {
			assert.Equal(t, tc.sign == inside, tc.check.Pass, "%s: pass = %v; want it to agree with margin %v", tc.name, tc.check.Pass, m)
		}
	}
}

// TestBoundMargin checks the margin in the bound's unit and relative to the limit: T2's example,
// an estimate whose interval starts at 7.2 against "at least 5", is 2.2 inside.
func TestBoundMargin(t *testing.T) {
	c := EstimateAtLeast("first Duration / Init", stats.Estimate{Value: 9, Lo: 7.2, Hi: 11, Confidence: 0.95, N: 20, Method: "test", Finite: true}, 5, "a / b")
	require.NotNil(t, c.Bound, "bound = nil; want the interval's lower end at least 5")
	assert.InDelta(t, 2.2, c.Bound.Margin(), 1e-9, "margin = %v; want 2.2", c.Bound.Margin())
	assert.InDelta(t, 0.44, c.Bound.Relative(), 1e-9, "relative = %v; want 2.2/5", c.Bound.Relative())

	b := Bound{Figure: 3, Limit: 4, Side: BoundAtMost, Unit: "ms"}
	assert.Equal(t, 1.0, b.Margin(), "margin = %v; want 1", b.Margin())
	assert.Equal(t, 0.25, b.Relative(), "relative = %v; want 1/4", b.Relative())
	neg := Bound{Figure: -1, Limit: -2, Side: BoundAtLeast}
	assert.Equal(t, 0.5, neg.Relative(), "relative = %v; want 1/|-2|: a negative limit keeps the margin's sign", neg.Relative())
	zero := Bound{Figure: 0.3, Limit: 0, Side: BoundAtLeast}
	assert.Equal(t, 0.3, zero.Relative(), "relative = %v; want the margin itself where the limit is 0", zero.Relative())
	zero.Side = BoundAtMost
	assert.Equal(t, -0.3, zero.Relative(), "relative = %v; want -0.3", zero.Relative())
}

// TestVerdictMarginIsTheTightestCheck checks that a verdict's margin is its check nearest to
// flipping, relative to each limit so that units compare, and that a verdict whose checks have
// no Bound has none.
func TestVerdictMarginIsTheTightestCheck(t *testing.T) {
	all := stats.Proportion{K: 20, N: 20}
	ms := AtMost("p50", 90, 100, "ms", "")                 // 10 ms inside: 0.10 of its limit
	ratio := AtLeast("split", 1.8, 1.5, "", "")            // 0.3 inside: 0.20
	count := Some("ignored", stats.Proportion{K: 3, N: 4}) // 2 trials inside: 2.00
	shareOfNothing := AtLeast("share", 0.05, 0, "", "")    // limit 0: the margin itself, 0.05
	v := Decide(all, All("waited", all), ratio, ms, count)
	c, ok := v.Margin()
	require.True(t, ok, "Margin() found no check with a bound; want %q", ms.Name)
	assert.Equal(t, ms.Name, c.Name, "tightest = %s; want %s (0.10 of its limit, against 0.20 and 2.00)", c, ms)

	v = Decide(all, ms, shareOfNothing, ratio)
	c, ok = v.Margin()
	require.True(t, ok)
	assert.Equal(t, shareOfNothing.Name, c.Name, "tightest = %s; want %s (a limit of 0 compares its margin)", c, shareOfNothing)

	failing := AtMost("p50", 120, 100, "ms", "")
	c, ok = Decide(all, count, failing, ratio).Margin()
	require.True(t, ok)
	assert.Equal(t, failing.Name, c.Name, "tightest = %s; want the check outside its bound", c)

	c, ok = Decide(all, All("waited", all), None("lost", stats.Proportion{N: 20}), Exactly("threads", 4, 4, "")).Margin()
	assert.False(t, ok, "Margin() = %s, true; want false where no check has a bound", c)
	_, ok = Verdict{}.Margin()
	assert.False(t, ok, "Margin() of no checks = true; want false")
}

// TestBoundInJSON checks the field a result records: "bound" with its figure, limit, side and
// unit, and nothing where a check has no Bound, so that readers of claims-result/v2 that do not
// know it see the check as before.
func TestBoundInJSON(t *testing.T) {
	data, err := json.Marshal(AtMost("p50", 90, 100, "ms", ""))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"bound":{"figure":90,"limit":100,"side":"at most","unit":"ms"}`, "JSON = %s; want the bound", data)
	data, err = json.Marshal(AtLeast("split", 1.8, 1.5, "", ""))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"bound":{"figure":1.8,"limit":1.5,"side":"at least"}`, "JSON = %s; want a ratio's bound without a unit", data)
	data, err = json.Marshal(All("waited", stats.Proportion{K: 20, N: 20}))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "bound", "JSON = %s; want no bound", data)
}
