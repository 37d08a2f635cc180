package threadpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/verdict"
)

// TestClaimTestsCatchBrokenLabs runs each claim's decision against a lab that breaks the claim
// and requires the verdict the broken lab deserves. A claim test that would pass here could not
// tell the claim from its opposite. It runs on the first runtime only: what it checks is the
// tests, not the runtimes.
func TestClaimTestsCatchBrokenLabs(t *testing.T) {
	nodes, err := runtimes.NodeRuntimes()
	require.NoError(t, err)
	node := nodes[0]

	for _, tc := range []struct {
		name    string
		measure func(t *testing.T) *results.Result
		want    verdict.Outcome
	}{
		// A pool that is not the size the test expects, as in a Node without the 4-slot limit:
		// the ordering count sees 5, not 4.
		{"P3 slots against a 5-slot pool", func(t *testing.T) *results.Result { return measurePoolSlots(t, node, "5", 4) }, verdict.Fail},
		// The "4 slots" runs given 8: no second wave.
		{"P3 P4 waves against an 8-slot pool", func(t *testing.T) *results.Result { return measurePoolWaves(t, node, "8") }, verdict.Fail},
		// Four saturating jobs in a 5-slot pool leave a slot free: every pool API completes at
		// once, against the docs.
		{"P2 API table against a pool with a free slot", func(t *testing.T) *results.Result { return measureAPITable(t, node, "5") }, verdict.Fail},
		// Node 24 alone honours the first-line setting in both entry forms.
		{"P5 over Node 24's entry forms only", func(t *testing.T) *results.Result {
			return decideSetInside(t, nodes[:1], measureSetInside(t, node))
		}, verdict.Fail},
		// The Sync calls run in a worker thread: the loop is never blocked.
		{"P1 with pbkdf2Sync off the loop", func(t *testing.T) *results.Result { return measureSyncBlocksLoop(t, node, true) }, verdict.Fail},
		{"P8 with JSON.parse off the loop", func(t *testing.T) *results.Result { return measureJSONParseBlocksLoop(t, node, true) }, verdict.Fail},
		{"P9 with gzipSync off the loop", func(t *testing.T) *results.Result { return measureGzipSyncVsAsync(t, node, true) }, verdict.Fail},
		// The request path reads with async fs.readFile: nothing stalls.
		{"P10 with the request-path read made async", func(t *testing.T) *results.Result { return measureSyncOnRequestPath(t, node, true) }, verdict.Fail},
		// Room in the pool for every gzip: the read never waits for one.
		{"P6 against a pool with room for the load", func(t *testing.T) *results.Result {
			roomy := measureInterference(t, node, roomyPool)
			return decideCompressionSlowsReads(t, roomy, roomy)
		}, verdict.Fail},
		// P7 is refuted on a 4-slot pool (TestSharedPoolInterference). With one slot, libuv's
		// half-the-pool limit for lookups is the whole pool: lookups do hold up the read, the
		// claim holds, and the refutation test would fail.
		{"P7 on a 1-slot pool, where lookups fill it", func(t *testing.T) *results.Result {
			return decideLookupsSlowReads(t, measureInterference(t, node, "1"))
		}, verdict.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.measure(t)
			assert.Equal(t, tc.want, res.Verdict.Outcome, "verdict = %s; want %s (%s)", res.Verdict.Outcome, tc.want, res.Verdict.Reason)
		})
	}
}
