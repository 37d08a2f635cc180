package claimtest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// recorder notes a failure instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

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

func TestRefutedFailsWhenTheClaimHolds(t *testing.T) {
	c := Claim{IDs: []string{"W4"}, Expect: Refuted("a reason")}
	fake := &recorder{TB: t}
	c.Assert(fake, outcome(true))
	assert.True(t, fake.failed, "Assert(Refuted) passed a claim that holds")

	ok := &recorder{TB: t}
	c.Assert(ok, outcome(false))
	assert.False(t, ok.failed, "Assert(Refuted) failed a refuted claim")
}

func TestCatchesBrokenWantsFailAndWhatWasBroken(t *testing.T) {
	fake := &recorder{TB: t}
	CatchesBroken(fake, outcome(false))
	assert.True(t, fake.failed, "CatchesBroken passed a result that does not say what was broken")

	broken := outcome(false)
	broken.Broken = "a probe that spins in a worker"
	ok := &recorder{TB: t}
	CatchesBroken(ok, broken)
	assert.False(t, ok.failed, "CatchesBroken failed a broken run that failed")

	stillHolds := outcome(true)
	stillHolds.Broken = "a probe that spins in a worker"
	fake = &recorder{TB: t}
	CatchesBroken(fake, stillHolds)
	assert.True(t, fake.failed, "CatchesBroken passed a claim that held against a broken target")
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
