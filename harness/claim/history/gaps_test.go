package history

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

func TestGapsAreTheRunsThePeriodSaysWereDue(t *testing.T) {
	a := result("TestA", results.ModeLocal, verdict.Pass, nil)
	day := 24 * time.Hour
	// Daily runs at 0 h, 25 h (an hour late: not a gap), then 97 h: the runs due at 49 h and
	// 73 h did not start.
	runs := []Run{runOf(t, KindClaims, 0, a), runOf(t, KindClaims, 25, a), runOf(t, KindClaims, 97, a)}
	manual := runOf(t, KindClaims, 60, a)
	manual.Trigger = "workflow_dispatch" // run by hand: not the schedule's
	withManual := []Run{runs[0], runs[1], manual, runs[2]}

	got := Gaps(withManual, KindClaims, t0.Add(97*time.Hour+time.Minute))
	require.Len(t, got, 1, "gaps = %+v; want the one between the runs at 25 h and 97 h", got)
	assert.Equal(t, Gap{Kind: KindClaims, After: runs[1].ID(), Before: runs[2].ID(), First: t0.Add(49 * time.Hour),
		Last: t0.Add(73 * time.Hour), Runs: 2}, got[0], "the gap")

	// After the last run, a run is missed once half a period has passed since it was due.
	early := Gaps(runs, KindClaims, t0.Add(97*time.Hour+day+11*time.Hour))
	assert.Len(t, early, 1, "gaps 35 h after the last daily run = %+v; want only the earlier one", early)
	trailing := Gaps(runs, KindClaims, t0.Add(97*time.Hour+day+13*time.Hour))
	require.Len(t, trailing, 2, "gaps 37 h after the last daily run = %+v; want the earlier one and one after the last run", trailing)
	assert.Equal(t, Gap{Kind: KindClaims, After: runs[2].ID(), First: t0.Add(121 * time.Hour), Last: t0.Add(121 * time.Hour), Runs: 1},
		trailing[1], "the gap after the last run")

	// A weekly kind six days on has missed nothing; a kind with no schedule never misses.
	live := []Run{runOf(t, KindLive, 0, result("TestA", results.ModeLive, verdict.Pass, nil))}
	assert.Empty(t, Gaps(live, KindLive, t0.Add(6*day)), "gaps of the weekly kind six days after its last run")
	other := []Run{runOf(t, "test", 0, a)}
	assert.Empty(t, Gaps(other, "test", t0.Add(1000*day)), "gaps of a kind with no schedule")
}

func TestOverdueIsWhenMissingTurns(t *testing.T) {
	runs := []Run{runOf(t, KindLive, 0, result("TestA", results.ModeLive, verdict.Pass, nil))}
	at, ok := Overdue(runs, KindLive)
	require.True(t, ok, "the weekly kind with a scheduled run has a time it is overdue")
	_, before := Missing(runs, KindLive, at)
	_, after := Missing(runs, KindLive, at.Add(time.Second))
	assert.False(t, before, "Missing at the overdue time %s", at)
	assert.True(t, after, "Missing a second after the overdue time %s", at)
	_, ok = Overdue([]Run{runOf(t, "test", 0, result("TestA", results.ModeLocal, verdict.Pass, nil))}, "test")
	assert.False(t, ok, "a kind with no schedule is never overdue")
}
