//go:build lambda

package eventloop

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/results/family"
)

// The routing claims as tests. Each runs as the local claims do, through claimtest.Run: its body
// runs against the targets its modes start, here the Web Function endpoints of the run's
// platform (platform, routing_test.go: the local router or deployed endpoints), one subtest per
// runtime where there are two, and decides from where each request ran.

// runtimes are the probes the article deployed as Web Functions.
var runtimes = []string{webendpoints.Node, webendpoints.Go}

func TestWebPingAvoidsBusyEnvironment(t *testing.T) {
	claimtest.Run(t, testWebPingAvoidsBusyEnvironment, webFunctions(platform(t), runtimes...)...)
}

func testWebPingAvoidsBusyEnvironment(t *testing.T, w *web) { // W6
	check(t, pingAvoidsBusy, w, claimtest.Settings(t))
}

func TestWebPingWaitsWhenEveryEnvironmentBusy(t *testing.T) {
	claimtest.Run(t, testWebPingWaitsWhenEveryEnvironmentBusy, webFunctions(platform(t), runtimes...)...)
}

func testWebPingWaitsWhenEveryEnvironmentBusy(t *testing.T, w *web) { // W7
	check(t, coLocatedPing(function(t, w).Runtime), w, claimtest.Settings(t))
}

func TestWebTwoCPUOnOneSide(t *testing.T) {
	p := platform(t)
	if lr, ok := p.(localRouter); ok {
		// W8 says Lambda's router is not strictly least-busy: a strictly least-busy router never
		// puts the second /cpu beside the first while the other environment is free, so it is
		// this claim's breaking policy (TestCatchesBrokenRouters). The stand-in that must
		// show it is a router that does not look at load.
		lr.policy = webrouter.Random
		p = lr
	}
	claimtest.Run(t, testWebTwoCPUOnOneSide, webFunctions(p, webendpoints.Node)...)
}

func testWebTwoCPUOnOneSide(t *testing.T, w *web) { check(t, twoOnOneSide, w, claimtest.Settings(t)) } // W8

func TestWebEnvIDMatchesLogstream(t *testing.T) {
	claimtest.Run(t, testWebEnvIDMatchesLogstream, webFunctions(platform(t), webendpoints.Node)...)
}

func testWebEnvIDMatchesLogstream(t *testing.T, w *web) { // W9
	c, m := idsAgree(t, w, claimtest.Settings(t))
	res := c.Check(t, m)
	if r := function(t, w).Router; r != nil && r.OmitLogstreamEvery > 0 {
		// The local router leaves the header off every third answer: the claim must still pass
		// on what remains, and the result must say what was not evidence.
		sum := m.Summary.(family.RoutingSummary)
		assert.Positive(t, sum.LogstreamMissing, "answers without lambda-web-logstream = %d; want some, the router omits every %dth (%s)", sum.LogstreamMissing, r.OmitLogstreamEvery, res.Headline)
		assert.Contains(t, res.Headline, "trials not evidence", "the headline must say how many trials were not evidence")
		assert.Contains(t, res.Headline, "without lambda-web-logstream", "the headline must say how many answers came without the header")
	}
}

func TestWebLowerConcurrencyFewerCoLocated(t *testing.T) {
	p := platform(t)
	if lr, ok := p.(localRouter); ok {
		// A throttled /ping is no evidence, so W12 is decided only where /ping are served at the
		// lowered setting: the local endpoint gets a third environment, which it starts only
		// when the two running ones are full, as Lambda scales out below maxEnvironments.
		lr.environments, lr.initialEnvironments = environments+1, environments
		p = lr
	}
	// W12 compares two endpoints of one platform, the default and the lowered setting, both Go's.
	claimtest.Run(t, testWebLowerConcurrencyFewerCoLocated, claimtest.Mode[webPlatform]{
		Name: webendpoints.Go, Start: func(*testing.T) webPlatform { return p },
	})
}

func testWebLowerConcurrencyFewerCoLocated(t *testing.T, p webPlatform) { // W12
	c, m := concurrencyLowered(t, p, claimtest.Settings(t))
	res := c.Check(t, m)
	if _, ok := p.(localRouter); ok {
		// At 1, the /ping with both /cpu running finds the two running environments full and
		// is served by the third: none throttled, none beside a busy /cpu.
		sum := m.Summary.(family.ConcurrencySummary)
		low := sum.LoweredPings
		assert.Zero(t, low.Throttled.K, "throttled /ping at maxConcurrencyPerEnvironment 1 = %s; want none, a third environment could start (%s)", low.Throttled, res.Headline)
		assert.GreaterOrEqual(t, low.ServedBesideBusy.N, w12MinServed, "served /ping at the lowered setting = %s; want at least %d (%s)", low.ServedBesideBusy, w12MinServed, res.Headline)
		assert.Positive(t, low.Elsewhere.K, "/ping served in another environment than the /cpu at the lowered setting = %s; want some (%s)", low.Elsewhere, res.Headline)
	}
}

// routing is the family of the routing claims' results.
const routing = "eventloop.routing"

// The routing claims.
var (
	pingAvoidsBusyClaim     = claimtest.Claim{IDs: []string{"W6"}, Family: routing}
	coLocatedPingClaim      = claimtest.Claim{IDs: []string{"W7"}, Family: routing}
	twoOnOneSideClaim       = claimtest.Claim{IDs: []string{"W8"}, Family: routing}
	idsAgreeClaim           = claimtest.Claim{IDs: []string{"W9"}, Family: routing}
	concurrencyLoweredClaim = claimtest.Claim{IDs: []string{"W12"}, Family: "eventloop.concurrency"}
)

// pingAvoidsBusy is W6: with one /cpu in flight and another environment there, the /ping goes to
// the other environment, in every trial where one existed. A trial whose /cpu or /ping was
// throttled, or that neither id could place, is no evidence either way.
func pingAvoidsBusy(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := pingAvoidsBusyClaim
	r := measureRouting(t, w, cpuPattern(1, "", s), s)
	away := r.share(func(p family.Placement) bool { return otherExisted(p) && pingPlaced(p) }, func(p family.Placement) bool { return p.PingEnv != p.CPUEnvs[0] })
	return c, r.measurement(withNotEvidence(fmt.Sprintf("/ping in another environment than the busy one in %s trials where one existed; /ping %s", away, r.ping()), r),
		away.N, verdict.All("trials whose /ping went to another environment than the /cpu's", away))
}

// coLocatedPing is W7: with every environment busy with a /cpu, a Node /ping that lands beside
// one waits for it every time, and a Go /ping never does.
func coLocatedPing(runtime string) experiment {
	return func(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
		c := coLocatedPingClaim
		r := measureRouting(t, w, cpuPattern(2, "", s), s)
		// Evidence: both /cpu in different environments (every environment busy), the /ping in
		// one of them after its /cpu had started, and envId agreeing with the logstream, so that
		// the /ping's and the /cpu's times are of one clock. A throttled /ping landed nowhere, so
		// its trial is no evidence; the result counts them.
		waited := r.share(func(p family.Placement) bool { return everyEnvBusy(p) && p.PingCoLocated == 1 && p.PingAfterCPU },
			func(p family.Placement) bool { return p.PingWaited })
		check := verdict.None("co-located /ping that waited for the /cpu beside it", waited)
		if runtime == webendpoints.Node {
			check = verdict.All("co-located /ping that waited for the /cpu beside it", waited)
		}
		return c, r.measurement(withNotEvidence(fmt.Sprintf("%s: the /ping beside a /cpu waited in %s trials with every environment busy; /ping %s", runtime, waited, r.ping()), r),
			waited.N, check)
	}
}

// twoOnOneSide is W8: the router sometimes puts both /cpu in one environment while another one
// exists; one trial shows it. Only trials whose second /cpu was routed while the first was surely
// in flight count (one that got there after the first had finished found that environment idle),
// and of those only the ones where the router showed it could have put the second beside the
// first (w8Evidence): AWS documents that a new endpoint starts with a low per-environment limit
// and that Lambda may route nothing more to an environment with high sustained CPU, and under
// either a router never puts a second /cpu beside a first, which is not a refutation.
func twoOnOneSide(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := twoOnOneSideClaim
	// At least w8Trials: a router that does this in half the trials shows it in one of 20 with
	// probability 1 - 2^-20; fewer trials would make the verdict a coin toss for a rarer router.
	s.Trials = max(s.Trials, w8Trials)
	r := measureRouting(t, w, cpuPattern(2, "", s), s)
	same := r.w8Share()
	lo, hi := same.Wilson()
	ch := verdict.Some("trials with both /cpu in one environment while another existed and the router had room beside a busy one", same)
	ch.Note = fmt.Sprintf("frequency %.2f, 95%% interval %.2f to %.2f", share(same), lo, hi)
	room := r.roomBesideBusy()
	m := r.measurement(withNotEvidence(fmt.Sprintf("two /cpu on one side in %s trials where another environment existed and the router had room beside a busy one (%s); %s", same, ch.Note, room), r),
		same.N, ch)
	m.NotEvidence = room.reason()
	return c, m
}

// w8Share is W8's share: of the trials that are its evidence (w8Evidence), those with both /cpu
// in one environment.
func (r *routingRun) w8Share() stats.Proportion {
	var p stats.Proportion
	for i, pl := range r.placements {
		if w8Evidence(r.trials[i], pl) {
			p.N++
			if twoAtOnce(pl) {
				p.K++
			}
		}
	}
	return p
}

// w8Evidence selects W8's trials: both /cpu placed, the second routed while the first was in
// flight, another environment there, and the router shown, in that trial, to have had room beside
// a busy request: either the second /cpu is beside the first, or the /ping was routed beside a
// /cpu still in flight (pingRoutedBesideBusy). Where the /ping was throttled with both /cpu
// apart, the router may have had no room beside a busy environment (a young endpoint's low
// limit; an environment under high sustained CPU), and the trial says nothing either way. The
// /ping comes after both /cpu with no request served in between, so the room it found was there
// when the second /cpu was routed.
func w8Evidence(tr record.Trial, p family.Placement) bool {
	return cpusPlaced(p) && ((twoAtOnce(p) && pingLeftAfterSecondCPU(tr)) || pingRoutedBesideBusy(tr, p))
}

// pingLeftAfterSecondCPU says the trial's /ping left at least half the pattern's 15 ms after its
// second /cpu, on the client's clock. A client held up between the two sends (a busy machine's)
// sends them nearly together, and the router may then take the /ping first: a strictly least-busy
// router puts it in the free environment, and the second /cpu, the two environments now tied,
// beside the first. Two /cpu on one side show room beside a busy one only where the /ping cannot
// have held the other environment first; where the /ping itself ran beside a busy /cpu, it did
// not (pingRoutedBesideBusy).
func pingLeftAfterSecondCPU(tr record.Trial) bool {
	cpus, pings := tr.Of(record.KindCPU), tr.Of(record.KindPing)
	return len(cpus) == 2 && len(pings) > 0 && pings[0].SentMs-cpus[1].SentMs >= float64(pattern.PingAfterCPU.Milliseconds())/2
}

// pingRoutedBesideBusy says the trial's /ping was served, by both ids, in the environment of a
// /cpu whose round trip it was sent in the first half of, on the client's one clock: that /cpu
// was still in the endpoint when the /ping got there. The client's clock, not the probe's: a
// Node /ping's handler starts only after the spin beside it, whatever the router did. Where the
// client shares its cores with the spins (the local router), a /ping held up on its way can get
// there after the /cpu ended and still count: 0 to 2 of 20 trials on a router that never has
// room, in 20 runs here, far from the half of the trials W8 needs as evidence to decide.
func pingRoutedBesideBusy(tr record.Trial, p family.Placement) bool {
	if p.PingThrottled || p.PingEnv == 0 || !clocks(p) {
		return false
	}
	var ping *record.Request
	var cpus []record.Request
	for i, q := range tr.Requests {
		switch {
		case q.Kind == record.KindCPU:
			cpus = append(cpus, q)
		case ping == nil:
			ping = &tr.Requests[i]
		}
	}
	for k, c := range cpus {
		if k < len(p.CPUEnvs) && p.CPUEnvs[k] == p.PingEnv && c.Served() && 2*ping.SentMs < c.SentMs+c.DoneMs {
			return true
		}
	}
	return false
}

// roomBesideBusy counts, over the trials whose two /cpu ran apart in W8's selection (cpusPlaced),
// what became of the /ping sent while both ran, in trial order: the client's evidence of whether
// the router had room beside a busy environment.
type roomBesideBusy struct {
	apart      int // trials with both /cpu placed, apart, the second routed while the first ran
	throttled  int // of those, the /ping throttled (429)
	beside     int // of those, the /ping served beside a /cpu in flight
	lastThrott int // the last such trial (from 1) whose /ping was throttled; 0 for none
	firstRoom  int // the first such trial (from 1) whose /ping ran beside a busy /cpu; 0 for none
}

func (r *routingRun) roomBesideBusy() roomBesideBusy {
	var b roomBesideBusy
	for i, p := range r.placements {
		if !cpusPlaced(p) || twoAtOnce(p) {
			continue
		}
		b.apart++
		switch {
		case p.PingThrottled:
			b.throttled++
			b.lastThrott = i + 1
		case pingRoutedBesideBusy(r.trials[i], p):
			b.beside++
			if b.firstRoom == 0 {
				b.firstRoom = i + 1
			}
		}
	}
	return b
}

// String reads "/ping with both /cpu apart: 3 of 20 throttled, 17 beside a busy /cpu".
func (b roomBesideBusy) String() string {
	return fmt.Sprintf("/ping with both /cpu apart: %d of %d throttled, %d beside a busy /cpu", b.throttled, b.apart, b.beside)
}

// reason says, for an inconclusive verdict, why trials were no evidence of where the router would
// put a second /cpu: a young endpoint whose throttling stopped once it had served enough, or a
// router that kept requests off busy environments throughout; "" where no /ping was throttled.
func (b roomBesideBusy) reason() string {
	switch {
	case b.throttled == 0:
		return ""
	case b.firstRoom > b.lastThrott:
		return fmt.Sprintf("the endpoint was too young: with both environments busy, every /ping was throttled up to trial %d and ran beside a busy /cpu from trial %d on (%d of %d throttled), as a new endpoint's limit starts low and grows with traffic",
			b.lastThrott, b.firstRoom, b.throttled, b.apart)
	default:
		return fmt.Sprintf("the router kept requests off busy environments: %d of %d /ping throttled with every environment busy (AWS documents both a new endpoint's low starting limit and no new requests to an environment with high sustained CPU), so it never showed room for a second /cpu beside a first",
			b.throttled, b.apart)
	}
}

// w8Trials is the fewest trials W8 runs.
const w8Trials = 20

// w12MinServed is the fewest served /ping (both /cpu apart) W12 decides on at each setting: with
// fewer, even none of them beside a busy /cpu leaves the share's 95% Wilson interval reaching
// above one half (its upper end for 0 of n is 3.84/(n+3.84), below 0.5 from n = 4), so the
// served /ping could not show that the setting keeps them off busy environments more often than
// a coin would.
const w12MinServed = 4

// idsAgree is W9: the probe's envId and the platform's logstream agree, for every pair of a
// trial's requests that both carried the header, on whether the two ran in one environment. An
// answer without lambda-web-logstream (Lambda sends it "when present") is not evidence; a trial
// with no such pair left is none, and the result says how many.
func idsAgree(t *testing.T, w *web, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	c := idsAgreeClaim
	r := measureRouting(t, w, cpuPattern(2, "", s), s)
	agree := r.share(idsChecked, func(p family.Placement) bool { return p.Agree })
	pairs, partial := 0, 0
	for _, p := range r.placements {
		pairs += p.PairsChecked
		if p.LogstreamMissing > 0 && p.PairsChecked > 0 {
			partial++
		}
	}
	headline := fmt.Sprintf("envId and logstream agreed in %s trials with a pair to check (%d pairs), over %d environments; %d of %d trials not evidence, %d checked on part of their answers",
		agree, pairs, len(r.envs), len(r.trials)-agree.N, len(r.trials), partial)
	return c, r.measurement(withNotEvidence(headline, r), agree.N,
		verdict.All("trials whose envId and logstream agreed on which requests shared an environment", agree))
}

// concurrencyLowered is W12: with maxConcurrencyPerEnvironment lowered to 1, fewer /ping land in
// an environment while its /cpu runs. It runs on the Go probe, whose /ping handler starts as soon
// as the request arrives (W4, W5), so that its receivedAt says whether the /cpu was still
// running when the /ping got there; Node's handler would start only after the spin either way.
// At 1 on two environments each /ping arrives while both /cpu hold both slots, and Lambda then
// throttles it at once (web-functions-scaling): a throttled /ping ran in no environment, so it
// is no evidence either way and stays out of the shares; the result counts and names them, says
// of each served /ping whether it was placed elsewhere or queued, and reports the latency of the
// served ones. With fewer than w12MinServed /ping served at either setting, W12 is inconclusive.
func concurrencyLowered(t *testing.T, p webPlatform, s settings.Settings) (claimtest.Claim, claimtest.Measurement) {
	t.Helper()
	c := concurrencyLoweredClaim
	def := measureRouting(t, p.endpoint(t, webendpoints.Go, 0), cpuPattern(2, "", s), s)
	low := measureRouting(t, p.endpoint(t, webendpoints.Go, 1), cpuPattern(2, "", s), s)
	// The claim is about where a /ping lands: in an environment busy with a /cpu is beside one
	// that had not finished, whether its handler had started yet or not (a loaded machine can
	// start the /cpu's handler after the /ping's), since the endpoint's limit counts requests in
	// flight. A throttled /ping landed in no environment: it says nothing of where the router
	// puts a /ping it serves, so it is out of the share (N counts served /ping only), counted in
	// the outcomes and named in the headline. The selection is the trials whose two /cpu ran in
	// two environments with ids that agree.
	served := func(p family.Placement) bool { return everyEnvBusy(p) && !p.PingThrottled }
	beside := func(p family.Placement) bool { return p.PingBesideInFlight }
	defShare, lowShare := def.share(served, beside), low.share(served, beside)
	defOut, lowOut := def.pingOutcomes(), low.pingOutcomes()
	ch := fewer("share of served /ping beside an unfinished /cpu, lowered vs default", lowShare, defShare)
	if lowShare.N < w12MinServed || defShare.N < w12MinServed {
		ch = verdict.Check{
			Name: "served /ping with both /cpu apart, lowered and default", Got: fmt.Sprintf("%d (%s throttled) and %d (%s throttled)", lowShare.N, lowOut.Throttled, defShare.N, defOut.Throttled),
			Want: fmt.Sprintf("at least %d at each setting", w12MinServed), Undecided: true,
		}
	}
	ch.Note = strings.TrimPrefix(ch.Note+fmt.Sprintf("; lowered: %s; default: %s", lowOut, defOut), "; ")
	defPing, lowPing := def.ping(), low.ping()
	sum := family.ConcurrencySummary{Default: def.summary(), Lowered: low.summary(), DefaultPings: defOut, LoweredPings: lowOut}
	latency := fmt.Sprintf("no /ping served at the lowered setting (%s throttled)", lowOut.Throttled)
	if defPing.N > 0 && lowPing.N > 0 {
		ratio := lowPing.P50Ms / defPing.P50Ms
		sum.PingP50RatioLoweredToDefault, sum.PingFaster = &ratio, lowPing.P50Ms < defPing.P50Ms
		faster := "not faster"
		if sum.PingFaster {
			faster = "faster"
		}
		latency = fmt.Sprintf("served /ping p50 %.1f to %.1f ms (%s; %d served at the lowered setting)", defPing.P50Ms, lowPing.P50Ms, faster, lowPing.N)
	}
	m := def.measurement(fmt.Sprintf("served /ping beside an unfinished /cpu: %s at the default, %s at maxConcurrencyPerEnvironment 1; %s; throttled /ping, no evidence either way: %s at the lowered setting, %s at the default",
		defShare, lowShare, latency, lowOut.Throttled, defOut.Throttled), 0, ch)
	if lowShare.N < w12MinServed {
		m.NotEvidence = fmt.Sprintf("too few /ping served at maxConcurrencyPerEnvironment 1: %d of %d with both /cpu apart were throttled (429), which is no evidence either way", lowOut.Throttled.K, lowOut.Throttled.N)
	}
	m.Evidence = stats.Proportion{K: defShare.N + lowShare.N, N: len(def.trials) + len(low.trials)}
	m.Summary = sum
	m.Parameters = family.ConcurrencyParameters{EventLoopParameters: def.parameters(), Default: webrouter.DefaultMaxConcurrency, Lowered: 1}
	m.Trials = family.ConcurrencyTrials{Default: def.routed(), Lowered: low.routed()}
	m.Target = &web{mode: def.w.mode, about: family.ConcurrencyTarget{Default: def.w.about.(family.WebFunction), Lowered: low.w.about.(family.WebFunction)}}
	require.Equal(t, def.w.mode, low.w.mode, "both endpoints on one platform")
	return c, m
}

// withNotEvidence adds to a headline what kept r's trials from being evidence, if anything did.
func withNotEvidence(headline string, r *routingRun) string {
	if ne := notEvidence(r.summary()); ne != "" {
		return headline + "; " + ne
	}
	return headline
}

// otherExisted selects the trials in which an environment other than the first /cpu's existed.
func otherExisted(p family.Placement) bool { return p.OtherExisted }

// pingPlaced selects the trials whose /cpu and /ping were served and placed: a throttled request
// ran nowhere, so it is never evidence of where requests go.
func pingPlaced(p family.Placement) bool {
	return p.Placed && p.Throttled == 0 && p.PingEnv != 0 && !slices.Contains(p.CPUEnvs, 0)
}

// cpusPlaced selects W8's trials: another environment existed, both /cpu were served and placed
// with ids that agree (the /ping may have been throttled), and the second was routed while the
// first was in flight.
func cpusPlaced(p family.Placement) bool {
	return p.OtherExisted && clocks(p) && len(p.CPUEnvs) == 2 && !slices.Contains(p.CPUEnvs, 0) && p.SecondCPUWhileFirstBusy
}

// twoAtOnce holds when both /cpu ran in one environment.
func twoAtOnce(p family.Placement) bool { return p.CPUEnvs[0] == p.CPUEnvs[1] }

// idsChecked selects the trials with a pair of answers that both carried a logstream (W9).
func idsChecked(p family.Placement) bool { return p.PairsChecked > 0 }

// everyEnvBusy selects the trials whose two /cpu ran in two environments (with maxEnvironments 2,
// all of them) and whose ids agree, so that their clocks can be compared.
func everyEnvBusy(p family.Placement) bool {
	return len(p.CPUEnvs) == 2 && !slices.Contains(p.CPUEnvs, 0) && p.CPUEnvs[0] != p.CPUEnvs[1] && clocks(p)
}

// fewer checks that share a is below share b, their 95% Wilson intervals apart. It fails where a
// is not below b's own interval: a share that b's sampling alone could give shows no reduction,
// so a single late /ping in a handful of trials (a loaded machine's) cannot turn "no fewer" into
// "left open". Intervals that overlap with a below b's interval leave it open. Its bound is a's
// upper end at most b's lower end, the ends whose gap it decides on (shares, no unit); the check
// wants the gap open, so on the bound it does not hold.
func fewer(name string, a, b stats.Proportion) verdict.Check {
	aLo, aHi := a.Wilson()
	bLo, bHi := b.Wilson()
	return verdict.Check{
		Name: name, Got: fmt.Sprintf("%s vs %s", a, b), Want: "the first below the second, their 95% intervals apart",
		Pass: aHi < bLo, Undecided: aHi >= bLo && share(a) < bLo,
		Note:  fmt.Sprintf("intervals %.2f to %.2f and %.2f to %.2f", aLo, aHi, bLo, bHi),
		Bound: &verdict.Bound{Figure: aHi, Limit: bLo, Side: verdict.BoundAtMost},
	}
}

func share(p stats.Proportion) float64 {
	if p.N == 0 {
		return 0
	}
	return float64(p.K) / float64(p.N)
}

// TestWebFewerDecidesOnTheIntervals: W12's rule. A lowered share whose interval clears the
// default's passes; one the default's own interval holds fails, a single late /ping in a few
// trials included; one below the default's interval whose interval still reaches it is open.
func TestWebFewerDecidesOnTheIntervals(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b stats.Proportion
		want verdict.Outcome
	}{
		{"none of four beside, against all", stats.Proportion{K: 0, N: 4}, stats.Proportion{K: 4, N: 4}, verdict.Pass},
		{"one late /ping of four", stats.Proportion{K: 3, N: 4}, stats.Proportion{K: 4, N: 4}, verdict.Fail},
		{"the same share", stats.Proportion{K: 4, N: 4}, stats.Proportion{K: 4, N: 4}, verdict.Fail},
		{"more", stats.Proportion{K: 4, N: 4}, stats.Proportion{K: 2, N: 4}, verdict.Fail},
		{"below, the intervals overlapping", stats.Proportion{K: 1, N: 4}, stats.Proportion{K: 4, N: 4}, verdict.Inconclusive},
	} {
		c := fewer("share", tc.a, tc.b)
		got := verdict.Decide(stats.Proportion{K: 1, N: 1}, c).Outcome
		assert.Equal(t, tc.want, got, "%s: fewer(%s, %s) = %s; want %s (%s)", tc.name, tc.a, tc.b, got, tc.want, c.Note)
	}
}
