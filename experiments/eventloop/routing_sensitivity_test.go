//go:build lambda

package eventloop

import (
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/probe"
	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/webdeploy"
	"github.com/serverless-claims/claims/harness/webrouter"
)

// TestWebClaimsCatchBrokenRouters shows that each routing claim test can fail: run against a
// local router (or a probe) that breaks its claim, each must decide "fail". Their results go
// under results/sensitivity, as evidence about the tests.
func TestWebClaimsCatchBrokenRouters(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("breaks the local router on purpose: needs %s=1", standInEnv)
	}
	nodeCPUInWorker := func(t *testing.T) *probe.Probe { return startBrokenNode(t, "node-cpu-in-worker.js") }
	cases := []struct {
		name     string
		platform localRouter
		claim    func(t *testing.T, p webPlatform) (claimtest.Claim, claimtest.Measurement)
	}{
		{name: "W6/co-locate", platform: localRouter{policy: webrouter.CoLocate,
			broken: "the router puts each request in the busiest environment with a free slot"},
			claim: one(pingAvoidsBusy, webdeploy.Node)},
		{name: "W7/cpu-in-worker", platform: localRouter{policy: webrouter.LeastBusy, node: nodeCPUInWorker,
			broken: "node-cpu-in-worker.js: every /cpu spins in a worker thread"},
			claim: one(coLocatedPing(webdeploy.Node), webdeploy.Node)},
		{name: "W8/least-busy", platform: localRouter{policy: webrouter.LeastBusy,
			broken: "a strictly least-busy router never puts the second /cpu beside the first while the other environment is free"},
			claim: one(twoOnOneSide, webdeploy.Node)},
		{name: "W9/swapped-logstreams", platform: localRouter{policy: webrouter.LeastBusy, swapLogstreams: true,
			broken: "the router names another environment's logstream on every other answer"},
			claim: one(idsAgree, webdeploy.Node)},
		{name: "W12/no-concurrency-limit", platform: localRouter{policy: webrouter.LeastBusy, ignoreConcurrencyLimit: true,
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
