package coldstart

// The claims about a memory size's CPU share: T1, T2, T3 and T5.
//
// The model of Lambda's CPU (share, lambdalocal): the emulator and the function run in one cgroup
// whose CFS quota is the memory size's share of one CPU per period (CLAIMS_CPU_PERIOD_MS, 20 ms by
// default, the period measured on Lambda; TestThrottleSlices, T8, checks the model against it),
// and Init runs with one whole CPU until the runtime first asks for an event (Lambda's burst CPU
// for Init). The function trusts DynamoDB through the system's roots, which Go loads inside the
// first handshake, as on Lambda.
//
// Under a quota a process runs until the period's quota is spent, then waits for the next
// period, so a phase's time holds a whole number of throttles: at 128 MB about 20 ms each. A
// phase that costs less CPU than one period's quota (a warm GetItem) is throttled or not; its
// median sits in one mode or the other and its interval spans both when they are near even. So
// these claims are decided on means, whose bootstrap interval (stats.MeansCI) narrows with more
// cold starts whatever the modes: a check holds only when the whole interval is on the claim's
// side of its bound, fails only when it is wholly on the other. Each result keeps the medians,
// the throttling the kernel counted, the CPU the function was charged (its handshake and its
// first invocation, in the unit of the article's figure once its share is known) and every cold
// start.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/tlsca"
	"github.com/serverless-claims/claims/harness/verdict"
)

// arm is one kind of cold start in an experiment: a variant at a CPU share.
type arm struct {
	Variant string
	Share   share
}

// alternate runs n cold starts of each arm, taking the arms in turn (a, b, a, b, ...) so that
// whatever else the machine does falls on all of them alike, and returns them by arm.
func alternate(t *testing.T, s *stage, n int, arms ...arm) [][]coldStart {
	t.Helper()
	runs := make([][]coldStart, len(arms))
	for range n {
		for i, a := range arms {
			runs[i] = append(runs[i], s.startCold(t, a.Variant, a.Share))
		}
	}
	return runs
}

// answered says every invocation of c answered with the item: the cold start did what the
// function is for, and its figures are evidence.
func answered(c coldStart) bool {
	for _, inv := range append([]invoked{c.First, c.Second}, c.Later...) {
		if !inv.ok() || !inv.Answer.Found {
			return false
		}
	}
	return true
}

// evidential keeps the cold starts that answered, and counts them against all.
func evidential(runs []coldStart) ([]coldStart, stats.Proportion) {
	var kept []coldStart
	for _, c := range runs {
		if answered(c) {
			kept = append(kept, c)
		}
	}
	return kept, stats.Proportion{K: len(kept), N: len(runs)}
}

// figure is one figure of each cold start, in ms.
func figure(runs []coldStart, of func(coldStart) float64) []float64 {
	xs := make([]float64, len(runs))
	for i, c := range runs {
		xs[i] = of(c)
	}
	return xs
}

// The figures the claims read. Durations are the function's own measure of its handler
// (handlerMs): the emulator runs Init inside the first invoke, so its first REPORT Duration
// holds Init too, which Lambda's does not; each result keeps the REPORT beside it.
var (
	tlsMs      = func(c coldStart) float64 { return c.First.Answer.TLSMs }
	tlsCPUMs   = func(c coldStart) float64 { return c.First.Answer.TLSCPUMs }
	initMs     = func(c coldStart) float64 { return c.First.Answer.InitMs }
	firstMs    = func(c coldStart) float64 { return c.First.Answer.HandlerMs }
	firstCPUMs = func(c coldStart) float64 { return c.First.Answer.HandlerCPUMs }
	warmMs     = func(c coldStart) float64 { return c.Second.Answer.HandlerMs }
	// meanWarmMs is the mean Duration of the environment's warm invocations, the second and
	// any later ones.
	meanWarmMs = func(c coldStart) float64 {
		sum := c.Second.Answer.HandlerMs
		for _, inv := range c.Later {
			sum += inv.Answer.HandlerMs
		}
		return sum / float64(1+len(c.Later))
	}
	billedMs    = func(c coldStart) float64 { return c.First.Answer.InitMs + c.First.Answer.HandlerMs }
	throttledMs = func(c coldStart) float64 {
		if c.Throttling == nil {
			return 0
		}
		return c.Throttling.WaitedMs
	}
)

// statistic says, in every result of these claims, how they are decided.
const statistic = "means with percentile-bootstrap 95% intervals (stats.MeansCI): under a CPU quota a phase holds a whole number of throttles, so a median jumps between modes while a mean moves with the share of throttled cold starts"

// cpuCost is what the function's process was charged in CPU time, beside the wall times: the
// unit in which a figure measured at another CPU share compares.
type cpuCost struct {
	HandshakeMs       stats.Summary `json:"handshakeCpuMs"`
	FirstInvocationMs stats.Summary `json:"firstInvocationCpuMs"`
}

// costOf is runs' CPU cost.
func costOf(runs []coldStart) cpuCost {
	return cpuCost{HandshakeMs: stats.Summarize(figure(runs, tlsCPUMs)), FirstInvocationMs: stats.Summarize(figure(runs, firstCPUMs))}
}

// meansRatio is the ratio of the means of two figures: of one set of cold starts (paired), or of
// two (independent), with its bootstrap interval.
func meansRatio(t *testing.T, a []coldStart, of func(coldStart) float64, b []coldStart, ref func(coldStart) float64, paired bool) stats.Estimate {
	t.Helper()
	groups := []stats.Paired{{figure(a, of)}, {figure(b, ref)}}
	ratio := func(m [][]float64) float64 { return m[0][0] / m[1][0] }
	if paired {
		groups = []stats.Paired{{figure(a, of), figure(a, ref)}}
		ratio = func(m [][]float64) float64 { return m[0][0] / m[0][1] }
	}
	e, err := stats.MeansCI(groups, ratio, stats.Confidence)
	require.NoError(t, err)
	return e
}

// TestFirstCallDominatedByTLS is T1, on the SDK's own connection (T6): at 128 MB's CPU share, the
// first call's network set-up is almost all TLS handshake, because the handshake is where the CPU
// goes; with the machine's CPU, in the same run, the same handshake is several times shorter.
func TestFirstCallDominatedByTLS(t *testing.T) {
	needQuota(t)
	holds(t, measureSetup(t, setUp(t, tlsca.DefaultKeyKind), articleShare, t1ColdStarts*cfg.ColdStarts))
}

// t1ColdStarts is how many times CLAIMS_COLD_STARTS T1 runs in each arm. The handshake's share
// of the set-up's CPU is about 0.95, and a few connects that share the CPU with a garbage
// collection widen its interval: with twice the cold starts its low end stays clear of 0.9.
const t1ColdStarts = 2

// T1's bounds. The handshake's share is 90% (the article measured 99% of the time). The slowdown's factor 5
// is well under what the CPU share alone predicts for a handshake that is all CPU, the inverse of
// the share (13.8 at 128 MB), and well over what no quota gives (1).
const (
	minHandshakeShare = 0.9
	minQuotaSlowdown  = 5
)

// measureSetup runs n cold starts of the cold variant at sh, in turn with n at the same memory
// size without a quota (the control), and decides T1 from the first call's phases.
func measureSetup(t *testing.T, s *stage, sh share, n int) *results.Result {
	t.Helper()
	res := claim{
		ids:       []string{"T1", "T6"},
		text:      "a cold start's first DynamoDB call's network set-up is almost all TLS handshake, because at 128 MB the handshake has about 7% of a CPU: on the SDK's own connection the handshake is at least 90% of what DNS + TCP + TLS cost in CPU, and takes at least 5 times as long as with the machine's CPU",
		published: "DNS 7.3 ms, TCP 0.7 ms, TLS 745 ms (662 to 820): 99% of 753 ms",
	}.start(t, s, s.functionEnv("cold"), []share{sh, noQuota}, map[string]any{"coldStarts": n, "variant": "cold", "cpuPeriodMs": s.period.Milliseconds()})

	byArm := alternate(t, s, n, arm{"cold", sh}, arm{"cold", noQuota})
	res.Trials = map[string][]coldStart{"quota": byArm[0], "noQuota": byArm[1]}
	quota, evidence := evidential(byArm[0])
	control, _ := evidential(byArm[1])

	// Every first call must have made its own connection; that is what T6 checks in depth.
	var newConn, aboveBound stats.Proportion
	shares := make([]float64, len(quota))
	for i, c := range quota {
		newConn.N++
		aboveBound.N++
		if !c.First.Answer.Reused && c.First.Answer.TLSMs > 0 {
			newConn.K++
		}
		shares[i] = c.First.Answer.TLSMs / c.First.Answer.setupMs()
		if shares[i] >= minHandshakeShare {
			aboveBound.K++
		}
	}
	dns := func(c coldStart) float64 { return c.First.Answer.DNSMs }
	tcp := func(c coldStart) float64 { return c.First.Answer.ConnectMs }
	setupMs := func(c coldStart) float64 { return c.First.Answer.setupMs() }
	setupCPUMs := func(c coldStart) float64 { return c.First.Answer.setupCPUMs() }
	cpuShare := meansRatio(t, quota, tlsCPUMs, quota, setupCPUMs, true)
	handshakeShare := meansRatio(t, quota, tlsMs, quota, setupMs, true)
	slowdown := meansRatio(t, quota, tlsMs, control, tlsMs, false)
	tls, controlTLS := stats.Summarize(figure(quota, tlsMs)), stats.Summarize(figure(control, tlsMs))
	res.Summary = map[string]any{
		"statistic": statistic,
		"quota": map[string]any{
			"dnsMs": stats.Summarize(figure(quota, dns)), "tcpMs": stats.Summarize(figure(quota, tcp)), "tlsMs": tls,
			"throttledMs": stats.Summarize(figure(quota, throttledMs)), "cpu": costOf(quota),
		},
		"noQuota": map[string]any{
			"dnsMs": stats.Summarize(figure(control, dns)), "tcpMs": stats.Summarize(figure(control, tcp)), "tlsMs": controlTLS,
			"cpu": costOf(control),
		},
		// The check is on the CPU: in some cold starts a throttle falls in the TCP connect,
		// which takes about 20 ms of wall time though the connect costs next to no CPU, so the
		// wall-time share is near 0.8 in those and near 1 in the rest, and whether enough of
		// them do to bring an interval under 0.9 is chance. These are figures.
		"handshakeCpuShare":        cpuShare,
		"handshakeShare":           handshakeShare,
		"handshakeSharePerStart":   stats.MedianCI(shares, stats.Confidence),
		"slowdown":                 slowdown,
		"coldStartsShareAtLeast90": aboveBound,
		results.HeadlineKey: fmt.Sprintf("at %s: DNS %.1f ms, TCP %.1f ms, TLS %.1f ms mean (%.1f ms of CPU), the handshake %.0f%% of the set-up's CPU and %.0f%% of its time (at least 90%% in %s cold starts); with no quota TLS %.1f ms mean, %s times shorter (article: DNS 7.3, TCP 0.7, TLS 745 ms, 99%%)",
			sh, stats.Mean(figure(quota, dns)), stats.Mean(figure(quota, tcp)), tls.MeanMs, stats.Mean(figure(quota, tlsCPUMs)),
			100*cpuShare.Value, 100*handshakeShare.Value, aboveBound, controlTLS.MeanMs, slowdown),
	}
	decide(t, res, evidence,
		verdict.All("cold starts whose first call made its own connection, with a handshake", newConn),
		verdict.EstimateAtLeast(fmt.Sprintf("the handshake's share of the CPU DNS + TCP + TLS cost at %s", sh), cpuShare, minHandshakeShare,
			fmt.Sprintf("means %.2f ms / %.2f ms of CPU, over the same cold starts; of their time %s", stats.Mean(figure(quota, tlsCPUMs)), stats.Mean(figure(quota, setupCPUMs)), handshakeShare)),
		verdict.EstimateAtLeast(fmt.Sprintf("handshake at %s / with no quota", sh), slowdown, minQuotaSlowdown,
			fmt.Sprintf("means %.1f ms / %.1f ms, the same cold starts with the machine's CPU in turn in the same run", tls.MeanMs, controlTLS.MeanMs)),
	)
	return res
}

// TestFirstInvocationIsSlow is T2: at 128 MB, Init is fast and the first invocation slow,
// slower than Init and than a warm invocation of the same environment.
func TestFirstInvocationIsSlow(t *testing.T) {
	needQuota(t)
	holds(t, measureFirstInvocation(t, setUp(t, tlsca.DefaultKeyKind), articleShare, cfg.ColdStarts))
}

// T2's bounds. The claim is qualitative ("fast", "slow"); the article's figures are 868 ms
// against an Init of 104 ms, 8.3 times. Twice Init is the least gap that reads as slow against
// fast. Init is the function's measure from its process's start, whose clock ticks of 10 ms can
// lengthen it by up to 10 ms; each answer also carries initGoMs, from the Go program's own start
// (without the runtime's start), and the emulator's first REPORT Duration less the handler's is a
// third view. Five times a warm invocation is T1's factor for "slow".
const (
	minFirstOverInit = 2
	minFirstOverWarm = 5
)

// warmInvocationsT2 is how many warm invocations each of T2's environments gets. A warm
// invocation costs about what one period's quota at 128 MB allows, so it is throttled or not,
// and now and then a garbage collection makes one several times dearer: each environment's warm
// figure is the mean of several, which the bootstrap then compares with its first.
const warmInvocationsT2 = 4

// measureFirstInvocation runs n cold starts of the cold variant at sh and decides T2 from Init,
// the first invocation's Duration and the second's, compared within each environment.
func measureFirstInvocation(t *testing.T, s *stage, sh share, n int) *results.Result {
	t.Helper()
	res := claim{
		ids:       []string{"T2"},
		text:      "at 128 MB, Init is fast and the first handler invocation slow: its Duration is at least twice Init and at least 5 times a warm invocation's",
		published: "Init Duration 104 ms avg; first Duration 868 ms avg (912 in the earlier article)",
	}.start(t, s, s.functionEnv("cold"), []share{sh}, map[string]any{"coldStarts": n, "variant": "cold", "cpuPeriodMs": s.period.Milliseconds(), "warmInvocations": warmInvocationsT2})

	s.laterInvocations = warmInvocationsT2 - 1
	runs := alternate(t, s, n, arm{"cold", sh})[0]
	res.Trials = runs
	kept, evidence := evidential(runs)
	init, first, warm := stats.Summarize(figure(kept, initMs)), stats.Summarize(figure(kept, firstMs)), stats.Summarize(figure(kept, meanWarmMs))
	overInit, overWarm := meansRatio(t, kept, firstMs, kept, initMs, true), meansRatio(t, kept, firstMs, kept, meanWarmMs, true)
	res.Summary = map[string]any{
		"statistic":           statistic,
		"initMs":              init,
		"firstDurationMs":     first,
		"warmDurationMs":      warm, // each environment's mean over its warm invocations
		"secondDurationMs":    stats.Summarize(figure(kept, warmMs)),
		"firstOverInit":       overInit,
		"firstOverWarm":       overWarm,
		"cpu":                 costOf(kept),
		"emulatorFirstReport": stats.Summarize(figure(kept, func(c coldStart) float64 { return c.First.DurationMs })),
		results.HeadlineKey: fmt.Sprintf("at %s, means: Init %.1f ms, first Duration %.1f ms (%.1f ms of CPU), warm Duration %.1f ms (medians %.1f, %.1f, %.1f; article, averages: Init 104 ms, first Duration 868 ms)",
			sh, init.MeanMs, first.MeanMs, stats.Mean(figure(kept, firstCPUMs)), warm.MeanMs, init.P50Ms, first.P50Ms, warm.P50Ms),
	}
	decide(t, res, evidence,
		verdict.EstimateAtLeast("first Duration / Init", overInit, minFirstOverInit,
			fmt.Sprintf("means %.1f ms / %.1f ms, each environment's own Init, from the kernel's start time of its process", first.MeanMs, init.MeanMs)),
		verdict.EstimateAtLeast("first Duration / warm Duration", overWarm, minFirstOverWarm,
			fmt.Sprintf("means %.1f ms / %.1f ms, each environment's %d warm invocations, one CFS period apart", first.MeanMs, warm.MeanMs, warmInvocationsT2)),
	)
	return res
}

// TestWarmupRemovesHandshake is T3: a warm-up call in Init (ListTables, limit 1) leaves a live
// connection for the handler, whose first call then has no handshake of its own.
func TestWarmupRemovesHandshake(t *testing.T) {
	needQuota(t)
	holds(t, measureWarmup(t, setUp(t, tlsca.DefaultKeyKind), articleShare, cfg.ColdStarts))
}

// T3's bound on what the warm-up saves the first invocation, as a part of the cold variant's
// handshake. Removing the handshake saves all of it (1); the half leaves room for the first
// call's other work, which a warm-up can move or not, and is far from none (0), which is what a
// warm-up on a connection the handler cannot use saves.
const minSavedOfHandshake = 0.5

// measureWarmup runs n cold starts of the cold variant and n of the warm one at sh, in turn, and
// decides T3.
func measureWarmup(t *testing.T, s *stage, sh share, n int) *results.Result {
	t.Helper()
	res := claim{
		ids:       []string{"T3"},
		text:      "warming the SDK's connection in Init (one ListTables, limit 1) removes the handshake from the first invocation: its call reuses the connection, its Duration falls by at least half the cold variant's handshake, and Init + first Duration (what Lambda bills) falls",
		published: "first Duration 912 to 21 ms; Init 112 to 166 ms (+54); billed Init+Duration 1,025 to 188 ms (-82%); the warm-up call itself 75 ms",
	}.start(t, s, s.functionEnv("warm"), []share{sh}, map[string]any{"coldStarts": n, "cpuPeriodMs": s.period.Milliseconds()})

	byArm := alternate(t, s, n, arm{"cold", sh}, arm{"warm", sh})
	res.Trials = map[string][]coldStart{"cold": byArm[0], "warm": byArm[1]}
	cold, coldEvidence := evidential(byArm[0])
	warm, warmEvidence := evidential(byArm[1])

	// The SDK now and then closes a connection it could have pooled (the function reports
	// pooled = false, and why); a warm-up whose connection was not pooled left the handler
	// nothing to reuse, so only the others are evidence of reuse.
	var pooled, reused stats.Proportion
	for _, c := range warm {
		pooled.N++
		w := c.First.Answer.Warmup
		if w == nil || w.Error != "" || !w.Pooled {
			continue
		}
		pooled.K++
		reused.N++
		if c.First.Answer.Reused && c.First.Answer.TLSMs == 0 {
			reused.K++
		}
	}
	warmupMs := figure(warm, func(c coldStart) float64 {
		if c.First.Answer.Warmup == nil {
			return 0
		}
		return c.First.Answer.Warmup.TotalMs
	})
	saved, err := stats.MeansCI([]stats.Paired{{figure(cold, firstMs), figure(cold, tlsMs)}, {figure(warm, firstMs)}},
		func(m [][]float64) float64 { return (m[0][0] - m[1][0]) / m[0][1] }, stats.Confidence)
	require.NoError(t, err)
	billed := meansRatio(t, warm, billedMs, cold, billedMs, false)
	mean := func(runs []coldStart, of func(coldStart) float64) float64 { return stats.Mean(figure(runs, of)) }
	res.Summary = map[string]any{
		"statistic": statistic,
		"cold":      map[string]any{"initMs": stats.Summarize(figure(cold, initMs)), "firstDurationMs": stats.Summarize(figure(cold, firstMs)), "billedMs": stats.Summarize(figure(cold, billedMs)), "tlsMs": stats.Summarize(figure(cold, tlsMs)), "cpu": costOf(cold)},
		"warm": map[string]any{"initMs": stats.Summarize(figure(warm, initMs)), "firstDurationMs": stats.Summarize(figure(warm, firstMs)), "billedMs": stats.Summarize(figure(warm, billedMs)),
			"warmupMs": stats.Summarize(warmupMs), "cpu": costOf(warm)},
		"warmupsPooled":              pooled,
		"savedOfHandshake":           saved,
		"billedWarmOverCold":         billed,
		"firstDurationWarmOverCold":  meansRatio(t, warm, firstMs, cold, firstMs, false),
		"firstInvocationCPUWarmCold": []float64{mean(warm, firstCPUMs), mean(cold, firstCPUMs)},
		results.HeadlineKey: fmt.Sprintf("means, cold to warm: first Duration %.1f to %.1f ms (article 912 to 21), saving %s of the cold handshake (%.1f ms); Init %.1f to %.1f ms against a warm-up of %.1f ms (article 112 to 166, warm-up 75); Init + first Duration %.1f to %.1f ms (article 1,025 to 188); the first call reused the warm-up's connection in %s where it was pooled (%s)",
			mean(cold, firstMs), mean(warm, firstMs), saved, mean(cold, tlsMs), mean(cold, initMs), mean(warm, initMs), stats.Mean(warmupMs), mean(cold, billedMs), mean(warm, billedMs), reused, pooled),
	}
	// Evidence: both arms' cold starts answered, and most warm-ups left a connection to reuse;
	// the fewest of the three counts.
	evidence := coldEvidence
	for _, e := range []stats.Proportion{warmEvidence, pooled} {
		if e.K*evidence.N < evidence.K*e.N {
			evidence = e
		}
	}
	decide(t, res, evidence,
		verdict.All("warm cold starts whose first call reused the warm-up's pooled connection (no handshake in its trace)", reused),
		verdict.EstimateAtLeast("first Duration saved (cold - warm) / the cold variant's handshake", saved, minSavedOfHandshake,
			fmt.Sprintf("means (%.1f - %.1f) ms / %.1f ms, the cold variant in turn in the same run", mean(cold, firstMs), mean(warm, firstMs), mean(cold, tlsMs))),
		verdict.EstimateAtMost("Init + first Duration, warm / cold", billed, 1,
			fmt.Sprintf("means %.1f ms / %.1f ms, what Lambda bills for a cold start; lower means below 1", mean(warm, billedMs), mean(cold, billedMs))),
	)
	return res
}

// TestHandshakeScalesWithCPU is T5, the question the article left open: does more memory, and so
// more CPU, make the handshake faster? The cold variant at each memory size's share.
func TestHandshakeScalesWithCPU(t *testing.T) {
	needQuota(t)
	holds(t, measureScaling(t, setUp(t, tlsca.DefaultKeyKind), true, cfg.ColdStarts))
}

// scalingSizes are T5's memory sizes, from the article's 128 MB to one whole CPU (1,769 MB).
var scalingSizes = []int{128, 256, 512, 1024, 1769}

// minScaling is the factor between the two ends. The shares differ by 13.8 times; a handshake
// that is all CPU and spans many periods falls by about that much, one that fits in a period's
// quota not at all.
const minScaling = 4

// sizeRow is one memory size's line of T5's table.
type sizeRow struct {
	Share share         `json:"share"`
	TLSMs stats.Summary `json:"tlsMs"`
	CPU   cpuCost       `json:"cpu"`
	// FirstMs is the first invocation's Duration.
	FirstMs stats.Summary `json:"firstDurationMs"`
	// MBSeconds is the mean handshake times the memory size: what a bill by GB-seconds
	// follows, in MB·s.
	MBSeconds float64 `json:"handshakeMBSeconds"`
}

// measureScaling runs n cold starts of the cold variant at each size of scalingSizes, in turn,
// with a quota or (for the sensitivity test) without, and decides T5.
func measureScaling(t *testing.T, s *stage, quota bool, n int) *results.Result {
	t.Helper()
	arms := make([]arm, len(scalingSizes))
	shares := make([]share, len(scalingSizes))
	for i, mb := range scalingSizes {
		shares[i] = sized(mb)
		shares[i].Quota, shares[i].InitBurst = quota, quota
		arms[i] = arm{"cold", shares[i]}
	}
	res := claim{
		ids:       []string{"T5"},
		text:      "the handshake is slow because a 128 MB function has little CPU: more memory means more CPU and a faster handshake, at least 4 times faster at 1,769 MB (one CPU) than at 128 MB",
		published: "(hypothesis; the article leaves it open)",
	}.start(t, s, s.functionEnv("cold"), shares, map[string]any{"coldStarts": n, "variant": "cold", "cpuPeriodMs": s.period.Milliseconds()})

	byArm := alternate(t, s, n, arms...)
	trials := map[string][]coldStart{}
	rows := make([]sizeRow, len(arms))
	kept := make([][]coldStart, len(arms))
	evidence := stats.Proportion{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-22s %10s %10s %12s %16s %10s\n", "share", "TLS mean", "TLS p50", "TLS CPU mean", "first Dur. mean", "TLS MB·s")
	for i, a := range arms {
		trials[a.Share.String()] = byArm[i]
		var e stats.Proportion
		kept[i], e = evidential(byArm[i])
		evidence.K += e.K
		evidence.N += e.N
		rows[i] = sizeRow{Share: a.Share, TLSMs: stats.Summarize(figure(kept[i], tlsMs)), CPU: costOf(kept[i]), FirstMs: stats.Summarize(figure(kept[i], firstMs))}
		rows[i].MBSeconds = rows[i].TLSMs.MeanMs / 1000 * float64(a.Share.MemoryMB)
		fmt.Fprintf(&table, "%-22s %7.1f ms %7.1f ms %9.2f ms %13.1f ms %10.2f\n", a.Share, rows[i].TLSMs.MeanMs, rows[i].TLSMs.P50Ms, rows[i].CPU.HandshakeMs.MeanMs, rows[i].FirstMs.MeanMs, rows[i].MBSeconds)
	}
	t.Logf("T5, the cold variant's first handshake by memory size (%d cold starts each):\n%s", n, table.String())
	res.Trials = trials
	low, high := rows[0], rows[len(rows)-1]
	scaling := meansRatio(t, kept[0], tlsMs, kept[len(kept)-1], tlsMs, false)
	res.Summary = map[string]any{
		"statistic": statistic,
		"bySize":    rows,
		"table":     table.String(),
		"scaling":   scaling,
		results.HeadlineKey: fmt.Sprintf("mean handshake %.1f ms at %s, %.1f ms at %s: %s times faster, on %.2f and %.2f ms of CPU; handshake MB·s %.2f against %.2f",
			low.TLSMs.MeanMs, low.Share, high.TLSMs.MeanMs, high.Share, scaling, low.CPU.HandshakeMs.MeanMs, high.CPU.HandshakeMs.MeanMs, low.MBSeconds, high.MBSeconds),
	}
	decide(t, res, evidence,
		verdict.EstimateAtLeast(fmt.Sprintf("handshake at %s / at %s", low.Share, high.Share), scaling, minScaling,
			fmt.Sprintf("means %.1f ms / %.1f ms, the same cold starts at one CPU's share in turn in the same run", low.TLSMs.MeanMs, high.TLSMs.MeanMs)),
	)
	return res
}
