package threadpool

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
)

// The interference loads. Eight 2 MiB gzip streams, each compressed in one pool job (an output
// chunk larger than its output), hold every slot of a 4-slot pool for tens of ms: a read that
// needs a slot completes only after a gzip's compression job has handed its output back, which
// is an ordering, not a time. (Not after a gzip's callback: its stream ends one more pool job
// later, queued behind the read, and Node 26.8.0's one-job fs.readFile completes before it.) (With zlib's
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

// P6 and P7: unrelated work slowing file reads through the shared pool.
var (
	compressionSlowsReadsClaim = claimtest.Claim{IDs: []string{"P6"}, Family: "threadpool.interference"}
	lookupsSlowReadsClaim      = claimtest.Claim{IDs: []string{"P7"}, Family: "threadpool.interference",
		Expect: claimtest.Refuted("libuv runs getaddrinfo as slow I/O, on at most half the pool's threads (since libuv 1.21), so file reads keep the other half")}
)

// condition picks one condition's measurement of a trial.
type condition func(family.InterferenceTrial) family.ReadUnder

// The conditions.
func alone(tr family.InterferenceTrial) family.ReadUnder         { return tr.Alone }
func underGzip(tr family.InterferenceTrial) family.ReadUnder     { return tr.Gzip }
func underLookup(tr family.InterferenceTrial) family.ReadUnder   { return tr.Lookup }
func underResolve4(tr family.InterferenceTrial) family.ReadUnder { return tr.Resolve4 }

// interferenceRun is what the lab's interference scenario reports, and the lab that did.
type interferenceRun struct {
	OneLookupMs float64                    `json:"oneLookupMs"`
	Trials      []family.InterferenceTrial `json:"trials"`
	lab         lab
	size        string
	started     time.Time
}

// medianRead is the median read latency under a condition.
func (r interferenceRun) medianRead(c condition) float64 {
	xs := make([]float64, len(r.Trials))
	for i, tr := range r.Trials {
		xs[i] = c(tr).ReadMs
	}
	return stats.Quantile(xs, 0.5)
}

// readsAfterLoad counts the trials whose read completed only after at least one of the
// condition's load calls had given its slot back (a gzip its output, a name its answer): the
// read waited behind the load.
func (r interferenceRun) readsAfterLoad(c condition) stats.Proportion {
	p := stats.Proportion{N: len(r.Trials)}
	for _, tr := range r.Trials {
		if c(tr).LoadDoneBeforeRead > 0 {
			p.K++
		}
	}
	return p
}

// reads sums up the reads of r.
func (r interferenceRun) reads() family.ReadsByLoad {
	of := func(c condition) family.ReadSummary {
		return family.ReadSummary{MedianReadMs: ms(r.medianRead(c)), ReadsAfterLoad: r.readsAfterLoad(c)}
	}
	return family.ReadsByLoad{Alone: of(alone), Gzip: of(underGzip), Lookup: of(underLookup), Resolve4: of(underResolve4)}
}

// measureInterference runs s.Trials trials of the interference lab on l's runtime with
// UV_THREADPOOL_SIZE=size,
// names nameDelay away from both resolvers.
func measureInterference(t *testing.T, l lab, s settings.Settings, size string) interferenceRun {
	t.Helper()
	shim, err := build.SharedC(slowResolverSO)
	if err != nil {
		t.Fatalf("the slow-resolver stand-in: %v", err)
	}
	dns := startDNS(t)
	dns.SetDelay(nameDelay)
	sized := l.sized(size)
	sized.Env["LD_PRELOAD"] = shim
	sized.Env["SLOWGAI_MS"] = strconv.Itoa(int(nameDelay / time.Millisecond))
	run := interferenceRun{lab: sized, size: size, started: time.Now()}
	sized.run(t, "interference", map[string]any{
		"trials": s.Trials, "gzipJobs": gzipJobs, "gzipBytes": gzipBytes, "gzipChunkBytes": gzipChunkBytes,
		"names": names, "settleMs": loadSettleMs,
		"dir": t.TempDir(), "dnsServer": dns.Addr(),
	}, &run)
	return run
}

func TestSharedPoolInterference(t *testing.T) {
	claimtest.RunEach(t, testSharedPoolInterference, nodeModes(t)...)
}

func testSharedPoolInterference(t *testing.T, l lab) {
	s := claimtest.Settings(t)
	run := measureInterference(t, l, s, "4")
	t.Run("P6", func(t *testing.T) {
		compressionSlowsReadsClaim.Check(t, compressionSlowsReads(run, measureInterference(t, l, s, roomyPool)))
	})
	t.Run("P7", func(t *testing.T) { lookupsSlowReadsClaim.Check(t, lookupsSlowReads(run)) })
}

// interferenceMeasurement starts a measurement from run: everything but the checks.
func interferenceMeasurement(run interferenceRun) claimtest.Measurement {
	return claimtest.Measurement{
		Target:    run.lab,
		StartedAt: run.started,
		Headline: fmt.Sprintf("read p50: alone %.2f ms, under gzip %.2f ms, lookups %.2f ms, resolve4 %.2f ms; reads after a lookup %s",
			run.medianRead(alone), run.medianRead(underGzip), run.medianRead(underLookup), run.medianRead(underResolve4), run.readsAfterLoad(underLookup)),
		Parameters: family.InterferenceParameters{
			Trials: len(run.Trials), UVThreadpoolSize: run.size, GzipJobs: gzipJobs, GzipBytes: gzipBytes, GzipChunkBytes: gzipChunkBytes,
			Names: names, NameDelayMs: nameDelay.Milliseconds(), LoadSettleMs: loadSettleMs, SlowResolver: slowResolverSO + " (LD_PRELOAD)",
		},
		Summary:     family.InterferenceSummary{OneLookupMs: ms(run.OneLookupMs), Reads: run.reads()},
		Trials:      family.InterferenceTrials{Pool: run.Trials},
		Environment: run.lab.environment(),
		Evidence:    stats.Proportion{K: len(run.Trials), N: len(run.Trials)},
	}
}

// compressionSlowsReads is P6 from run, the pool under test, and roomy, the same load in a pool
// with room to spare: async gzip saturating the pool delays a file read, and it is the slots
// that do it.
func compressionSlowsReads(run, roomy interferenceRun) claimtest.Measurement {
	m := interferenceMeasurement(run)
	params := m.Parameters.(family.InterferenceParameters)
	params.RoomyPool = roomy.size
	m.Parameters = params
	summary := m.Summary.(family.InterferenceSummary)
	summary.RoomyPool = &family.RoomyReads{UVThreadpoolSize: roomy.size, Reads: roomy.reads()}
	m.Summary = summary
	m.Trials = family.InterferenceTrials{Pool: run.Trials, RoomyPool: roomy.Trials}
	m.Checks = []verdict.Check{
		// Ordering: the read's first step needs a slot, and every slot holds a whole gzip.
		verdict.All(fmt.Sprintf("UV_THREADPOOL_SIZE=%s: trials whose read completed only after a gzip's compression had (%d in flight)", run.size, gzipJobs), run.readsAfterLoad(underGzip)),
		// The control: with room in the pool the same load leaves the read a slot; what is left
		// of its delay is sharing 2 cores with 8 compressing threads, which now and then
		// outlasts the fastest gzip. Saturated slots make the read wait every time; chance, in
		// fewer than half the trials.
		verdict.Minority(fmt.Sprintf("UV_THREADPOOL_SIZE=%s, the same load: trials whose read completed only after a gzip's compression had", roomy.size), roomy.readsAfterLoad(underGzip)),
		// The same in time. Alone, a 64 KiB read from the page cache takes well under a
		// millisecond; waiting for a gzip to free a slot it takes tens of ms. 10x is far above
		// what jitter does to a sub-millisecond read and far below what waiting does.
		verdict.RatioAtLeast(fmt.Sprintf("read latency with %d gzip streams / alone (medians)", gzipJobs), run.medianRead(underGzip), run.medianRead(alone), 10, "alone"),
	}
	return m
}

// lookupsSlowReads is P7 as the article states it: names resolved with dns.lookup (in the pool)
// delay a file read, and the same names resolved with dns.resolve4 (not in the pool) do not.
func lookupsSlowReads(run interferenceRun) claimtest.Measurement {
	m := interferenceMeasurement(run)
	readAlone := run.medianRead(alone)
	m.Checks = []verdict.Check{
		// Ordering: a read queued behind the lookups completes only after one of them has; a
		// read with a free thread completes long before the first lookup's 50 ms are up.
		verdict.All(fmt.Sprintf("trials whose read completed only after a dns.lookup (%d in flight, %v each)", names, nameDelay), run.readsAfterLoad(underLookup)),
		verdict.None(fmt.Sprintf("trials whose read completed only after a dns.resolve4 (%d in flight, %v each)", names, nameDelay), run.readsAfterLoad(underResolve4)),
		// The same in time: queued behind lookups, the read would wait tens of ms for a 50 ms
		// lookup to free a thread, 50x or more its time alone; 10x is well inside both.
		verdict.RatioAtLeast("read latency with lookups in flight / alone (medians)", run.medianRead(underLookup), readAlone, 10, "alone"),
		// Beside resolve4s the yardstick is a lookup, not the read alone: a read that waited
		// for an answer takes most of one (it starts 5 of the 50 ms in), and one that did not
		// takes a read's time and the machine's jitter, which on a busy machine is several times
		// a sub-millisecond read alone but far from a lookup. Half a lookup lies between both.
		verdict.RatioAtMost("read latency with resolve4 in flight (median) / one dns.lookup alone", run.medianRead(underResolve4), run.OneLookupMs, 0.5, "one lookup"),
	}
	return m
}
