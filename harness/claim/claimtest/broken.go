package claimtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// BrokenCase is a test of a claim test: the claim measured against a target broken on purpose,
// where its verdict must turn. A claim test that could not fail there could not tell the claim
// from its opposite. Each package runs its cases in one TestCatchesBroken... test (CatchBroken),
// so that one `-skip TestCatchesBroken` leaves them all out.
type BrokenCase struct {
	Name   string // the subtest's name
	Claim  Claim  // the claim whose test is broken; its Expect says which verdict the case wants
	Broken string // what was broken, as the result records it
	// Measure measures Claim against the broken target with s (BrokenSettings).
	Measure func(t *testing.T, s settings.Settings) Measurement
}

// brokenTrials is the most trials a case takes whose claim holds: against a target that breaks
// the claim every trial misses it on its own, so four show it.
const brokenTrials = 4

// BrokenSettings are the settings a case of claim c measures with: run's with at most
// brokenTrials trials where c holds, and run's own where c is asserted refuted, for there the
// claim must hold against the broken target, which takes the evidence a claim run takes.
func BrokenSettings(run settings.Settings, c Claim) settings.Settings {
	if c.Expect.outcome == "" {
		run.Trials = min(run.Trials, brokenTrials)
	}
	return run
}

// BrokenCases declares a package's broken cases and returns them, for a package-level variable
// that its TestCatchesBroken test hands to CatchBroken. Declared as the test binary starts, the
// way os/exec's helper commands are, they are known to Main's end-of-run check whether or not
// that test runs: a full run that leaves the tests of the tests out (-skip TestCatchesBroken, as
// `make test`'s claim stages do while another stage runs them) still fails on a claim with none.
func BrokenCases(cases ...BrokenCase) []BrokenCase {
	for _, c := range cases {
		thisRun.declared(c.Claim)
	}
	return cases
}

// CatchBroken runs each case as a subtest of t, with BrokenSettings of the run's settings: it
// measures the case, records what was broken, decides and writes the result (under
// results/sensitivity: it describes the broken target, not the runtimes) and asserts that the
// verdict turned (wantsBroken). Main's end-of-run check asks every claim checked in a full run
// for a case here.
func CatchBroken(t *testing.T, run settings.Settings, cases ...BrokenCase) {
	t.Helper()
	for _, c := range cases {
		require.True(t, thisRun.isDeclared(c.Claim), "case %s: claim %v = not declared; want the case in the package's BrokenCases, so that runs without this test still check it", c.Name, c.Claim.IDs)
		t.Run(c.Name, func(t *testing.T) {
			t.Helper() // its lines point at the package's call of CatchBroken
			require.NotEmpty(t, c.Broken, "case %s: what is broken = empty; want it said, for its result", c.Name)
			m := c.Measure(t, BrokenSettings(run, c.Claim))
			if m.Broken != "" {
				// The target says itself what is broken in it (a probe, a platform): the case must agree.
				require.Equal(t, c.Broken, m.Broken, "case %s: what is broken, as its target says; want the case's", c.Name)
			}
			m.Broken = c.Broken
			c.Claim.wantsBroken(t, c.Claim.Decide(t, m))
		})
	}
}

// wantsBroken asserts the verdict c must get against a broken target: fail where c holds, since
// a claim test that cannot fail proves nothing; pass where c is asserted refuted, since then the
// test that asserts the refutation would fail.
func (c Claim) wantsBroken(t testing.TB, res results.Result) {
	t.Helper()
	want, why := verdict.Fail, "a claim test that cannot fail proves nothing"
	if c.Expect.outcome == verdict.Fail {
		want, why = verdict.Pass, "the claim holds here, so the test that asserts it refuted would fail"
	}
	assert.NotEmpty(t, res.Broken, "%s: what was broken = empty; want a run against a broken target to say", res.Experiment)
	assert.Equal(t, want, res.Verdict.Outcome, "verdict for %v against %s = %s; want %s: %s (%s)",
		res.Claims, res.Broken, res.Verdict.Outcome, want, why, res.Verdict.Reason)
}
