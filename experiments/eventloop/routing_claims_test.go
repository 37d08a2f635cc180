//go:build lambda

package eventloop

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/pattern"
	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
	"github.com/serverless-claims/claims/harness/webdeploy"
	"github.com/serverless-claims/claims/harness/webrouter"
)

// The routing claims as tests. Each runs the article's pattern against a Web Function endpoint
// (routing_test.go says which) and decides from where each request ran.

// runtimes are the probes the article deployed as Web Functions.
var runtimes = []string{webdeploy.Node, webdeploy.Go}

func TestWebPingAvoidsBusyEnvironment(t *testing.T) { // W6
	p := platform(t)
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) { experiment(pingAvoidsBusy).check(t, p.endpoint(t, rt, 0)) })
	}
}

func TestWebPingWaitsWhenEveryEnvironmentBusy(t *testing.T) { // W7
	p := platform(t)
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) { coLocatedPing(rt).check(t, p.endpoint(t, rt, 0)) })
	}
}

func TestWebTwoCPUOnOneSide(t *testing.T) { // W8
	p := platform(t)
	if lr, ok := p.(localRouter); ok {
		// W8 says Lambda's router is not strictly least-busy: a strictly least-busy router never
		// puts the second /cpu beside the first while the other environment is free, so it is
		// this claim's breaking policy (TestWebClaimsCatchBrokenRouters). The stand-in that must
		// show it is a router that does not look at load.
		lr.policy = webrouter.Random
		p = lr
	}
	experiment(twoOnOneSide).check(t, p.endpoint(t, webdeploy.Node, 0))
}

func TestWebEnvIDMatchesLogstream(t *testing.T) { // W9
	experiment(idsAgree).check(t, platform(t).endpoint(t, webdeploy.Node, 0))
}

func TestWebLowerConcurrencyFewerCoLocated(t *testing.T) { // W12
	c, m := concurrencyLowered(t, platform(t), cfg)
	c.Check(t, m)
}

// routing is the family of the routing claims' results.
const routing = "eventloop.routing"

// pingAvoidsBusy is W6: with one /cpu in flight and another environment there, the /ping goes to
// the other environment, in every trial where one existed.
func pingAvoidsBusy(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := claimtest.Claim{IDs: []string{"W6"}, Group: "eventloop", Family: routing}
	r := measureRouting(t, w, cpuPattern(1, "", s), s)
	away := r.share(otherExisted, func(p placement) bool { return p.PingEnv != p.CPUEnvs[0] })
	return c, r.measurement(fmt.Sprintf("/ping in another environment than the busy one in %s trials where one existed; /ping %s", away, r.ping()),
		away.N, verdict.All("trials whose /ping went to another environment than the /cpu's", away))
}

// coLocatedPing is W7: with every environment busy with a /cpu, a Node /ping that lands beside
// one waits for it every time, and a Go /ping never does.
func coLocatedPing(runtime string) experiment {
	return func(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
		c := claimtest.Claim{IDs: []string{"W7"}, Group: "eventloop", Family: routing}
		r := measureRouting(t, w, cpuPattern(2, "", s), s)
		// Evidence: both /cpu in different environments (every environment busy), the /ping in
		// one of them after its /cpu had started, and envId agreeing with the logstream, so that
		// the /ping's and the /cpu's times are of one clock.
		waited := r.share(func(p placement) bool { return everyEnvBusy(p) && p.PingCoLocated == 1 && p.PingAfterCPU },
			func(p placement) bool { return p.PingWaited })
		check := verdict.None("co-located /ping that waited for the /cpu beside it", waited)
		if runtime == webdeploy.Node {
			check = verdict.All("co-located /ping that waited for the /cpu beside it", waited)
		}
		return c, r.measurement(fmt.Sprintf("%s: the /ping beside a /cpu waited in %s trials with every environment busy; /ping %s", runtime, waited, r.ping()),
			waited.N, check)
	}
}

// twoOnOneSide is W8: the router sometimes puts both /cpu in one environment while another one
// exists; one trial shows it.
func twoOnOneSide(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := claimtest.Claim{IDs: []string{"W8"}, Group: "eventloop", Family: routing}
	// At least w8Trials: a router that does this in half the trials shows it in one of 20 with
	// probability 1 - 2^-20; fewer trials would make the verdict a coin toss for a rarer router.
	s.Trials = max(s.Trials, w8Trials)
	r := measureRouting(t, w, cpuPattern(2, "", s), s)
	same := r.share(otherExisted, func(p placement) bool { return p.CPUEnvs[0] == p.CPUEnvs[1] })
	lo, hi := same.Wilson()
	ch := verdict.Some("trials with both /cpu in one environment while another existed", same)
	ch.Note = fmt.Sprintf("frequency %.2f, 95%% interval %.2f to %.2f", share(same), lo, hi)
	return c, r.measurement(fmt.Sprintf("two /cpu on one side in %s trials where another environment existed (%s)", same, ch.Note),
		same.N, ch)
}

// w8Trials is the fewest trials W8 runs.
const w8Trials = 20

// idsAgree is W9: the probe's envId and the platform's logstream agree, for every pair of a
// trial's requests, on whether the two ran in one environment.
func idsAgree(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := claimtest.Claim{IDs: []string{"W9"}, Group: "eventloop", Family: routing}
	r := measureRouting(t, w, cpuPattern(2, "", s), s)
	agree := r.share(func(placement) bool { return true }, func(p placement) bool { return p.Agree })
	return c, r.measurement(fmt.Sprintf("envId and logstream agreed in %s trials, over %d environments", agree, len(r.envs)),
		agree.N, verdict.All("trials whose envId and logstream agreed on which requests shared an environment", agree))
}

// concurrencyLowered is W12: with maxConcurrencyPerEnvironment lowered to 1, fewer /ping land in
// an environment while its /cpu runs. It runs on the Go probe, whose /ping handler starts as
// soon as the request arrives (W4, W5), so that its receivedAt says whether the /cpu was still
// running when the /ping got there; Node's handler would start only after the spin either way.
// Beside the share it reports the /ping's latency: when every environment is full Lambda queues
// a request until one is free, so fewer co-located pings need not be faster ones.
func concurrencyLowered(t *testing.T, p webPlatform, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	t.Helper()
	c := claimtest.Claim{IDs: []string{"W12"}, Group: "eventloop", Family: "eventloop.concurrency"}
	def := measureRouting(t, p.endpoint(t, webdeploy.Go, 0), cpuPattern(2, "", s), s)
	low := measureRouting(t, p.endpoint(t, webdeploy.Go, 1), cpuPattern(2, "", s), s)
	beside := func(p placement) bool { return p.PingBesideBusy }
	defShare, lowShare := def.share(everyEnvBusy, beside), low.share(everyEnvBusy, beside)
	ch := fewer("share of /ping beside a running /cpu, lowered vs default", lowShare, defShare)
	defP50, lowP50 := def.ping().P50Ms, low.ping().P50Ms
	sum := concurrencySummary{
		Default: def.summary(), Lowered: low.summary(),
		PingP50RatioLoweredToDefault: lowP50 / defP50, PingFaster: lowP50 < defP50,
		QueuedPings: low.share(everyEnvBusy, func(p placement) bool { return p.PingWaited }),
	}
	faster := "slower: the /ping waited for a free slot instead of beside the /cpu"
	if sum.PingFaster {
		faster = "faster"
	}
	m := def.measurement(fmt.Sprintf("/ping beside a running /cpu: %s at the default, %s at maxConcurrencyPerEnvironment 1; /ping p50 %.1f to %.1f ms (%s)",
		defShare, lowShare, defP50, lowP50, faster), 0, ch)
	m.Evidence = stats.Proportion{K: defShare.N + lowShare.N, N: len(def.trials) + len(low.trials)}
	m.Summary = sum
	m.Parameters = concurrencyParameters{parameters: def.parameters(), Default: webrouter.DefaultMaxConcurrency, Lowered: 1}
	m.Trials = map[string][]routedTrial{"default": def.routed(), "lowered": low.routed()}
	m.Target = &web{mode: def.w.mode, about: map[string]any{"default": def.w.about, "lowered": low.w.about}}
	require.Equal(t, def.w.mode, low.w.mode, "both endpoints on one platform")
	return c, m
}

// otherExisted selects the trials in which an environment other than the first /cpu's existed.
func otherExisted(p placement) bool { return p.OtherExisted }

// everyEnvBusy selects the trials whose two /cpu ran in two environments (with maxEnvironments 2,
// all of them) and whose ids agree, so that their clocks can be compared.
func everyEnvBusy(p placement) bool { return p.CPUEnvs[0] != p.CPUEnvs[1] && p.Agree }

// fewer checks that share a is below share b, their 95% Wilson intervals apart; intervals that
// overlap with a below b leave it open.
func fewer(name string, a, b stats.Proportion) verdict.Check {
	aLo, aHi := a.Wilson()
	bLo, bHi := b.Wilson()
	return verdict.Check{
		Name: name, Got: fmt.Sprintf("%s vs %s", a, b), Want: "the first below the second, their 95% intervals apart",
		Pass: aHi < bLo, Undecided: aHi >= bLo && share(a) < share(b),
		Note: fmt.Sprintf("intervals %.2f to %.2f and %.2f to %.2f", aLo, aHi, bLo, bHi),
	}
}

func share(p stats.Proportion) float64 {
	if p.N == 0 {
		return 0
	}
	return float64(p.K) / float64(p.N)
}

// placement is where one trial's requests ran, environments numbered from 1 in the order their
// logstreams were first seen.
type placement struct {
	CPUEnvs []int `json:"cpuEnvs"`
	PingEnv int   `json:"pingEnv"`
	// OtherExisted: an environment other than the first /cpu's answered both at or before this
	// trial and at or after it (the discovery requests before and after the trials count).
	OtherExisted bool `json:"otherExisted"`
	// PingCoLocated counts the /cpu in the /ping's environment, by logstream.
	PingCoLocated int `json:"pingCoLocated"`
	// Agree: envId and logstream agree, for every pair of the trial's requests, on whether the
	// two ran in one environment. Where they do not, no clocks of the trial are compared.
	Agree bool `json:"agree"`
	// PingAfterCPU: every co-located /cpu's handler started before the /ping's: the /ping reached
	// an environment already busy. One that got there first shows nothing about waiting.
	PingAfterCPU bool `json:"pingAfterCpu"`
	// PingWaited: the /ping's handler started at or after every co-located /cpu finished.
	PingWaited bool `json:"pingWaited"`
	// PingBesideBusy: the /ping's handler started while a co-located /cpu was running.
	PingBesideBusy bool `json:"pingBesideBusy"`
}

// routedTrial is a trial as a routing result keeps it.
type routedTrial struct {
	pattern.Trial
	Placement placement `json:"placement"`
}
