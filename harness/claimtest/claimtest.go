// Package claimtest is the last step every claim test shares: give the result its verdict from
// the evidence and the checks, write it, and assert the claim, so that a failing claim reads the
// same in every package: each check that did not hold as `what = got; want want (evidence)`,
// then the verdict with its reason.
package claimtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// Decide gives res its verdict (verdict.Decide) and its finishing time, and writes it under
// results/<group>. It does not assert: a sensitivity test reads a failing verdict from it.
func Decide(t testing.TB, group string, res *results.Result, evidence stats.Proportion, checks ...verdict.Check) {
	t.Helper()
	res.FinishedAt = time.Now().UTC()
	res.Verdict = verdict.Decide(evidence, checks...)
	results.Record(t, group, *res)
}

// Holds asserts the claim: each check, then the verdict.
func Holds(t testing.TB, res results.Result) {
	t.Helper()
	for _, c := range res.Verdict.Checks {
		assert.True(t, c.Pass, "%v: %s", res.Claims, c)
	}
	assert.Equal(t, verdict.Pass, res.Verdict.Outcome, "verdict for %v: %s", res.Claims, res.Verdict.Reason)
}

// Refuted asserts that the measurement refutes res's claim: its verdict is fail, for the reason
// why. A claim an article states and these runtimes do not bear out is a finding: the result file
// says fail with its evidence, the test passes while that stays so, and fails, asking for the
// claim to be looked at again, the day a runtime makes the claim hold.
func Refuted(t testing.TB, res results.Result, why string) {
	t.Helper()
	if assert.Equal(t, verdict.Fail, res.Verdict.Outcome,
		"verdict for %v = %s; want fail, the claim refuted here because %s (%s)", res.Claims, res.Verdict.Outcome, why, res.Verdict.Reason) {
		t.Logf("%v refuted, as measured before: %s; evidence: %s", res.Claims, why, res.Verdict.Reason)
	}
}
