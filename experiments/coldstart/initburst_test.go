package coldstart

// T9: Init's burst of CPU, the local model's one assumption about Init that no AWS document
// states (docs/fidelity.md). Where a platform reports Init Duration (the REPORT), T9 is decided
// from it at the smallest and at a larger memory size; on the local platform, whose model gives
// Init its burst by construction, the result states the assumption and decides nothing.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/results/family"
)

// initBurstClaim is T9.
var initBurstClaim = claimtest.Claim{IDs: []string{"T9"}, Family: familyPhases}

// initBurstSizes are T9's memory sizes: the article's 128 MB, and 1,024 MB, eight times its
// share of a vCPU and still under one vCPU, so that an Init held to the memory size's share
// would take several times as long at the first.
var initBurstSizes = []int{memoryMB, 1024}

// maxInitGrowth is T9's bound on the REPORT's Init Duration at 128 MB over that at 1,024 MB. An
// Init that ran at the memory size's share would take several times as long at 128 MB as far as
// it is CPU: the shares' ratio is 8, and a short Init at a small quota also waits out whole
// periods. One with a burst takes about as long at both. Twice leaves room for the part of Init
// that is not CPU (the process's start, its page-ins) and for noise, and is far below 8.
const maxInitGrowth = 2.0

// TestInitIsNotThrottled is T9: Init runs with more CPU than the memory size gives, so a
// function's Init Duration does not grow as its memory shrinks.
func TestInitIsNotThrottled(t *testing.T) {
	claimtest.Run(t, testInitIsNotThrottled, platforms...)
}

func testInitIsNotThrottled(t *testing.T, p lambdaPlatform) {
	if p.Mode() == results.ModeLocal {
		res := initBurstClaim.Decide(t, initBurstAssumed(p))
		assert.Equal(t, verdict.Inconclusive, res.Verdict.Outcome, "T9 on the local platform: verdict (%s); want inconclusive: the model assumes it", res.Verdict.Reason)
		assert.Contains(t, res.Verdict.Reason, "assumes", "T9's reason on the local platform must say it is the model's assumption")
		return
	}
	on(initBurstClaim, p.Language()).Check(t, measureInitBurst(t, p, coldStartsOn(p)))
}

// initBurstAssumed is T9 on the local platform: no cold start, a result that states what the
// model assumes, with no evidence, so its verdict is inconclusive and names the assumption.
func initBurstAssumed(p lambdaPlatform) claimtest.Measurement {
	assumed := fmt.Sprintf("the local model assumes T9: each environment's Init runs at %.1f CPUs (initBurstShare), whatever its memory size, "+
		"until the runtime's first request for an event; its Init Durations would show that assumption, not evidence, so none is taken here: "+
		"a platform that judges the model decides T9 (go test -tags lambda)", initBurstShare)
	r := &phasesRun{p: p, arms: initBurstArms(p), plan: &coldStartPlan{}}
	r.params = family.PhasesParameters{WarmInvocations: 1, InvocationGapMs: float64(p.Settings().CPUPeriod) / float64(time.Millisecond)}
	for _, a := range r.arms {
		r.kept, r.all, r.answered = append(r.kept, nil), append(r.all, nil), append(r.answered, stats.Proportion{})
		r.notEvidence = append(r.notEvidence, family.NotEvidence{})
		r.params.Arms = append(r.params.Arms, family.ArmParameters{Arm: a.Name, Variant: cold, MemoryMB: a.Config.MemoryMB})
	}
	m := r.measurement(family.PhasesSummary{InitBurst: &family.InitBurstFigures{Assumed: assumed}}, "not decided here: "+assumed, stats.Proportion{})
	m.NotEvidence = assumed
	return m
}

// initBurstArms are T9's functions: the cold variant at each of initBurstSizes.
func initBurstArms(p lambdaPlatform) []arm {
	var arms []arm
	for _, mb := range initBurstSizes {
		c := getitemConfig(p, getItemFunction, cold, mb, false)
		arms = append(arms, arm{c.String(), c})
	}
	return arms
}

// measureInitBurst runs n cold starts at each of initBurstSizes, in turn, and decides T9 from
// the REPORT's Init Duration, the platform's own measure of Init (a cold start without one is
// no evidence: evidential).
func measureInitBurst(t *testing.T, p lambdaPlatform, n int) claimtest.Measurement {
	t.Helper()
	arms := initBurstArms(p)
	r := runPhases(t, p, getItemFunction, n, fewestColdStarts(p.Language()), 1, arms...)
	small, large := r.kept[0], r.kept[len(r.kept)-1]
	ratio := meansRatio(t, small, reportInitMs, large, reportInitMs, false)
	mean := func(runs []family.ColdStart) float64 { return stats.Mean(figure(runs, reportInitMs)) }
	headline := fmt.Sprintf("the REPORT's Init Duration, means: %.1f ms at %d MB, %.1f ms at %d MB (%.2f times)",
		mean(small), initBurstSizes[0], mean(large), initBurstSizes[len(initBurstSizes)-1], ratio.Value)
	evidence := stats.Proportion{K: min(r.answered[0].K, r.answered[len(r.answered)-1].K), N: r.answered[0].N}
	return r.measurement(family.PhasesSummary{InitBurst: &family.InitBurstFigures{InitRatio: &ratio}}, headline, evidence,
		verdict.EstimateAtMost(fmt.Sprintf("Init Duration at %d MB / at %d MB", initBurstSizes[0], initBurstSizes[len(initBurstSizes)-1]), ratio, maxInitGrowth,
			fmt.Sprintf("means %.1f ms / %.1f ms, the REPORT's, each size's own cold starts taken in turn", mean(small), mean(large))))
}

// reportInitMs is a cold start's Init Duration as its first REPORT gives it.
func reportInitMs(c family.ColdStart) float64 {
	if c.First.Report.InitDuration == nil {
		return 0
	}
	return *c.First.Report.InitDuration
}
