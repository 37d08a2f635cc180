//go:build lambda

package eventloop

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/probe"
)

// TestCatchesBrokenRouters shows that each routing claim test can fail: run against a local
// router (or a probe) that breaks its claim, each must decide "fail" (claimtest.CatchBroken).
// Their results go under results/sensitivity, as evidence about the tests.
func TestCatchesBrokenRouters(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("breaks the local router on purpose: needs %s=1", standInEnv)
	}
	claimtest.CatchBroken(t, cfg, brokenRouters...)
}

// brokenRouters are the routing claims' broken cases (claimtest.BrokenCases).
var brokenRouters = func() []claimtest.BrokenCase {
	nodeCPUInWorker := func(t *testing.T) *probe.Probe { return startBrokenNode(t, "node-cpu-in-worker.js") }
	// Every broken router also leaves lambda-web-logstream off every third answer, as Lambda may,
	// so that each claim is shown to fail on what remains. W8's also keeps every request off an
	// environment running a /cpu (Lambda may, under high sustained CPU): every /ping is then
	// throttled, and W8 still decides from its /cpu. The others run without that: it would keep
	// W6's co-locating router off the busy environment, and leave W7 and W12 no co-located /ping.
	omit := standInOmitLogstreamEvery
	noConcurrencyLimit := localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, ignoreConcurrencyLimit: true,
		broken: "the router ignores maxConcurrencyPerEnvironment"}
	return claimtest.BrokenCases(
		onRouter("W6/co-locate", pingAvoidsBusyClaim, pingAvoidsBusy, localRouter{policy: webrouter.CoLocate, omitLogstreamEvery: omit,
			broken: "the router puts each request in the busiest environment with a free slot"}),
		onRouter("W7/cpu-in-worker", coLocatedPingClaim, coLocatedPing(webendpoints.Node), localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, node: nodeCPUInWorker,
			broken: "node-cpu-in-worker.js: every /cpu spins in a worker thread"}),
		onRouter("W8/least-busy", twoOnOneSideClaim, twoOnOneSide, localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, cpuBusyLimit: 1,
			broken: "a strictly least-busy router never puts the second /cpu beside the first while the other environment is free"}),
		onRouter("W9/swapped-logstreams", idsAgreeClaim, idsAgree, localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, swapLogstreams: true,
			broken: "the router names another environment's logstream on every other answer"}),
		claimtest.BrokenCase{Name: "W12/no-concurrency-limit", Claim: concurrencyLoweredClaim, Broken: noConcurrencyLimit.broken,
			Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
				c, m := concurrencyLowered(t, noConcurrencyLimit, s)
				require.Equal(t, concurrencyLoweredClaim.IDs, c.IDs, "claims concurrencyLowered decides")
				return m
			}},
	)
}()

// onRouter is the case name: claim, measured by e on the Node endpoint of the broken router lr.
func onRouter(name string, claim claimtest.Claim, e experiment, lr localRouter) claimtest.BrokenCase {
	return claimtest.BrokenCase{Name: name, Claim: claim, Broken: lr.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measured(t, claim, e, lr.endpoint(t, webendpoints.Node, 0), s)
		}}
}

// TestWebThrottledTrialsAreNotEvidence: W7 on a router that keeps every request off an
// environment running a /cpu (Lambda may, under high sustained CPU) gets its /ping throttled
// whenever both /cpu hold both environments. The run survives it: each throttled /ping is counted
// with its status, none is taken as evidence of co-location, and the verdict is inconclusive,
// never pass or fail.
func TestWebThrottledTrialsAreNotEvidence(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("throttles on purpose through the local router: needs %s=1", standInEnv)
	}
	lr := localRouter{policy: webrouter.LeastBusy, cpuBusyLimit: 1, omitLogstreamEvery: standInOmitLogstreamEvery}
	c, m := coLocatedPing(webendpoints.Node)(t, lr.endpoint(t, webendpoints.Node, 0), claimtest.BrokenSettings(cfg, coLocatedPingClaim))
	m.Broken = "not broken: the router keeps every request off an environment running a /cpu, so a /ping with both busy is throttled"
	res := c.Decide(t, m)
	sum := m.Summary.(routingSummary)
	throttled := 0
	for _, tr := range m.Trials.([]routedTrial) {
		ping := tr.Of(pattern.KindPing)[0]
		if !ping.Throttled {
			continue // the /ping got to the router before a /cpu did: a race of a loaded machine
		}
		throttled++
		assert.Equal(t, http.StatusTooManyRequests, ping.Status, "trial %d: a throttled /ping's status", tr.Index)
		assert.True(t, tr.Placement.PingThrottled, "trial %d: placement.pingThrottled", tr.Index)
		assert.Zero(t, tr.Placement.PingEnv+tr.Placement.PingCoLocated, "trial %d: a throttled /ping was placed in an environment (%+v)", tr.Index, tr.Placement)
	}
	assert.Positive(t, throttled, "throttled /ping = 0; want the router to throttle them (%s)", res.Headline)
	assert.Equal(t, throttled, sum.PingThrottled.K, "summary's throttled /ping = %s; want %d (%s)", sum.PingThrottled, throttled, res.Headline)
	assert.Equal(t, verdict.Inconclusive, res.Verdict.Outcome, "verdict = %s; want inconclusive, the throttled trials being no evidence (%s)", res.Verdict.Outcome, res.Verdict.Reason)
	assert.Contains(t, res.Headline, "throttled", "the headline must say the /ping were throttled")
}
