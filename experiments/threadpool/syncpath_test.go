package threadpool

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/proc"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/protocol"
	"github.com/serverless-claims/claims/harness/workload/target"
	"github.com/serverless-claims/claims/results/family"
)

// syncServerScript is claim P10's server: it reads one data file with fs.readFileSync, once
// before it listens (LAB_SYNC_AT=startup) or on every /work (LAB_SYNC_AT=request).
const syncServerScript = "testdata/threadpool/sync-server.js"

// syncPathFileBytes is the data file's size: one read from the page cache takes tens of
// milliseconds, far above loopback noise, and a round stays well under a second. Smaller files
// read in under a millisecond whenever Node reuses a buffer, so their reads vary tenfold; at this
// size every read costs about the same. The result records the read's time as measured.
const syncPathFileBytes = 32 << 20

// The load of one round: syncPathLoaders goroutines keep /work flowing, each sending the next as
// soon as the last is answered, while syncPathPings /ping go out one every syncPathPingEvery. A
// round is evidence when /work was in flight on both variants while their /ping went out (see
// syncPathLoad.WorkInWindow). On the request path each /ping waits about a read, so the pings per
// round set the run's length.
const (
	syncPathLoaders   = 2
	syncPathPings     = 6
	syncPathPingEvery = 60 * time.Millisecond
)

// syncPathTimeout bounds one request: a /work is one read of tens of milliseconds.
const syncPathTimeout = 10 * time.Second

// The bands of the three ratios, each of figures measured in the same run, so a slow machine
// slows both sides. Each result records the ratios it found; results/report.md shows them.
const (
	// syncPathStallAtLeast bounds request-variant /ping p50 / start-up-variant /ping p50, both
	// under /work. On the request path a /ping queues behind a whole read (tens of ms) against a
	// /ping of a tenth of a millisecond; ten tells that stall from mere load on a machine ten
	// times faster or slower, while the broken variant (async fs.readFile, whose chunks cost the
	// loop a little but never a whole read) stays below it.
	syncPathStallAtLeast = 10.0
	// syncPathWaitsReadAtLeast bounds request-variant /ping p50 / the server's own p50 time per
	// /work, which on the request path is one read: "stalls every request" on the server's
	// clock. With reads back to back a /ping lands inside one and waits its remainder, uniform
	// over the read, so its p50 is at least half a read; a quarter leaves a factor of two for the
	// gaps between reads. The broken variant's pool reads leave the loop free: near 0.
	syncPathWaitsReadAtLeast = 0.25
	// syncPathHarmlessAtMost bounds start-up-variant /ping p50 under /work / the same server's
	// idle /ping p50: "harmless" means no request pays for the start-up read. A busy loop can
	// answer sooner than one woken from epoll, or later when the loaders, the pinger and the
	// server share 2 cores; three allows for contention and is still far below what one read
	// would add to a /ping.
	syncPathHarmlessAtMost = 3.0
)

// P10: a Sync call on the request path against the same call at start-up.
var syncOnRequestPathClaim = claimtest.Claim{IDs: []string{"P10"}, Family: "threadpool.syncPath"}

func TestSyncOnRequestPath(t *testing.T) {
	claimtest.RunEach(t, testSyncOnRequestPath, nodeModes(t)...)
}

func testSyncOnRequestPath(t *testing.T, l lab) {
	syncOnRequestPathClaim.Check(t, measureSyncOnRequestPath(t, l, claimtest.Settings(t), false))
}

// syncPathTarget is threadpool.syncPath's target, run on this machine.
type syncPathTarget struct{ family.SyncPathTarget }

// Mode is "local": both servers run on this machine.
func (syncPathTarget) Mode() string { return "local" }

// measureSyncOnRequestPath runs both variants of the sync-server on l's runtime side by side,
// s.Trials rounds:
// with /work flowing, is /ping to the server that reads on the request path many times slower
// than /ping to the server that read at start-up, and does it wait for a read, while the
// start-up server answers about as fast as when idle? broken starts the request variant with
// LAB_BROKEN=async-read, which the claim must catch.
func measureSyncOnRequestPath(t *testing.T, l lab, s settings.Settings, broken bool) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	file := syncPathDataFile(t)
	startup := startSyncServer(t, syncServerLab(l, "startup", file, false))
	request := startSyncServer(t, syncServerLab(l, "request", file, broken))
	require.NotNil(t, startup.run.Ready.StartupReadMs, "the start-up variant's READY line has no startupReadMs")

	// Each round: /ping alone (the idle baseline), then /ping under /work load on each variant,
	// the order alternating so neither always runs on a warmer machine.
	rounds := make([]family.SyncPathRound, s.Trials)
	var evidence stats.Proportion
	for i := range rounds {
		r := &rounds[i]
		r.Round = i + 1
		r.IdlePingMs = startup.pings(t)
		r.IdleP50Ms = stats.Quantile(r.IdlePingMs, 0.5)
		if i%2 == 0 {
			r.Order = "startup,request"
			r.Startup, r.Request = startup.underWork(t), request.underWork(t)
		} else {
			r.Order = "request,startup"
			r.Request, r.Startup = request.underWork(t), startup.underWork(t)
		}
		// Evidence: /work really overlapped the /ping of both variants.
		r.Evidential = r.Startup.WorkInWindow >= 1 && r.Request.WorkInWindow >= 1
		evidence.N++
		if r.Evidential {
			evidence.K++
		}
	}

	idle := stats.Summarize(syncPathPooled(rounds, func(r family.SyncPathRound) []float64 { return r.IdlePingMs }))
	atStart := stats.Summarize(syncPathPooled(rounds, func(r family.SyncPathRound) []float64 { return r.Startup.PingMs }))
	onReq := stats.Summarize(syncPathPooled(rounds, func(r family.SyncPathRound) []float64 { return r.Request.PingMs }))
	reads := stats.Summarize(syncPathPooled(rounds, func(r family.SyncPathRound) []float64 { return r.Request.WorkHandlerMs }))
	t.Logf("P10 on node%d (broken=%v): idle /ping %s; start-up variant under /work %s; request variant under /work %s; read per /work %s; evidence %s",
		l.Node.Major, broken, idle, atStart, onReq, reads, evidence)

	return claimtest.Measurement{
		Target:    syncPathTarget{family.SyncPathTarget{Startup: startup.run, Request: request.run}},
		StartedAt: started,
		Headline: fmt.Sprintf("/ping p50: idle %.2f ms; under /work, start-up variant %.2f ms, request variant %.2f ms; one read %.1f ms",
			idle.P50Ms, atStart.P50Ms, onReq.P50Ms, reads.P50Ms),
		Parameters: family.SyncPathParameters{
			Rounds: s.Trials, FileBytes: syncPathFileBytes, Loaders: syncPathLoaders,
			PingsPerRound: syncPathPings, PingEveryMs: syncPathPingEvery.Milliseconds(),
		},
		Summary: family.SyncPathSummary{
			IdlePing: idle, StartupVariantPingUnderWork: atStart, RequestVariantPingUnderWork: onReq,
			RequestVariantWorkHandler: reads, StartupReadMs: *startup.run.Ready.StartupReadMs, EvidentialRounds: evidence,
		},
		Trials:      rounds,
		Environment: lab{request.run.Lab}.environment(),
		Evidence:    evidence,
		Checks: []verdict.Check{
			verdict.RatioAtLeast("request-path /ping p50 / start-up /ping p50, both under /work",
				onReq.P50Ms, atStart.P50Ms, syncPathStallAtLeast,
				fmt.Sprintf("one read on the request path took p50 %.1f ms", reads.P50Ms)),
			verdict.RatioAtLeast("request-path /ping p50 / one read on the request path (server p50 per /work)",
				onReq.P50Ms, reads.P50Ms, syncPathWaitsReadAtLeast, "does a /ping wait for a read?"),
			verdict.RatioAtMost("start-up /ping p50 under /work / idle /ping p50",
				atStart.P50Ms, idle.P50Ms, syncPathHarmlessAtMost, "idle: the same server, no /work"),
		},
	}
}

// syncPathDataFile writes syncPathFileBytes of data into the test's temporary folder: fresh
// from the write, it is in the page cache, so a read costs copying, not the disk.
func syncPathDataFile(t *testing.T) string {
	t.Helper()
	data := make([]byte, syncPathFileBytes)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	path := filepath.Join(t.TempDir(), "p10-data.bin")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// syncServerLab is the sync-server on l's runtime reading file at syncAt; broken swaps the
// request path's Sync call for async fs.readFile.
func syncServerLab(l lab, syncAt, file string, broken bool) lab {
	env := map[string]string{"LAB_SYNC_AT": syncAt, "LAB_FILE": file}
	if broken {
		env["LAB_BROKEN"] = "async-read"
	}
	return l.script(syncServerScript, env)
}

// syncServer is a started sync-server.
type syncServer struct {
	run    family.SyncServer
	target *target.Local
}

// startSyncServer starts l and waits for its READY line; proc.Start stops it when the test ends.
func startSyncServer(t *testing.T, l lab) *syncServer {
	t.Helper()
	script, err := repo.Path(l.Script)
	require.NoError(t, err)
	var ready protocol.Ready
	proc.Start(t, proc.Spec{
		Name:  "sync-server " + l.Env["LAB_SYNC_AT"],
		Path:  l.Node.Path,
		Args:  []string{script},
		Env:   proc.CleanEnv(proc.Vars(l.Env)...),
		Dir:   t.TempDir(),
		Ready: protocol.AwaitReady(&ready),
	})
	s := &syncServer{run: family.SyncServer{Lab: l.Lab}, target: target.NewLocal(ready.Addr)}
	extra, err := json.Marshal(ready.Extra)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(extra, &s.run.Ready), "the sync-server's READY line")
	t.Cleanup(s.target.Close)
	s.pings(t) // open the connection and warm the handler before anything is measured
	return s
}

// get sends GET path; an error or a status other than 200 is an error.
func (s *syncServer) get(path string) (target.Reply, error) {
	ctx, cancel := context.WithTimeout(context.Background(), syncPathTimeout)
	defer cancel()
	r := s.target.Get(ctx, path)
	switch {
	case r.Err != nil:
		return r, r.Err
	case r.Status != 200:
		return r, fmt.Errorf("GET %s: status %d: %s", path, r.Status, r.Answer.Error)
	}
	return r, nil
}

// pings sends syncPathPings /ping, one every syncPathPingEvery (or at once when the last one
// came back late), one at a time, and returns their client-side latencies in milliseconds.
func (s *syncServer) pings(t *testing.T) []float64 {
	t.Helper()
	lat := make([]float64, 0, syncPathPings)
	start := time.Now()
	for i := range syncPathPings {
		time.Sleep(time.Until(start.Add(time.Duration(i) * syncPathPingEvery)))
		r, err := s.get("/ping")
		require.NoError(t, err)
		lat = append(lat, syncPathMs(r.DoneAt.Sub(r.SentAt)))
	}
	return lat
}

// underWork keeps /work flowing from syncPathLoaders goroutines, sends the round's /ping once
// every loader has had an answer, and stops the load when the last /ping is back.
func (s *syncServer) underWork(t *testing.T) family.SyncPathLoad {
	t.Helper()
	var (
		mu    sync.Mutex
		works []target.Reply
		fail  error
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	for range syncPathLoaders {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				r, err := s.get("/work")
				mu.Lock()
				works = append(works, r)
				if err != nil && fail == nil {
					fail = err
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	answered := func() (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(works), fail
	}
	deadline := time.Now().Add(syncPathTimeout)
	for n, err := answered(); n < syncPathLoaders && err == nil && time.Now().Before(deadline); n, err = answered() {
		time.Sleep(time.Millisecond)
	}
	var pings []float64
	var windowStart, windowEnd time.Time
	if _, err := answered(); err == nil {
		windowStart = time.Now()
		pings = s.pings(t)
		windowEnd = time.Now()
	}
	close(stop)
	wg.Wait()
	require.NoError(t, fail, "/work under load")

	l := family.SyncPathLoad{PingMs: pings, PingP50Ms: stats.Quantile(pings, 0.5), WorkAnswered: len(works)}
	var handler []float64
	for _, w := range works {
		if !w.SentAt.After(windowEnd) && !w.DoneAt.Before(windowStart) {
			l.WorkInWindow++
		}
		handler = append(handler, syncPathRound3(w.Answer.FinishedAt-w.Answer.ReceivedAt))
	}
	l.WorkHandlerP50Ms = syncPathRound3(stats.Quantile(handler, 0.5))
	if len(handler) <= 10*syncPathPings { // the request variant's reads, not the cached answers
		l.WorkHandlerMs = handler
	}
	return l
}

// syncPathPooled is every round's sample of one kind, pooled.
func syncPathPooled(rounds []family.SyncPathRound, of func(family.SyncPathRound) []float64) []float64 {
	var all []float64
	for _, r := range rounds {
		all = append(all, of(r)...)
	}
	return all
}

// syncPathMs is d in milliseconds to the microsecond.
func syncPathMs(d time.Duration) float64 {
	return syncPathRound3(float64(d) / float64(time.Millisecond))
}

// syncPathRound3 rounds milliseconds to the microsecond; /ping latencies are fractions of a
// millisecond, too fine for ms's tenth.
func syncPathRound3(v float64) float64 { return math.Round(v*1000) / 1000 }
