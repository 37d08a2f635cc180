package threadpool

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/workload/runtimes"
)

// TestClaimTestsCatchBrokenLabs runs each claim's decision against a lab that breaks the claim
// and requires the verdict the broken lab deserves. A claim test that would pass here could not
// tell the claim from its opposite. It runs on the first runtime only: what it checks is the
// tests, not the runtimes. Its results go under results/sensitivity.
func TestClaimTestsCatchBrokenLabs(t *testing.T) {
	l := firstLab(t)

	for _, tc := range []struct {
		name    string
		claim   claimtest.Claim
		broken  string
		measure func(t *testing.T) claimtest.Measurement
		want    verdict.Outcome
	}{
		// A pool that is not the size the test expects, as in a Node without the 4-slot limit:
		// the ordering count sees 5, not 4.
		{"P3 slots against a 5-slot pool", poolSlotsClaim, "UV_THREADPOOL_SIZE=5 where 4 slots are claimed",
			func(t *testing.T) claimtest.Measurement { return measurePoolSlots(t, l, "5", 4) }, verdict.Fail},
		// The "4 slots" runs given 8: no second wave.
		{"P3 P4 waves against an 8-slot pool", poolWavesClaim, "UV_THREADPOOL_SIZE=8 in the runs with 4 slots",
			func(t *testing.T) claimtest.Measurement { return measurePoolWaves(t, l, "8") }, verdict.Fail},
		// Four saturating jobs in a 5-slot pool leave a slot free: every pool API completes at
		// once, against the docs.
		{"P2 API table against a pool with a free slot", apiTableClaim, "UV_THREADPOOL_SIZE=5: four saturating jobs leave a slot free",
			func(t *testing.T) claimtest.Measurement { return measureAPITable(t, l, "5") }, verdict.Fail},
		// Node 24 alone honours the first-line setting in both entry forms.
		{"P5 over Node 24's entry forms only", setInsideClaim, "P5 decided over the first runtime's entry forms only",
			func(t *testing.T) claimtest.Measurement {
				return setInsideMeasurement(t, []runtimes.Node{l.Node}, measureSetInside(t, l))
			}, verdict.Fail},
		// The Sync calls run in a worker thread: the loop is never blocked.
		{"P1 with pbkdf2Sync off the loop", syncBlocksLoopClaim, syncOffLoop,
			func(t *testing.T) claimtest.Measurement { return measureSyncBlocksLoop(t, l, true) }, verdict.Fail},
		{"P8 with JSON.parse off the loop", jsonParseBlocksLoopClaim, syncOffLoop,
			func(t *testing.T) claimtest.Measurement { return measureJSONParseBlocksLoop(t, l, true) }, verdict.Fail},
		{"P9 with gzipSync off the loop", gzipSyncVsAsyncClaim, syncOffLoop,
			func(t *testing.T) claimtest.Measurement { return measureGzipSyncVsAsync(t, l, true) }, verdict.Fail},
		// The request path reads with async fs.readFile: nothing stalls.
		{"P10 with the request-path read made async", syncOnRequestPathClaim, "sync-server.js with LAB_BROKEN=async-read: the request path reads with async fs.readFile",
			func(t *testing.T) claimtest.Measurement { return measureSyncOnRequestPath(t, l, true) }, verdict.Fail},
		// Room in the pool for every gzip: the read never waits for one.
		{"P6 against a pool with room for the load", compressionSlowsReadsClaim, "UV_THREADPOOL_SIZE=" + roomyPool + " in the pool under test: room for every gzip",
			func(t *testing.T) claimtest.Measurement {
				roomy := measureInterference(t, l, roomyPool)
				return compressionSlowsReads(roomy, roomy)
			}, verdict.Fail},
		// P7 is refuted on a 4-slot pool (TestSharedPoolInterference). With one slot, libuv's
		// half-the-pool limit for lookups is the whole pool: lookups do hold up the read, the
		// claim holds, and the refutation test would fail.
		{"P7 on a 1-slot pool, where lookups fill it", lookupsSlowReadsClaim, "UV_THREADPOOL_SIZE=1: lookups' half of the pool is all of it",
			func(t *testing.T) claimtest.Measurement { return lookupsSlowReads(measureInterference(t, l, "1")) }, verdict.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == verdict.Fail {
				atMostTrials(t, brokenTrials)
			}
			m := tc.measure(t)
			m.Broken = tc.broken
			res := tc.claim.Decide(t, m)
			if tc.want == verdict.Fail {
				claimtest.CatchesBroken(t, res)
				return
			}
			// A refutation is caught the other way: the claim holds against this lab, so the
			// test that asserts it refuted would fail.
			assert.Equal(t, tc.want, res.Verdict.Outcome, "verdict for %v against %s = %s; want %s (%s)",
				res.Claims, res.Broken, res.Verdict.Outcome, tc.want, res.Verdict.Reason)
		})
	}
}

// brokenTrials is the trials of a case whose lab breaks its claim: there every trial misses the
// claim's bound on its own (one wave where two are claimed, a loop never blocked, a /ping that
// never waits), so four show it, as in the event-loop claims' sensitivity test. P7's case, where
// the claim must hold, keeps the run's trials.
const brokenTrials = 4

// atMostTrials runs the rest of t with at most n of the run's trials (cfg.Trials, which the
// measurements read), and restores them when t ends. The package's tests run one at a time.
func atMostTrials(t *testing.T, n int) {
	t.Helper()
	saved := cfg.Trials
	cfg.Trials = min(saved, n)
	t.Cleanup(func() { cfg.Trials = saved })
}
