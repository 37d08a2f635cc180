//go:build lambda

package eventloop

import (
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/probe"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/results/family"
)

// TestCatchesBrokenRouters shows that each routing claim test can fail: run against a local
// router (or a probe) that breaks its claim, each must decide "fail" (claimtest.CatchBroken).
// Their results go under results/sensitivity, as evidence about the tests.
func TestCatchesBrokenRouters(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("breaks the local router on purpose: needs %s=1", standInEnv)
	}
	claimtest.CatchBroken(t, claimtest.Settings(t), brokenRouters...)
}

// brokenRouters are the routing claims' broken cases (claimtest.BrokenCases).
var brokenRouters = func() []claimtest.BrokenCase {
	nodeCPUInWorker := func(t *testing.T) *probe.Probe { return startBrokenNode(t, "node-cpu-in-worker.js") }
	// Every broken router also leaves lambda-web-logstream off every third answer, as Lambda may,
	// so that each claim is shown to fail on what remains. None keeps requests off an environment
	// running a /cpu (Lambda may, under high sustained CPU): it would keep W6's co-locating router
	// off the busy environment, leave W7 and W12 no co-located /ping, and leave W8 no trial where
	// the router showed room beside a busy environment, which W8 then does not decide on
	// (TestWebTwoCPUNotRefutedWhereTheRouterHadNoRoom). W8's broken router is a mature endpoint.
	omit := standInOmitLogstreamEvery
	noConcurrencyLimit := localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, ignoreConcurrencyLimit: true,
		broken: "the router ignores maxConcurrencyPerEnvironment"}
	return claimtest.BrokenCases(
		onRouter("W6/co-locate", pingAvoidsBusyClaim, pingAvoidsBusy, localRouter{policy: webrouter.CoLocate, omitLogstreamEvery: omit,
			broken: "the router puts each request in the busiest environment with a free slot"}),
		onRouter("W7/cpu-in-worker", coLocatedPingClaim, coLocatedPing(webendpoints.Node), localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit, node: nodeCPUInWorker,
			broken: "node-cpu-in-worker.js: every /cpu spins in a worker thread"}),
		onRouter("W8/least-busy", twoOnOneSideClaim, withArticleSpin(twoOnOneSide), localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: omit,
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

// withArticleSpin is e with a spin of at least the article's. W8 counts a trial whose second /cpu
// left, on the client's clock, in the first half of the first's round trip, as one routed while
// the first was in flight; on a machine whose cores are busy (make test runs the router's cases
// beside lint and unit) a send can reach the router later than that by more than half a 200 ms
// spin, after the first ended, and a least-busy router then puts it beside the first as often as
// not: 1 of 20 trials in one make test. The article's spin gives the send a few times that room.
func withArticleSpin(e experiment) experiment {
	return func(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
		s.SpinMs = max(s.SpinMs, settings.Article().SpinMs)
		return e(t, w, s)
	}
}

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
	c, m := coLocatedPing(webendpoints.Node)(t, lr.endpoint(t, webendpoints.Node, 0), claimtest.BrokenSettings(claimtest.Settings(t), coLocatedPingClaim))
	m.Broken = "not broken: the router keeps every request off an environment running a /cpu, so a /ping with both busy is throttled"
	res := c.Decide(t, m)
	sum := m.Summary.(family.RoutingSummary)
	throttled := 0
	for _, tr := range m.Trials.([]family.RoutedTrial) {
		ping := tr.Of(record.KindPing)[0]
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

// TestWebTwoCPUNotRefutedWhereTheRouterHadNoRoom: a strictly least-busy router refutes W8 on a
// mature endpoint (TestCatchesBrokenRouters/W8), but the same router on a young endpoint, whose
// limit stays at 1 through the run, or keeping every request off an environment running a /cpu,
// never shows room for a second /cpu beside a first: AWS documents both, so W8 is inconclusive,
// its reason counting the /ping throttled with every environment busy, never a fail.
func TestWebTwoCPUNotRefutedWhereTheRouterHadNoRoom(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("routes through the local router: needs %s=1", standInEnv)
	}
	s := claimtest.BrokenSettings(claimtest.Settings(t), twoOnOneSideClaim)
	for _, c := range []struct {
		name string
		lr   localRouter
	}{
		// The limit grows to the default 64 over matureAfter served requests, so it stays 1
		// until 1/63 of them, far more than the run sends, have been served.
		{"young-endpoint", localRouter{policy: webrouter.LeastBusy, youngLimit: 1, matureAfter: 1 << 20, omitLogstreamEvery: standInOmitLogstreamEvery}},
		{"cpu-avoiding", localRouter{policy: webrouter.LeastBusy, cpuBusyLimit: 1, omitLogstreamEvery: standInOmitLogstreamEvery}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.lr.broken = "not broken: " + c.name + ", the router has no room beside a busy environment"
			claim, m := twoOnOneSide(t, c.lr.endpoint(t, webendpoints.Node, 0), s)
			res := claim.Decide(t, m)
			assert.Equal(t, verdict.Inconclusive, res.Verdict.Outcome, "W8 verdict = %s; want inconclusive, never a refutation (%s; %s)", res.Verdict.Outcome, res.Verdict.Reason, res.Headline)
			assert.Contains(t, res.Verdict.Reason, "kept requests off busy environments", "the verdict's reason must say why the trials were no evidence")
			assert.Contains(t, res.Verdict.Reason, "/ping throttled with every environment busy", "the reason must count the throttled /ping")
			assert.Contains(t, res.Headline, "throttled", "the headline must count the throttled /ping")
		})
	}
}

// TestWebW8ReasonTellsAYoungEndpoint: where the /ping with both /cpu apart were throttled only
// up to some trial and ran beside a busy /cpu after it, the endpoint grew its limit with traffic
// during the run: the reason says it was too young; throttled throughout, or on and off, the
// reason says only that the router kept requests off busy environments.
func TestWebW8ReasonTellsAYoungEndpoint(t *testing.T) {
	// On the client's clock: the /cpu sent at 0 and 20 ms, answered at 300 and 320; the /ping sent
	// at 65 ms, in the first half of either's round trip.
	trial := record.Trial{Requests: []record.Request{
		{Kind: record.KindCPU, Status: http.StatusOK, SentMs: 0, DoneMs: 300},
		{Kind: record.KindCPU, Status: http.StatusOK, SentMs: 20, DoneMs: 320},
		{Kind: record.KindPing, Status: http.StatusOK, SentMs: 65, DoneMs: 301},
	}}
	apart := func(throttled bool) family.Placement {
		p := family.Placement{CPUEnvs: []int{1, 2}, PingEnv: 2, PingCoLocated: 1, OtherExisted: true, Placed: true, Agree: true, SecondCPUWhileFirstBusy: true}
		if throttled {
			p.PingEnv, p.PingCoLocated, p.PingThrottled = 0, 0, true
		}
		return p
	}
	together := family.Placement{CPUEnvs: []int{1, 1}, PingEnv: 2, OtherExisted: true, Placed: true, Agree: true, SecondCPUWhileFirstBusy: true}
	cases := []struct {
		name  string
		trial []family.Placement
		want  string
	}{
		{"throttled, then room", []family.Placement{apart(true), apart(true), apart(false), together, apart(false)}, "the endpoint was too young: with both environments busy, every /ping was throttled up to trial 2 and ran beside a busy /cpu from trial 3 on (2 of 4 throttled)"},
		{"throttled throughout", []family.Placement{apart(true), apart(true), apart(true)}, "the router kept requests off busy environments: 3 of 3 /ping throttled"},
		{"on and off", []family.Placement{apart(true), apart(false), apart(true)}, "the router kept requests off busy environments: 2 of 3 /ping throttled"},
		{"never throttled", []family.Placement{apart(false), together}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &routingRun{run: &run{}, placements: c.trial}
			for range c.trial {
				r.trials = append(r.trials, trial)
			}
			got := r.roomBesideBusy().reason()
			if c.want == "" {
				assert.Empty(t, got, "reason with no /ping throttled")
				return
			}
			assert.Contains(t, got, c.want, "reason")
		})
	}
	evidence := 0
	for _, p := range cases[0].trial {
		if w8Evidence(trial, p) {
			evidence++
		}
	}
	late := trial
	late.Requests = slices.Clone(trial.Requests)
	late.Requests[2].SentMs = 200 // after the first half of both /cpu's round trips
	assert.False(t, w8Evidence(late, apart(false)), "a /ping sent after the first half of both /cpu's round trips counted as room beside a busy one")
	bunched := trial
	bunched.Requests = slices.Clone(trial.Requests)
	bunched.Requests[2].SentMs = 22 // 2 ms after the second /cpu: the router may have taken it first
	assert.False(t, w8Evidence(bunched, together), "both /cpu on one side with the /ping sent 2 ms after the second counted as room beside a busy one")
	assert.Equal(t, 3, evidence, "W8's evidential trials of %q = %d; want the two with room and the one with both /cpu together", cases[0].name, evidence)
}

// TestWebLoweredConcurrencyAllThrottledIsInconclusive: at maxConcurrencyPerEnvironment 1 on two
// environments, both held by a /cpu, every /ping of the lowered run is throttled: none is
// evidence either way, so W12 is inconclusive saying so, and holds neither by refusal nor fails.
func TestWebLoweredConcurrencyAllThrottledIsInconclusive(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("throttles on purpose through the local router: needs %s=1", standInEnv)
	}
	lr := localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: standInOmitLogstreamEvery}
	c, m := concurrencyLowered(t, lr, claimtest.BrokenSettings(claimtest.Settings(t), concurrencyLoweredClaim))
	m.Broken = "not broken: two environments of one slot each, both held by a /cpu, throttle every /ping"
	res := c.Decide(t, m)
	low := m.Summary.(family.ConcurrencySummary).LoweredPings
	assert.Positive(t, low.Throttled.K, "throttled /ping at maxConcurrencyPerEnvironment 1 = %s; want some (%s)", low.Throttled, res.Headline)
	assert.Less(t, low.ServedBesideBusy.N, w12MinServed, "served /ping at the lowered setting = %s; want fewer than %d, the setting throttling them (%s)", low.ServedBesideBusy, w12MinServed, res.Headline)
	assert.Equal(t, verdict.Inconclusive, res.Verdict.Outcome, "W12 verdict = %s; want inconclusive, a throttled /ping being no evidence (%s)", res.Verdict.Outcome, res.Verdict.Reason)
	assert.Contains(t, res.Verdict.Reason, "throttled", "the verdict's reason must say the /ping were throttled")
	assert.Contains(t, res.Headline, "throttled /ping, no evidence either way", "the headline must count the throttled /ping")
}

// TestWebOneEnvironmentIsNoEvidence: on an endpoint of one environment no trial has another
// environment to route to, so W6, W7 and W8 have no evidence: each verdict is inconclusive,
// never fail, and each check's want states its rule rather than echo the empty count (W6 read
// "= 0/0; want 0/0" there, and failed).
func TestWebOneEnvironmentIsNoEvidence(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("routes through the local router: needs %s=1", standInEnv)
	}
	lr := localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: standInOmitLogstreamEvery, environments: 1}
	s := claimtest.Settings(t)
	for _, c := range []struct {
		name  string
		claim claimtest.Claim
		e     experiment
	}{
		{"W6", pingAvoidsBusyClaim, pingAvoidsBusy},
		{"W7", coLocatedPingClaim, coLocatedPing(webendpoints.Node)},
		{"W8", twoOnOneSideClaim, twoOnOneSide},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := measured(t, c.claim, c.e, lr.endpoint(t, webendpoints.Node, 0), claimtest.BrokenSettings(s, c.claim))
			m.Broken = "not broken: an endpoint of one environment, so no trial has another to route to"
			res := c.claim.Decide(t, m)
			assert.Equal(t, verdict.Inconclusive, res.Verdict.Outcome, "%s verdict on one environment = %s; want inconclusive, no trial being evidence (%s)", c.name, res.Verdict.Outcome, res.Verdict.Reason)
			assert.Contains(t, res.Verdict.Reason, "trials were evidence", "the reason must say too few trials were evidence")
			for _, ch := range res.Verdict.Checks {
				assert.NotRegexp(t, `/0\b`, ch.Want, "check %q: want = %q; want its rule, not a count of no trials", ch.Name, ch.Want)
				assert.Contains(t, ch.Want, "at least one", "check %q: want = %q; want the rule to say it needs at least one evidential trial", ch.Name, ch.Want)
			}
		})
	}
}
