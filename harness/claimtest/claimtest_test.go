package claimtest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

func TestDecideWritesTheVerdict(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(results.DirEnv, dir)
	res := &results.Result{Experiment: "TestX/a", Claims: []string{"X1"}}
	Decide(t, "group", res, stats.Proportion{K: 2, N: 2}, verdict.All("waited", stats.Proportion{K: 1, N: 2}))

	assert.Equal(t, verdict.Fail, res.Verdict.Outcome)
	assert.False(t, res.FinishedAt.IsZero())
	written, err := results.Read(filepath.Join(dir, "group", results.FileName("TestX/a")))
	require.NoError(t, err)
	assert.Equal(t, verdict.Fail, written.Verdict.Outcome)
}

func TestHoldsFailsOnAFailingClaim(t *testing.T) {
	fake := &recorder{TB: t}
	Holds(fake, results.Result{Claims: []string{"X1"}, Verdict: verdict.Decide(stats.Proportion{K: 1, N: 1}, verdict.None("waited", stats.Proportion{K: 1, N: 1}))})
	assert.True(t, fake.failed, "Holds passed a failing claim")

	ok := &recorder{TB: t}
	Holds(ok, results.Result{Claims: []string{"X1"}, Verdict: verdict.Decide(stats.Proportion{K: 1, N: 1}, verdict.None("waited", stats.Proportion{N: 1}))})
	assert.False(t, ok.failed, "Holds failed a claim that holds")
}

// recorder notes a failure instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestRefutedFailsWhenTheClaimHolds(t *testing.T) {
	holds := results.Result{Claims: []string{"X1"}, Verdict: verdict.Decide(stats.Proportion{K: 1, N: 1}, verdict.None("waited", stats.Proportion{N: 1}))}
	fake := &recorder{TB: t}
	Refuted(fake, holds, "a reason")
	assert.True(t, fake.failed, "Refuted passed a claim that holds")

	refuted := results.Result{Claims: []string{"X1"}, Verdict: verdict.Decide(stats.Proportion{K: 1, N: 1}, verdict.None("waited", stats.Proportion{K: 1, N: 1}))}
	ok := &recorder{TB: t}
	Refuted(ok, refuted, "a reason")
	assert.False(t, ok.failed, "Refuted failed a refuted claim")
}
