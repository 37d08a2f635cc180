package threadpool

import (
	"strconv"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// TestCatchesBrokenLabs runs each claim's decision against a lab that breaks the claim and
// requires the verdict the broken lab deserves (claimtest.CatchBroken): fail, or pass for P7,
// which is asserted refuted. A claim test that would pass here could not tell the claim from its
// opposite. It runs on the first runtime only: what it checks is the tests, not the runtimes.
// Its results go under results/sensitivity.
func TestCatchesBrokenLabs(t *testing.T) {
	claimtest.CatchBroken(t, claimtest.Settings(t), brokenLabs...)
}

// brokenLabs are the threadpool claims' broken cases (claimtest.BrokenCases), each on the first
// runtime's lab.
var brokenLabs = claimtest.BrokenCases(
	// A pool that is not the size the test expects, as in a Node without the 4-slot limit:
	// the ordering count sees 5, not 4.
	claimtest.BrokenCase{Name: "P3 slots against a 5-slot pool", Claim: poolSlotsClaim, Broken: "UV_THREADPOOL_SIZE=5 where 4 slots are claimed",
		Measure: func(t *testing.T, _ settings.Settings) claimtest.Measurement {
			return measurePoolSlots(t, firstLab(t), "5", 4)
		}},
	// The "4 slots" runs given 8: no second wave.
	claimtest.BrokenCase{Name: "P3 P4 waves against an 8-slot pool", Claim: poolWavesClaim, Broken: "UV_THREADPOOL_SIZE=8 in the runs with 4 slots",
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measurePoolWaves(t, firstLab(t), s, "8")
		}},
	// Four saturating jobs in a 5-slot pool leave a slot free: every pool API completes at
	// once, against the docs.
	claimtest.BrokenCase{Name: "P2 API table against a pool with a free slot", Claim: apiTableClaim, Broken: "UV_THREADPOOL_SIZE=5: four saturating jobs leave a slot free",
		Measure: func(t *testing.T, _ settings.Settings) claimtest.Measurement {
			return measureAPITable(t, firstLab(t), "5")
		}},
	// Node 24 alone honours the first-line setting in both entry forms.
	claimtest.BrokenCase{Name: "P5 over Node 24's entry forms only", Claim: setInsideClaim, Broken: "P5 decided over the first runtime's entry forms only",
		Measure: func(t *testing.T, _ settings.Settings) claimtest.Measurement {
			l := firstLab(t)
			return setInsideMeasurement(t, []runtimes.Node{l.Node}, measureSetInside(t, l))
		}},
	// The Sync calls run in a worker thread: the loop is never blocked.
	claimtest.BrokenCase{Name: "P1 with pbkdf2Sync off the loop", Claim: syncBlocksLoopClaim, Broken: syncOffLoop,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureSyncBlocksLoop(t, firstLab(t), s, true)
		}},
	claimtest.BrokenCase{Name: "P8 with JSON.parse off the loop", Claim: jsonParseBlocksLoopClaim, Broken: syncOffLoop,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureJSONParseBlocksLoop(t, firstLab(t), s, true)
		}},
	claimtest.BrokenCase{Name: "P9 with gzipSync off the loop", Claim: gzipSyncVsAsyncClaim, Broken: syncOffLoop,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureGzipSyncVsAsync(t, firstLab(t), s, true)
		}},
	// The request path reads with async fs.readFile: nothing stalls.
	claimtest.BrokenCase{Name: "P10 with the request-path read made async", Claim: syncOnRequestPathClaim, Broken: "sync-server.js with LAB_BROKEN=async-read: the request path reads with async fs.readFile",
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measureSyncOnRequestPath(t, firstLab(t), s, true)
		}},
	// Room in the pool for every gzip: the read never waits for one.
	claimtest.BrokenCase{Name: "P6 against a pool with room for the load", Claim: compressionSlowsReadsClaim, Broken: "UV_THREADPOOL_SIZE=" + roomyPool + " in the pool under test: room for every gzip",
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			roomy := measureInterference(t, firstLab(t), s, roomyPool)
			return compressionSlowsReads(roomy, roomy)
		}},
	// P7 is refuted on a 4-slot pool (TestSharedPoolInterference). With one slot, libuv's
	// half-the-pool limit for lookups is the whole pool: lookups do hold up the read, the
	// claim holds, and the refutation test would fail.
	claimtest.BrokenCase{Name: "P7 on a 1-slot pool, where lookups fill it", Claim: lookupsSlowReadsClaim, Broken: "UV_THREADPOOL_SIZE=1: lookups' half of the pool is all of it",
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return lookupsSlowReads(measureInterference(t, firstLab(t), s, "1"))
		}},
	// A pool asked for fewer threads than libuv's maximum starts that many, not 1024: the
	// thread count tells the cap from any other size.
	claimtest.BrokenCase{Name: "P11 pool threads asked for under the cap", Claim: poolCapClaim, Broken: "UV_THREADPOOL_SIZE=" + strconv.Itoa(underPoolCap) + " where libuv's cap of 1024 is claimed",
		Measure: func(t *testing.T, _ settings.Settings) claimtest.Measurement {
			return measurePoolCap(t, firstLab(t), underPoolCap)
		}},
)

// underPoolCap is the pool size P11's broken case asks for: under libuv's maximum, so that the
// pool starts that many threads and not the cap.
const underPoolCap = libuvMaxThreads / 2
