//go:build lambda

package eventloop

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/probe"
)

// TestWebClaimsCatchBrokenRouters shows that each routing claim test can fail: run against a
// local router (or a probe) that breaks its claim, each must decide "fail". Their results go
// under results/sensitivity, as evidence about the tests.
func TestWebClaimsCatchBrokenRouters(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("breaks the local router on purpose: needs %s=1", standInEnv)
	}
	nodeCPUInWorker := func(t *testing.T) *probe.Probe { return startBrokenNode(t, "node-cpu-in-worker.js") }
	// Every broken router also leaves lambda-web-logstream off every third answer, as Lambda may,
	// so that each claim is shown to fail on what remains. W8's also keeps every request off an
	// environment running a /cpu (Lambda may, under high sustained CPU): every /ping is then
	// throttled, and W8 still decides from its /cpu. The others run without that: it would keep
	// W6's co-locating router off the busy environment, and leave W7 and W12 no co-located /ping.
	omit := standInOmitLogstreamEvery
	cases := []struct {
		name     string
		platform localRouter
		claim    func(t *testing.T, p webPlatform) (claimtest.Claim, claimtest.Measurement)
	}{
		{name: "W6/co-locate", platform: localRouter{policy: webrouter.CoLocate, omitLogstreamEvery: omit,
			broken: "the router puts each request in the busiest environment with a free slot"},
			claim: one(pingAvoidsBusy, webendpoints.Node)},
		{name: "W7/cpu-in-worker", platform: localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, node: nodeCPUInWorker,
			broken: "node-cpu-in-worker.js: every /cpu spins in a worker thread"},
			claim: one(coLocatedPing(webendpoints.Node), webendpoints.Node)},
		{name: "W8/least-busy", platform: localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, cpuBusyLimit: 1,
			broken: "a strictly least-busy router never puts the second /cpu beside the first while the other environment is free"},
			claim: one(twoOnOneSide, webendpoints.Node)},
		{name: "W9/swapped-logstreams", platform: localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, swapLogstreams: true,
			broken: "the router names another environment's logstream on every other answer"},
			claim: one(idsAgree, webendpoints.Node)},
		{name: "W12/no-concurrency-limit", platform: localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, ignoreConcurrencyLimit: true,
			broken: "the router ignores maxConcurrencyPerEnvironment"},
			claim: func(t *testing.T, p webPlatform) (claimtest.Claim, claimtest.Measurement) {
				return concurrencyLowered(t, p, brokenSettings())
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			claim, m := c.claim(t, c.platform)
			m.Broken = c.platform.broken
			claimtest.CatchesBroken(t, claim.Decide(t, m))
		})
	}
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
	c, m := one(coLocatedPing(webendpoints.Node), webendpoints.Node)(t, lr)
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

// one runs e on p's endpoint of runtime with the short settings.
func one(e experiment, runtime string) func(t *testing.T, p webPlatform) (claimtest.Claim, claimtest.Measurement) {
	return func(t *testing.T, p webPlatform) (claimtest.Claim, claimtest.Measurement) {
		t.Helper()
		return e(t, p.endpoint(t, runtime, 0), brokenSettings())
	}
}

// brokenSettings are the run's settings with at most four trials: a broken router breaks its
// claim in every trial, and four show it.
func brokenSettings() settings.Settings {
	s := cfg
	s.Trials = min(cfg.Trials, 4)
	return s
}
