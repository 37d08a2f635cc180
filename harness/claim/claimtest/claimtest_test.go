package claimtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// recorder notes a failure, and its message, instead of failing the test.
type recorder struct {
	testing.TB
	failed   bool
	failures []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func outcome(pass bool) results.Result {
	p := stats.Proportion{N: 1}
	if !pass {
		p.K = 1
	}
	return results.Result{Claims: []string{"W4"}, Verdict: verdict.Decide(stats.Proportion{K: 1, N: 1}, verdict.None("waited", p))}
}

func TestHoldsFailsOnAFailingClaim(t *testing.T) {
	c := Claim{IDs: []string{"W4"}}
	fake := &recorder{TB: t}
	c.Assert(fake, outcome(false))
	assert.True(t, fake.failed, "Assert(Holds) passed a failing claim")

	ok := &recorder{TB: t}
	c.Assert(ok, outcome(true))
	assert.False(t, ok.failed, "Assert(Holds) failed a claim that holds")
}

// TestAnInconclusiveClaimFailsOnItsVerdictAlone: where the evidence decided nothing, Holds fails
// once, on the verdict and its reason, not on checks that read as failed.
func TestAnInconclusiveClaimFailsOnItsVerdictAlone(t *testing.T) {
	c := Claim{IDs: []string{"W4"}}
	for name, res := range map[string]results.Result{
		"no evidential trial": {Claims: c.IDs, Verdict: verdict.Decide(stats.Proportion{N: 4}, verdict.None("waited", stats.Proportion{}))},
		"a check undecided": {Claims: c.IDs, Verdict: verdict.Verdict{Outcome: verdict.Inconclusive, Reason: "the interval straddles the bound",
			Checks: []verdict.Check{{Name: "ratio", Got: "1.9", Want: "at least 2", Undecided: true}}}},
	} {
		r := &recorder{TB: t}
		c.Assert(r, res)
		if assert.Len(t, r.failures, 1, "%s: failures = %q; want one, the verdict's", name, r.failures) {
			assert.Contains(t, r.failures[0], "verdict for [W4] = inconclusive; want pass", "%s: the failure", name)
		}
	}
}

func TestRefutedFailsWhenTheClaimHolds(t *testing.T) {
	c := Claim{IDs: []string{"W4"}, Expect: Refuted("a reason")}
	fake := &recorder{TB: t}
	c.Assert(fake, outcome(true))
	assert.True(t, fake.failed, "Assert(Refuted) passed a claim that holds")

	ok := &recorder{TB: t}
	c.Assert(ok, outcome(false))
	assert.False(t, ok.failed, "Assert(Refuted) failed a refuted claim")
}

// TestNotBorneOutFailsOnlyWhenTheClaimHolds: a claim asserted not borne out accepts fail and
// inconclusive, and fails on pass.
func TestNotBorneOutFailsOnlyWhenTheClaimHolds(t *testing.T) {
	c := Claim{IDs: []string{"W4"}, Expect: NotBorneOut("a reason")}
	fake := &recorder{TB: t}
	c.Assert(fake, outcome(true))
	assert.True(t, fake.failed, "Assert(NotBorneOut) passed a claim that holds")

	for _, res := range []results.Result{outcome(false), {Claims: []string{"W4"}, Verdict: verdict.Verdict{Outcome: verdict.Inconclusive}}} {
		ok := &recorder{TB: t}
		c.Assert(ok, res)
		assert.False(t, ok.failed, "Assert(NotBorneOut) failed a verdict %s", res.Verdict.Outcome)
	}
	got := NotBorneOut("a reason").recorded()
	assert.Equal(t, &results.Expected{Outcome: verdict.Fail, Why: "a reason", OrInconclusive: true}, got, "recorded")
}

// TestAPlatformThatJudgesTheModelIsAskedForTheArticlesClaim: where the model refutes a claim,
// the test asserts the refutation on the local platform and through the stand-ins, and the
// article's claim on a platform that judges the model (AWS), whose result carries the model's
// prediction.
func TestAPlatformThatJudgesTheModelIsAskedForTheArticlesClaim(t *testing.T) {
	c := Claim{IDs: []string{"T2"}, Expect: Refuted("the model's reason")}
	on := func(mode string, pass bool) results.Result {
		res := outcome(pass)
		res.Mode, res.Claims = mode, c.IDs
		if Judges(mode) {
			res.ModelPrediction = c.Expect.prediction()
		}
		return res
	}
	for _, tc := range []struct {
		mode       string
		pass, fail bool // whether Assert fails a verdict of pass, of fail
	}{
		{results.ModeLocal, true, false},
		{results.ModeLiveStandIn, true, false},
		{results.ModeLive, false, true},
	} {
		for _, pass := range []bool{true, false} {
			r := &recorder{TB: t}
			c.Assert(r, on(tc.mode, pass))
			want := tc.fail
			if pass {
				want = tc.pass
			}
			assert.Equal(t, want, r.failed, "on a %s platform, Assert failed a verdict that the claim holds=%t: %t; want %t", tc.mode, pass, r.failed, want)
		}
	}
	p := c.Expect.prediction()
	assert.Equal(t, &results.Prediction{Outcome: verdict.Fail, Why: "the model's reason"}, p, "the prediction recorded")
	assert.True(t, p.Disagrees(verdict.Pass), "a pass disagrees with a predicted fail")
	assert.False(t, Claim{IDs: []string{"T6"}}.Expect.prediction().Disagrees(verdict.Pass), "a pass agrees with a predicted pass")
	assert.False(t, NotBorneOut("why").prediction().Disagrees(verdict.Inconclusive), "an inconclusive agrees with a prediction of fail or inconclusive")
}

func TestWantsBrokenWantsFailWhereTheClaimHolds(t *testing.T) {
	c := Claim{IDs: []string{"W4"}}
	fake := &recorder{TB: t}
	c.wantsBroken(fake, outcome(false))
	assert.True(t, fake.failed, "wantsBroken passed a result that does not say what was broken")

	broken := outcome(false)
	broken.Broken = "a probe that spins in a worker"
	ok := &recorder{TB: t}
	c.wantsBroken(ok, broken)
	assert.False(t, ok.failed, "wantsBroken failed a broken run that failed")

	stillHolds := outcome(true)
	stillHolds.Broken = "a probe that spins in a worker"
	fake = &recorder{TB: t}
	c.wantsBroken(fake, stillHolds)
	assert.True(t, fake.failed, "wantsBroken passed a claim that held against a broken target")
}

func TestWantsBrokenWantsPassWhereTheClaimIsRefuted(t *testing.T) {
	c := Claim{IDs: []string{"W4"}, Expect: Refuted("a reason")}
	holds := outcome(true)
	holds.Broken = "a pool of one slot"
	ok := &recorder{TB: t}
	c.wantsBroken(ok, holds)
	assert.False(t, ok.failed, "wantsBroken(Refuted) failed a claim that holds against its broken target")

	stillRefuted := outcome(false)
	stillRefuted.Broken = "a pool of one slot"
	fake := &recorder{TB: t}
	c.wantsBroken(fake, stillRefuted)
	assert.True(t, fake.failed, "wantsBroken(Refuted) passed a claim still refuted against its broken target")
}

func TestBrokenSettingsCutTheTrialsOfAClaimThatHolds(t *testing.T) {
	run := settings.Settings{Trials: 20, SpinMs: 500}
	got := BrokenSettings(run, Claim{IDs: []string{"W2"}})
	assert.Equal(t, settings.Settings{Trials: brokenTrials, SpinMs: 500}, got, "settings of a holding claim's case")
	assert.Equal(t, 2, BrokenSettings(settings.Settings{Trials: 2}, Claim{}).Trials, "trials of a run with fewer than brokenTrials")
	assert.Equal(t, run, BrokenSettings(run, Claim{IDs: []string{"P7"}, Expect: Refuted("a reason")}), "settings of a refuted claim's case")
	assert.Equal(t, 20, run.Trials, "the run's trials after BrokenSettings; want them untouched")
}

func TestEndOfRunWantsABrokenCaseForEveryClaimChecked(t *testing.T) {
	slots := Claim{IDs: []string{"P3", "P11"}, Family: "threadpool.slots"}
	threads := Claim{IDs: []string{"P3", "P11"}, Family: "threadpool.poolThreads"}
	checkedBoth := func() *run {
		r := newRun()
		r.checked("TestPoolSlots/default", slots, results.ModeLocal)
		r.checked("TestPoolSlots/UV_THREADPOOL_SIZE=2000", threads, results.ModeLocal)
		r.declared(slots)
		return r
	}

	var out strings.Builder
	assert.False(t, checkedBoth().end(&out, true), "end of a full run with a claim that has no broken case = ok; want it to fail")
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "lines = %q; want one, for the claim with no case", out.String())
	assert.Contains(t, out.String(), "claimtest: broken cases of P3 P11 (family threadpool.poolThreads, checked by TestPoolSlots/UV_THREADPOOL_SIZE=2000) = none; want one")

	out.Reset()
	assert.True(t, checkedBoth().end(&out, false), "end of a run that -run selected tests in = failed; want it unchecked")
	assert.Empty(t, out.String())

	r := checkedBoth()
	r.declared(threads)
	assert.True(t, r.end(&out, true), "end of a full run whose every claim has a case = failed (%s)", out.String())

	r = newRun()
	r.checked("TestPoolSlots/default", slots, results.ModeLocal)
	assert.True(t, r.end(&out, true), "end of a run in which no broken case was declared = failed; want it unchecked (%s)", out.String())

	r = newRun()
	r.declared(slots)
	r.checked("TestWebPingAvoidsBusyEnvironment", Claim{IDs: []string{"W6"}, Family: "eventloop.routing"}, results.ModeLive)
	assert.True(t, r.end(&out, true), "end of a full run whose claim was checked on AWS = failed; want it left out (%s)", out.String())
}

func TestBrokenCasesAreKnownWithoutCatchBroken(t *testing.T) {
	c := Claim{IDs: []string{"P0"}, Family: "threadpool.declaredAtInit"}
	assert.False(t, thisRun.isDeclared(c), "%v declared before BrokenCases; want not", c.IDs)
	cases := BrokenCases(BrokenCase{Name: "P0 broken", Claim: c, Broken: "nothing"})
	assert.Len(t, cases, 1, "BrokenCases returns the cases it declares")
	assert.True(t, thisRun.isDeclared(c), "%v declared after BrokenCases = false; want it known to the end-of-run check whether or not CatchBroken runs", c.IDs)
}

type modeTarget string

func (m modeTarget) Mode() string { return string(m) }

func TestRunGivesEachModeItsTarget(t *testing.T) {
	var got []string
	Run(t, func(t *testing.T, tgt modeTarget) { got = append(got, t.Name()+"="+tgt.Mode()) },
		Mode[modeTarget]{Name: "a", Start: func(*testing.T) modeTarget { return "local" }},
		Mode[modeTarget]{Name: "b", Start: func(*testing.T) modeTarget { return "live" }},
	)
	assert.Equal(t, []string{"TestRunGivesEachModeItsTarget/a=local", "TestRunGivesEachModeItsTarget/b=live"}, got)
}

func TestRunEachNamesEvenOneMode(t *testing.T) {
	var got []string
	RunEach(t, func(t *testing.T, tgt modeTarget) { got = append(got, t.Name()) },
		Mode[modeTarget]{Name: "node24", Start: func(*testing.T) modeTarget { return "local" }})
	assert.Equal(t, []string{"TestRunEachNamesEvenOneMode/node24"}, got)

	got = nil
	Run(t, func(t *testing.T, tgt modeTarget) { got = append(got, t.Name()) },
		Mode[modeTarget]{Name: "node", Start: func(*testing.T) modeTarget { return "local" }})
	assert.Equal(t, []string{"TestRunEachNamesEvenOneMode"}, got, "Run with one mode runs in the test itself")
}

func TestResultsRecordWhatTheTestExpects(t *testing.T) {
	assert.Nil(t, Holds.recorded(), "Holds recorded = non-nil; want no expected in the result")
	got := Refuted("a reason").recorded()
	if assert.NotNil(t, got, "Refuted recorded = nil; want the expectation in the result") {
		assert.Equal(t, results.Expected{Outcome: verdict.Fail, Why: "a reason"}, *got)
	}
}

func TestEndOfRunWantsEveryTestThatCheckedAClaimListed(t *testing.T) {
	slots := Claim{IDs: []string{"P3", "P11"}, Family: "threadpool.slots"}
	for _, full := range []bool{true, false} {
		r := newRun()
		r.declared(slots)
		r.checked("TestPoolSlots/node24/default", slots, results.ModeLocal)
		var out strings.Builder
		assert.True(t, r.end(&out, full), "end of a run whose test is listed with its claims = failed (%s)", out.String())

		r.checked("TestNewSlotCount/node24", slots, results.ModeLocal)
		r.checked("TestPoolSlots/node24/more", Claim{IDs: []string{"P1"}, Family: "threadpool.slots"}, results.ModeLive)
		r.declared(Claim{IDs: []string{"P1"}, Family: "threadpool.slots"})
		assert.False(t, r.end(&out, full), "end of a run (full %v) with a claim test catalog.Tests does not list = ok; want it to fail", full)
		assert.Contains(t, out.String(), "claimtest: claims of TestNewSlotCount (experiments/threadpool) in catalog.Tests = without P3 P11, which it checked; want")
		assert.Contains(t, out.String(), "claimtest: claims of TestPoolSlots (experiments/threadpool) in catalog.Tests = without P1, which")
	}
}
