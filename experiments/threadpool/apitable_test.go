package threadpool

import (
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/dnsstub"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
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

// apiRow is one API's measurement in one run.
type apiRow struct {
	API             string  `json:"api"`
	Docs            string  `json:"docs"`
	CompletedMs     float64 `json:"completedMs"`
	HeavyDoneBefore int     `json:"heavyDoneBefore"`
	WaitedForSlot   bool    `json:"waitedForSlot"`
}

// tableRow is one row of the result's table.
type tableRow struct {
	API      string `json:"api"`
	Docs     string `json:"docs"`
	Measured string `json:"measured"`
	Agree    bool   `json:"agree"`
}

// startDNS starts the test's own DNS server, which dns.resolve4 in the lab asks.
func startDNS(t *testing.T) *dnsstub.Server {
	t.Helper()
	srv, err := dnsstub.Start(net.IPv4(127, 0, 0, 1))
	require.NoError(t, err, "starting the loopback DNS server")
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func TestThreadpoolAPITable(t *testing.T) {
	forEachNode(t, func(t *testing.T, node runtimes.Node) {
		res := measureAPITable(t, node, "4")
		for _, row := range res.Summary["table"].([]tableRow) {
			t.Logf("%-24s docs: %-22s measured: %-22s agree: %v", row.API, row.Docs, row.Measured, row.Agree)
		}
		holds(t, res)
	})
}

// measureAPITable measures every row of the table on a lab started with UV_THREADPOOL_SIZE=size,
// saturating 4 slots, and decides each row against the docs. With size 4 that is every slot;
// the sensitivity test passes a larger size, a pool with room to spare, which must fail.
func measureAPITable(t *testing.T, node runtimes.Node, size string) *results.Result {
	t.Helper()
	dns := startDNS(t)
	l := labOn(node, sizeEnv(size))
	params := map[string]any{"heavyJobs": 4, "iterations": iterationsFor(t, node, apiTableJobMs), "dnsServer": dns.Addr()}
	res := claim{
		ids:       []string{"P2", "P7"},
		text:      "the threadpool runs all fs APIs but watchers and Sync ones, async pbkdf2, scrypt, randomBytes, randomFill, generateKeyPair, dns.lookup and async zlib; dns.resolve* and sockets do not use it",
		published: "the docs' list (UV_THREADPOOL_SIZE in Node's CLI docs; dns docs for resolve*); the article plans to verify it by measurement",
	}.start(t, l, map[string]any{"runs": apiTableRuns, "heavyJobs": 4, "jobMs": apiTableJobMs, "uvThreadpoolSize": size})

	runs := make([][]apiRow, apiTableRuns)
	for i := range runs {
		var out struct{ Rows []apiRow }
		params["dir"] = t.TempDir()
		l.run(t, "apiTable", params, &out)
		require.NotEmpty(t, out.Rows, "the lab measured no API")
		runs[i] = out.Rows
	}
	assert.Positive(t, dns.Queries(), "dns.resolve4 never reached the test's DNS server")
	res.Trials = runs

	// One check per API: in every run, it waited for a slot exactly when the docs say it
	// uses the pool.
	var table []tableRow
	var checks []verdict.Check
	agreeing := 0
	for r, row := range runs[0] {
		waited := stats.Proportion{N: len(runs)}
		for _, run := range runs {
			require.Equal(t, row.API, run[r].API, "rows in another order between runs")
			if run[r].WaitedForSlot {
				waited.K++
			}
		}
		wantWaited := row.Docs == docsPool
		agree := (wantWaited && waited.All()) || (!wantWaited && waited.None())
		table = append(table, tableRow{API: row.API, Docs: row.Docs, Measured: measured(waited), Agree: agree})
		if agree {
			agreeing++
		}
		want := fmt.Sprintf("0/%d", waited.N)
		if wantWaited {
			want = fmt.Sprintf("%d/%d", waited.N, waited.N)
		}
		checks = append(checks, verdict.Check{
			Name: fmt.Sprintf("%s (docs: %s): runs in which it waited for a slot", row.API, row.Docs),
			Got:  waited.String(),
			Want: want,
			Pass: agree,
			Note: fmt.Sprintf("completed %.1f ms after the call, after %d of 4 saturating jobs in the first run", row.CompletedMs, row.HeavyDoneBefore),
		})
	}
	res.Summary = map[string]any{"table": table, results.HeadlineKey: fmt.Sprintf("%d/%d rows agree with the docs", agreeing, len(table))}
	decide(t, res, stats.Proportion{K: len(runs), N: len(runs)}, checks...)
	return res
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
