package threadpool

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/build"
	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// The interference loads. Eight 2 MiB gzip streams, each compressed in one pool job (an output
// chunk larger than its output), hold every slot of a 4-slot pool for tens of ms: a read that
// needs a slot completes only after a gzip has, which is an ordering, not a time. (With zlib's
// default 16 KiB chunks each stream is hundreds of short jobs; the read then slips in between
// them and mostly pays for sharing 2 cores with 8 compressing threads, which says less about
// the slots.) 16 names, each 50 ms from its resolver (a resolver in another zone, or a slow
// one), keep lookups in flight for hundreds of ms if they may take two slots, or four.
const (
	gzipJobs       = 8
	gzipBytes      = 2 << 20
	gzipChunkBytes = gzipBytes + 1<<20 // more than any stream's output: one pool job each
	roomyPool      = "16"              // P6's control: the same load with room in the pool
	names          = 16
	nameDelay      = 50 * time.Millisecond
	loadSettleMs   = 5 // the read starts this long after its load, when the load is in the pool
	slowResolverSO = "testdata/threadpool/slowdns/slowgai.c"
)

// readUnder is one condition's measurement in one trial.
type readUnder struct {
	ReadMs             float64 `json:"readMs"`
	LoadDoneBeforeRead int     `json:"loadDoneBeforeRead"`
	LoadCalls          int     `json:"loadCalls"`
}

// interferenceRun is what the lab's interference scenario reports, and the lab that did.
type interferenceRun struct {
	OneLookupMs float64                `json:"oneLookupMs"`
	Trials      []map[string]readUnder `json:"trials"`
	lab         lab
	size        string
}

// medianRead is the median read latency under a condition.
func (r interferenceRun) medianRead(condition string) float64 {
	xs := make([]float64, len(r.Trials))
	for i, tr := range r.Trials {
		xs[i] = tr[condition].ReadMs
	}
	return stats.Quantile(xs, 0.5)
}

// readsAfterLoad counts the trials whose read completed only after at least one of the
// condition's load calls had: the read waited behind the load.
func (r interferenceRun) readsAfterLoad(condition string) stats.Proportion {
	p := stats.Proportion{N: len(r.Trials)}
	for _, tr := range r.Trials {
		if tr[condition].LoadDoneBeforeRead > 0 {
			p.K++
		}
	}
	return p
}

// measureInterference runs the interference lab on node with UV_THREADPOOL_SIZE=size, names
// nameDelay away from both resolvers.
func measureInterference(t *testing.T, node runtimes.Node, size string) interferenceRun {
	t.Helper()
	shim, err := build.SharedC(slowResolverSO)
	if err != nil {
		t.Fatalf("the slow-resolver stand-in: %v", err)
	}
	dns := startDNS(t)
	dns.SetDelay(nameDelay)
	env := sizeEnv(size)
	env["LD_PRELOAD"] = shim
	env["SLOWGAI_MS"] = strconv.Itoa(int(nameDelay / time.Millisecond))
	run := interferenceRun{lab: labOn(node, env), size: size}
	run.lab.run(t, "interference", map[string]any{
		"trials": cfg.Trials, "gzipJobs": gzipJobs, "gzipBytes": gzipBytes, "gzipChunkBytes": gzipChunkBytes,
		"names": names, "settleMs": loadSettleMs,
		"dir": t.TempDir(), "dnsServer": dns.Addr(),
	}, &run)
	return run
}

func TestSharedPoolInterference(t *testing.T) {
	forEachNode(t, func(t *testing.T, node runtimes.Node) {
		run := measureInterference(t, node, "4")
		t.Run("P6", func(t *testing.T) {
			holds(t, decideCompressionSlowsReads(t, run, measureInterference(t, node, roomyPool)))
		})
		t.Run("P7", func(t *testing.T) {
			claimtest.Refuted(t, *decideLookupsSlowReads(t, run),
				"libuv runs getaddrinfo as slow I/O, on at most half the pool's threads (since libuv 1.21), so file reads keep the other half")
		})
	})
}

// interferenceParams are the parameters both results record.
func interferenceParams(run interferenceRun) map[string]any {
	return map[string]any{
		"trials": len(run.Trials), "uvThreadpoolSize": run.size, "gzipJobs": gzipJobs, "gzipBytes": gzipBytes, "gzipChunkBytes": gzipChunkBytes,
		"names": names, "nameDelayMs": nameDelay.Milliseconds(), "loadSettleMs": loadSettleMs,
		"oneLookupMs": ms(run.OneLookupMs), "slowResolver": slowResolverSO + " (LD_PRELOAD)",
	}
}

// interferenceResult starts c's result from run: its parameters, trials and summary.
func interferenceResult(t *testing.T, c claim, run interferenceRun) *results.Result {
	t.Helper()
	res := c.start(t, run.lab, interferenceParams(run))
	res.Trials = run.Trials
	res.Summary = interferenceSummary(run)
	return res
}

// interferenceSummary is the median read latency under each condition.
func interferenceSummary(run interferenceRun) map[string]any {
	s := map[string]any{}
	for _, c := range []string{"alone", "gzip", "lookup", "resolve4"} {
		s[c] = map[string]any{"medianReadMs": ms(run.medianRead(c)), "readsAfterLoad": run.readsAfterLoad(c)}
	}
	s[results.HeadlineKey] = fmt.Sprintf("read p50: alone %.2f ms, under gzip %.2f ms, lookups %.2f ms, resolve4 %.2f ms; reads after a lookup %s",
		run.medianRead("alone"), run.medianRead("gzip"), run.medianRead("lookup"), run.medianRead("resolve4"), run.readsAfterLoad("lookup"))
	return s
}

// decideCompressionSlowsReads decides P6 from run, the pool under test, and roomy, the same
// load in a pool with room to spare: async gzip saturating the pool delays a file read, and it
// is the slots that do it.
func decideCompressionSlowsReads(t *testing.T, run, roomy interferenceRun) *results.Result {
	t.Helper()
	res := interferenceResult(t, claim{
		ids:       []string{"P6"},
		text:      "unrelated features slow each other through the 4 shared slots: async compression saturating the pool delays file reads",
		published: "(qualitative)",
	}, run)
	res.Summary["roomyPool"] = map[string]any{"uvThreadpoolSize": roomy.size, "gzip": interferenceSummary(roomy)["gzip"]}
	alone, gzip := run.medianRead("alone"), run.medianRead("gzip")
	decide(t, res, stats.Proportion{K: len(run.Trials), N: len(run.Trials)},
		// Ordering: the read's first step needs a slot, and every slot holds a whole gzip.
		verdict.All(fmt.Sprintf("UV_THREADPOOL_SIZE=%s: trials whose read completed only after a gzip had (%d in flight)", run.size, gzipJobs), run.readsAfterLoad("gzip")),
		// The control: with room in the pool the same load leaves the read a slot; what is left
		// of its delay is sharing 2 cores with 8 compressing threads (28-31 ms median), which
		// now and then outlasts the fastest gzip: 1 trial in 8 in one full make test. Saturated
		// slots make the read wait every time; chance, in fewer than half the trials.
		verdict.Minority(fmt.Sprintf("UV_THREADPOOL_SIZE=%s, the same load: trials whose read completed only after a gzip had", roomy.size), roomy.readsAfterLoad("gzip")),
		// The same in time. Alone, a 64 KiB read from the page cache takes 0.1-0.7 ms; waiting
		// for a gzip to free a slot it takes tens of ms, a hundred times longer. 10x is far above
		// what jitter does to a sub-millisecond read and far below what waiting does.
		verdict.RatioAtLeast(fmt.Sprintf("read latency with %d gzip streams / alone (medians)", gzipJobs), gzip, alone, 10, "alone"),
	)
	return res
}

// decideLookupsSlowReads decides P7 as the article states it: names resolved with dns.lookup
// (in the pool) delay a file read, and the same names resolved with dns.resolve4 (not in the
// pool) do not.
func decideLookupsSlowReads(t *testing.T, run interferenceRun) *results.Result {
	t.Helper()
	res := interferenceResult(t, claim{
		ids:       []string{"P7"},
		text:      "dns.lookup queues in the pool, dns.resolve4 does not: a name-heavy service slows its file reads",
		published: "(qualitative)",
	}, run)
	alone, lookup, resolve := run.medianRead("alone"), run.medianRead("lookup"), run.medianRead("resolve4")
	decide(t, res, stats.Proportion{K: len(run.Trials), N: len(run.Trials)},
		// Ordering: a read queued behind the lookups completes only after one of them has; a
		// read with a free thread completes long before the first lookup's 50 ms are up.
		verdict.All(fmt.Sprintf("trials whose read completed only after a dns.lookup (%d in flight, %v each)", names, nameDelay), run.readsAfterLoad("lookup")),
		verdict.None(fmt.Sprintf("trials whose read completed only after a dns.resolve4 (%d in flight, %v each)", names, nameDelay), run.readsAfterLoad("resolve4")),
		// The same in time: queued behind lookups, the read would wait tens of ms for a 50 ms
		// lookup to free a thread, 50x or more its 0.1-0.7 ms alone; 10x is well inside both.
		verdict.RatioAtLeast("read latency with lookups in flight / alone (medians)", lookup, alone, 10, "alone"),
		verdict.RatioAtMost("read latency with resolve4 in flight / alone (medians)", resolve, alone, 10, "alone"),
	)
	return res
}
