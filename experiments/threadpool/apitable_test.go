package threadpool

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/standin/dnsstub"
	"github.com/serverless-claims/claims/results/family"
)

// What the docs say about a row, as the lab writes it.
const (
	docsPool    = "uses the pool"
	docsNotPool = "does not use the pool"
)

// apiTableRuns is how many times the whole table is measured per runtime; every run must agree
// with the docs on every row. Each row is the order of two callbacks, so runs do not differ.
const apiTableRuns = 2

// apiTableJobMs is each saturating job's length on an idle core: long beside any control
// (a 5 ms timer, a loopback read), short enough that the table takes seconds.
const apiTableJobMs = 60

// apiTableHeavyJobs is how many pool jobs saturate the pool: the slots of a 4-slot pool.
const apiTableHeavyJobs = 4

// The docs' list of pool APIs, and dns.lookup's half of P7 (the other half, that lookups slow
// file reads, is TestSharedPoolInterference's).
var apiTableClaim = claimtest.Claim{IDs: []string{"P2", "P7"}, Family: "threadpool.apiTable"}

// apiTableStatement is what the table tests of P2 and P7: which APIs take a pool slot.
const apiTableStatement = "the threadpool runs all fs APIs but watchers and Sync ones, async pbkdf2, scrypt, randomBytes, randomFill, generateKeyPair, dns.lookup and async zlib; dns.resolve* and sockets do not use it"

// startDNS starts the test's own DNS server, which dns.resolve4 in the lab asks.
func startDNS(t *testing.T) *dnsstub.Server {
	t.Helper()
	srv, err := dnsstub.Start(net.IPv4(127, 0, 0, 1))
	require.NoError(t, err, "starting the loopback DNS server")
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func TestThreadpoolAPITable(t *testing.T) {
	claimtest.RunEach(t, testThreadpoolAPITable, nodeModes(t)...)
}

func testThreadpoolAPITable(t *testing.T, l lab) { apiTableClaim.Check(t, measureAPITable(t, l, "4")) }

// measureAPITable measures every row of the table on the lab on l's runtime started with
// UV_THREADPOOL_SIZE=size, saturating 4 slots, and checks each row against the docs. With size
// 4 that is every slot; the sensitivity test passes a larger size, a pool with room to spare,
// which must fail.
func measureAPITable(t *testing.T, l lab, size string) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	dns := startDNS(t)
	sized := l.sized(size)
	params := family.APITableParameters{Runs: apiTableRuns, HeavyJobs: apiTableHeavyJobs, JobMs: apiTableJobMs, Iterations: iterationsFor(t, l.Node, apiTableJobMs), UVThreadpoolSize: size}

	runs := make([]family.APITableRun, apiTableRuns)
	for i := range runs {
		sized.run(t, "apiTable", map[string]any{"heavyJobs": params.HeavyJobs, "iterations": params.Iterations, "dnsServer": dns.Addr(), "dir": t.TempDir()}, &runs[i])
		require.NotEmpty(t, runs[i].Rows, "the lab measured no API")
	}
	assert.Positive(t, dns.Queries(), "dns.resolve4 never reached the test's DNS server")

	// One check per API: in every run, it waited for a slot exactly when the docs say it
	// uses the pool.
	summary := family.APITableSummary{RowsAgreeing: stats.Proportion{N: len(runs[0].Rows)}}
	var checks []verdict.Check
	for r, row := range runs[0].Rows {
		waited := stats.Proportion{N: len(runs)}
		for _, run := range runs {
			require.Equal(t, row.API, run.Rows[r].API, "rows in another order between runs")
			if run.Rows[r].WaitedForSlot {
				waited.K++
			}
		}
		name := fmt.Sprintf("%s (docs: %s): runs in which it waited for a slot", row.API, row.Docs)
		check := verdict.None(name, waited)
		if row.Docs == docsPool {
			check = verdict.All(name, waited)
		}
		check.Note = fmt.Sprintf("completed %.1f ms after the call, after %d of %d saturating jobs in the first run", row.CompletedMs, row.HeavyDoneBefore, params.HeavyJobs)
		checks = append(checks, check)
		summary.Table = append(summary.Table, family.APITableRow{API: row.API, Docs: row.Docs, Measured: measured(waited), Agree: check.Pass})
		if check.Pass {
			summary.RowsAgreeing.K++
		}
		t.Logf("%-24s docs: %-22s measured: %-22s agree: %v", row.API, row.Docs, measured(waited), check.Pass)
	}
	return claimtest.Measurement{
		Target:      sized,
		Statement:   apiTableStatement,
		StartedAt:   started,
		Headline:    fmt.Sprintf("%s rows agree with the docs", summary.RowsAgreeing),
		Parameters:  params,
		Summary:     summary,
		Trials:      runs,
		Environment: sized.environment(),
		Evidence:    stats.Proportion{K: len(runs), N: len(runs)},
		Checks:      checks,
	}
}

// measured says what the runs showed, in the docs' words.
func measured(waited stats.Proportion) string {
	switch {
	case waited.All():
		return docsPool
	case waited.None():
		return docsNotPool
	default:
		return fmt.Sprintf("waited in %s runs", waited)
	}
}
