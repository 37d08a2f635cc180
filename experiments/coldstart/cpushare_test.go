package coldstart

// The claims about a memory size's CPU share: T1, T2, T3 and T5.
//
// The model of Lambda's CPU (share, lambdalocal): the emulator and the function run in a cgroup
// whose CFS quota is the memory size's share of one CPU per period (CLAIMS_CPU_PERIOD_MS, 100 ms
// by default, the and the kernel's default; Lambda does not publish its own), and Init
// runs with one whole CPU until the runtime first asks for an event (Lambda's burst CPU for
// Init). The function trusts DynamoDB through the system's roots, which Go loads inside the
// first handshake, as on Lambda.
//
// Under a quota a process runs until the period's quota is spent, then waits for the next period:
// at 128 MB, 7.2 ms of CPU and then about 93 ms of nothing, per 100 ms. A phase either holds such
// a wait or it does not, so its times are a mode and a few far outliers (here about one cold
// start in ten has a throttle in its handler). The claims are decided on medians, as the issue
// states T3's, from their distribution-free confidence intervals (stats.MedianCI, after x/perf's
// benchmath): a check holds only when the whole interval is on the claim's side of its bound,
// fails only when it is wholly on the other, and is otherwise left open, which makes the verdict
// inconclusive. A mean would follow the few throttled cold starts, whose count in 20 swings from
// run to run; each result keeps the means, the throttling the kernel counted, and every cold
// start beside the medians.
//
// What the default model finds, and the tests assert. A Go function's first handshake costs
// about 3 ms of CPU (the system's roots, about 2 ms, and the cryptography), and its whole first
// invocation about 5 ms. After Init's burst the handler starts with a fresh quota of 7.2 ms, so the
// handshake is seldom slowed, and T1's slowdown, T2 and T5 come out refuted, their intervals far
// below their bounds, except in a run where more throttles than usual fall in the handler (one
// cold start in ten is usual, three in ten happen under load), which leaves T2, and more rarely T1
// or T5, open. T3's warm-up does take the handshake out of the first invocation, which falls from
// about 5.5 to 1 ms, right at the factor of 5, while Init + first Duration does not fall
// (the warm-up costs in Init about what it saves): inconclusive, or now and then refuted. So the
// tests assert that none of the four is borne out (claimtest.NotBorneOut), which cannot flip with
// the machine's noise and fails the day one of them holds; the result says which verdict it was.
// The verdicts turn on the period: at 20 ms the handshake spans periods and T1, T2 and T5 hold, at
// 50 ms T3 holds (TestClaimTestsCatchBrokenFunctions runs both), and no period makes all four hold
// for this function, whose handshake is cheap next to the article's (745 ms at 7% of a CPU is
// about 54 ms of CPU). A user who knows Lambda's period can set it.

import (
	"fmt"
	"strings"
	"testing"

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

// answered says both invocations of c answered with the item: the cold start did what the
// function is for, and its figures are evidence.
func answered(c coldStart) bool {
	return c.First.ok() && c.First.Answer.Found && c.Second.ok() && c.Second.Answer.Found
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
	tlsMs       = func(c coldStart) float64 { return c.First.Answer.TLSMs }
	setupMs     = func(c coldStart) float64 { return c.First.Answer.setupMs() }
	initMs      = func(c coldStart) float64 { return c.First.Answer.InitMs }
	firstMs     = func(c coldStart) float64 { return c.First.Answer.HandlerMs }
	warmMs      = func(c coldStart) float64 { return c.Second.Answer.HandlerMs }
	billedMs    = func(c coldStart) float64 { return c.First.Answer.InitMs + c.First.Answer.HandlerMs }
	throttledMs = func(c coldStart) float64 {
		if c.Throttling == nil {
			return 0
		}
		return c.Throttling.WaitedMs
	}
)

// TestFirstCallDominatedByTLS is T1, on the SDK's own connection (T6): at 128 MB's CPU share, the
// first call's network set-up is almost all TLS handshake, because the handshake is where the CPU
// goes; with the machine's CPU, in the same run, the same handshake is several times shorter.
func TestFirstCallDominatedByTLS(t *testing.T) {
	needQuota(t)
	notBorneOut(t, measureSetup(t, setUp(t, tlsca.DefaultKeyKind), articleShare, cfg.ColdStarts),
		"with Init's burst and a 100 ms CFS period, the handshake's share holds, but its ~3 ms of CPU fits in one period's quota at 128 MB (7.2 ms), so the share does not slow it")
}

// T1's bounds. The handshake's share is the 90% (the article measured 99%). The factor 5
// is the issue's; what the CPU share alone predicts is the inverse of the share, 13.8 at 128 MB,
// for a handshake that is all CPU, less what is not CPU (the loopback round trips).
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
		text:      "a cold start's first DynamoDB call's network set-up is almost all TLS handshake, because at 128 MB the handshake has about 7% of a CPU: on the SDK's own connection the handshake is at least 90% of DNS + TCP + TLS, and at least 5 times as long as with the machine's CPU",
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
	tls, controlTLS := stats.MedianCI(figure(quota, tlsMs), stats.Confidence), stats.MedianCI(figure(control, tlsMs), stats.Confidence)
	res.Summary = map[string]any{
		"quota": map[string]any{
			"dnsMs": stats.Summarize(figure(quota, dns)), "tcpMs": stats.Summarize(figure(quota, tcp)), "tlsMs": stats.Summarize(figure(quota, tlsMs)),
			"tlsMedian": tls, "throttledMs": stats.Summarize(figure(quota, throttledMs)),
		},
		"noQuota": map[string]any{
			"dnsMs": stats.Summarize(figure(control, dns)), "tcpMs": stats.Summarize(figure(control, tcp)), "tlsMs": stats.Summarize(figure(control, tlsMs)),
			"tlsMedian": controlTLS,
		},
		"handshakeShare": stats.MedianCI(shares, stats.Confidence),
		// The issue asks for the share in every cold start; a throttle that falls in the TCP
		// connect instead makes one start's share small though the handshake still took the
		// CPU, so the check is on the median and this count is a figure.
		"coldStartsShareAtLeast90": aboveBound,
		results.HeadlineKey: fmt.Sprintf("at %s, medians: DNS %.1f ms, TCP %.1f ms, TLS %.1f ms (mean %.1f), the handshake %.0f%% of the set-up (at least 90%% in %s cold starts); with no quota TLS %.1f ms, %.1f times shorter (article: DNS 7.3, TCP 0.7, TLS 745 ms, 99%%)",
			sh, stats.Quantile(figure(quota, dns), 0.5), stats.Quantile(figure(quota, tcp), 0.5), tls.Median, stats.Mean(figure(quota, tlsMs)),
			100*stats.Quantile(shares, 0.5), aboveBound, controlTLS.Median, tls.Median/controlTLS.Median),
	}
	decide(t, res, evidence,
		verdict.All("cold starts whose first call made its own connection, with a handshake", newConn),
		verdict.MedianAtLeast(fmt.Sprintf("the handshake's share of DNS + TCP + TLS at %s, per cold start", sh), shares, minHandshakeShare, ""),
		verdict.MedianRatioAtLeast(fmt.Sprintf("handshake at %s / with no quota", sh), figure(quota, tlsMs), figure(control, tlsMs), minQuotaSlowdown,
			"the same cold starts with the machine's CPU, in turn in the same run"),
	)
	return res
}

// TestFirstInvocationIsSlow is T2: at 128 MB, Init is fast and the first invocation slow,
// slower than Init and than a warm invocation of the same environment.
func TestFirstInvocationIsSlow(t *testing.T) {
	needQuota(t)
	notBorneOut(t, measureFirstInvocation(t, setUp(t, tlsca.DefaultKeyKind), "cold", cfg.ColdStarts),
		"with Init's burst and a 100 ms CFS period, a Go function's Init (its runtime's start and the SDK's configuration) takes about as long as its first call, whose handshake fits in one period's quota")
}

// T2's bounds. The claim is qualitative ("fast", "slow"); the article's figures are 868 ms
// against an Init of 104 ms, 8.3 times. Twice Init is the least gap that reads as slow against
// fast. Init is the function's measure from its process's start, whose clock ticks of 10 ms can
// lengthen it by up to 10 ms; each answer also carries initGoMs, from the Go program's own start
// (without the runtime's start), and the emulator's first REPORT Duration less the handler's is a
// third view. Five times a warm invocation is the factor the issue uses for "slow" in T1 and T3.
const (
	minFirstOverInit = 2
	minFirstOverWarm = 5
)

// measureFirstInvocation runs n cold starts of variant at 128 MB's share and decides T2 from
// Init, the first invocation's Duration and the second's.
func measureFirstInvocation(t *testing.T, s *stage, variant string, n int) *results.Result {
	t.Helper()
	res := claim{
		ids:       []string{"T2"},
		text:      "at 128 MB, Init is fast and the first handler invocation slow: its Duration is at least twice Init and at least 5 times a warm invocation's",
		published: "Init Duration 104 ms avg; first Duration 868 ms avg (912 in the earlier article)",
	}.start(t, s, s.functionEnv(variant), []share{articleShare}, map[string]any{"coldStarts": n, "variant": variant, "cpuPeriodMs": s.period.Milliseconds()})

	runs := alternate(t, s, n, arm{variant, articleShare})[0]
	res.Trials = runs
	kept, evidence := evidential(runs)
	init, first, warm := figure(kept, initMs), figure(kept, firstMs), figure(kept, warmMs)
	res.Summary = map[string]any{
		"initMs":              stats.Summarize(init),
		"firstDurationMs":     stats.Summarize(first),
		"warmDurationMs":      stats.Summarize(warm),
		"emulatorFirstReport": stats.Summarize(figure(kept, func(c coldStart) float64 { return c.First.DurationMs })),
		results.HeadlineKey: fmt.Sprintf("%s at %s, medians: Init %.1f ms, first Duration %.1f ms (mean %.1f), warm Duration %.1f ms (article, averages: Init 104 ms, first Duration 868 ms)",
			variant, articleShare, stats.Quantile(init, 0.5), stats.Quantile(first, 0.5), stats.Mean(first), stats.Quantile(warm, 0.5)),
	}
	decide(t, res, evidence,
		verdict.MedianRatioAtLeast("first Duration / Init", first, init, minFirstOverInit,
			"Init as the function measures it, from the kernel's start time of its process"),
		verdict.MedianRatioAtLeast("first Duration / warm Duration", first, warm, minFirstOverWarm,
			"the second invocation of the same environment, one CFS period later"),
	)
	return res
}

// TestWarmupRemovesHandshake is T3: a warm-up call in Init (ListTables, limit 1) leaves a live
// connection for the handler, whose first call then has no handshake of its own.
func TestWarmupRemovesHandshake(t *testing.T) {
	needQuota(t)
	notBorneOut(t, measureWarmup(t, setUp(t, tlsca.DefaultKeyKind), articleShare, articleShare, cfg.ColdStarts),
		"with Init's burst and a 100 ms CFS period, the warm-up saves the first invocation about 4.5 ms, close to the issue's factor of 5, and costs Init about as much, so Init + first Duration does not fall")
}

// T3's bound on the first Duration: the fifth (the article's fell to a 43rd, 912 to 21 ms).
const maxWarmOverColdFirst = 0.2

// measureWarmup runs n cold starts of the cold variant at coldShare and n of the warm one at
// warmShare, in turn, and decides T3.
func measureWarmup(t *testing.T, s *stage, coldShare, warmShare share, n int) *results.Result {
	t.Helper()
	res := claim{
		ids:       []string{"T3"},
		text:      "warming the SDK's connection in Init (one ListTables, limit 1) removes the handshake from the first invocation: its call reuses the connection, its Duration falls to at most a fifth, and Init + first Duration (what Lambda bills) falls",
		published: "first Duration 912 to 21 ms; Init 112 to 166 ms (+54); billed Init+Duration 1,025 to 188 ms (-82%); the warm-up call itself 75 ms",
	}.start(t, s, s.functionEnv("warm"), []share{coldShare, warmShare}, map[string]any{"coldStarts": n, "cpuPeriodMs": s.period.Milliseconds()})

	byArm := alternate(t, s, n, arm{"cold", coldShare}, arm{"warm", warmShare})
	res.Trials = map[string][]coldStart{"cold": byArm[0], "warm": byArm[1]}
	cold, coldEvidence := evidential(byArm[0])
	warm, warmEvidence := evidential(byArm[1])

	var reused stats.Proportion
	for _, c := range warm {
		reused.N++
		if c.First.Answer.Reused && c.First.Answer.TLSMs == 0 && c.First.Answer.Warmup != nil && c.First.Answer.Warmup.Error == "" {
			reused.K++
		}
	}
	warmupMs := figure(warm, func(c coldStart) float64 {
		if c.First.Answer.Warmup == nil {
			return 0
		}
		return c.First.Answer.Warmup.TotalMs
	})
	median := func(runs []coldStart, of func(coldStart) float64) float64 {
		return stats.Quantile(figure(runs, of), 0.5)
	}
	res.Summary = map[string]any{
		"cold": map[string]any{"initMs": stats.Summarize(figure(cold, initMs)), "firstDurationMs": stats.Summarize(figure(cold, firstMs)), "billedMs": stats.Summarize(figure(cold, billedMs))},
		"warm": map[string]any{"initMs": stats.Summarize(figure(warm, initMs)), "firstDurationMs": stats.Summarize(figure(warm, firstMs)), "billedMs": stats.Summarize(figure(warm, billedMs)),
			"warmupMs": stats.Summarize(warmupMs)},
		results.HeadlineKey: fmt.Sprintf("medians, cold to warm: first Duration %.1f to %.1f ms (article 912 to 21); Init %.1f to %.1f ms against a warm-up of %.1f ms (article 112 to 166, warm-up 75); Init + first Duration %.1f to %.1f ms (article 1,025 to 188); the warm first call reused the connection in %s",
			median(cold, firstMs), median(warm, firstMs), median(cold, initMs), median(warm, initMs), stats.Quantile(warmupMs, 0.5), median(cold, billedMs), median(warm, billedMs), reused),
	}
	// Evidence: both arms' cold starts answered; the fewer of the two counts.
	evidence := coldEvidence
	if warmEvidence.K*evidence.N < evidence.K*warmEvidence.N {
		evidence = warmEvidence
	}
	decide(t, res, evidence,
		verdict.All("warm cold starts whose first call reused the warm-up's connection (no handshake in its trace)", reused),
		verdict.MedianRatioAtMost("first Duration, warm / cold", figure(warm, firstMs), figure(cold, firstMs), maxWarmOverColdFirst, "the cold variant's, in turn in the same run"),
		verdict.MedianRatioAtMost("Init + first Duration, warm / cold", figure(warm, billedMs), figure(cold, billedMs), 1, "what Lambda bills for a cold start, Init + Duration; lower means below 1"),
	)
	return res
}

// TestHandshakeScalesWithCPU is T5, the question the article left open: does more memory, and so
// more CPU, make the handshake faster? The cold variant at each memory size's share.
func TestHandshakeScalesWithCPU(t *testing.T) {
	needQuota(t)
	notBorneOut(t, measureScaling(t, setUp(t, tlsca.DefaultKeyKind), true, cfg.ColdStarts),
		"with a 100 ms CFS period, the handshake fits in one period's quota from 128 MB up, so more memory does not make it faster")
}

// scalingSizes are T5's memory sizes, from the article's 128 MB to one whole CPU (1,769 MB).
var scalingSizes = []int{128, 256, 512, 1024, 1769}

// minScaling is the factor between the two ends. The shares differ by 13.8 times; a
// handshake that is all CPU and always throttled would fall by that much, one that fits in a
// period's quota not at all.
const minScaling = 4

// sizeRow is one memory size's line of T5's table.
type sizeRow struct {
	Share     share          `json:"share"`
	TLSMs     stats.Summary  `json:"tlsMs"`
	TLSMedian stats.Interval `json:"tlsMedian"`
	FirstMs   stats.Summary  `json:"firstDurationMs"`
	// MBSeconds is the median handshake times the memory size: what a bill by GB-seconds
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
	tls := make([][]float64, len(arms))
	evidence := stats.Proportion{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-22s %22s %10s %16s %10s\n", "share", "TLS median [95% CI]", "TLS mean", "first Dur. p50", "TLS MB·s")
	for i, a := range arms {
		trials[a.Share.String()] = byArm[i]
		kept, e := evidential(byArm[i])
		evidence.K += e.K
		evidence.N += e.N
		tls[i] = figure(kept, tlsMs)
		rows[i] = sizeRow{Share: a.Share, TLSMs: stats.Summarize(tls[i]), TLSMedian: stats.MedianCI(tls[i], stats.Confidence), FirstMs: stats.Summarize(figure(kept, firstMs))}
		rows[i].MBSeconds = rows[i].TLSMedian.Median / 1000 * float64(a.Share.MemoryMB)
		fmt.Fprintf(&table, "%-22s %19s ms %7.1f ms %13.1f ms %10.2f\n", a.Share, rows[i].TLSMedian, rows[i].TLSMs.MeanMs, rows[i].FirstMs.P50Ms, rows[i].MBSeconds)
	}
	t.Logf("T5, the cold variant's first handshake by memory size (%d cold starts each):\n%s", n, table.String())
	res.Trials = trials
	low, high := rows[0], rows[len(rows)-1]
	res.Summary = map[string]any{
		"bySize": rows,
		"table":  table.String(),
		results.HeadlineKey: fmt.Sprintf("median handshake %.1f ms at %s, %.1f ms at %s: %.1f times faster; handshake MB·s %.2f against %.2f",
			low.TLSMedian.Median, low.Share, high.TLSMedian.Median, high.Share, low.TLSMedian.Median/high.TLSMedian.Median, low.MBSeconds, high.MBSeconds),
	}
	decide(t, res, evidence,
		verdict.MedianRatioAtLeast(fmt.Sprintf("handshake at %s / at %s", low.Share, high.Share), tls[0], tls[len(tls)-1], minScaling,
			"the same cold starts at one CPU's share, in turn in the same run"),
	)
	return res
}
