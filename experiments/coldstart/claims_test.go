package coldstart

// The claims that do not depend on a CPU share: T6 (the phases are the SDK's own connection's)
// and T4 (a warm-up that fails must not fail Init).

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/getitem"
)

// The families of T6's and T4's results.
const (
	familyOwnConnection = "coldstart.ownConnection"
	familyWarmupFailure = "coldstart.warmupFailure"
)

// handshakesShown is how many TLS handshakes one call's trace shows: one for a new connection
// whose handshake it timed, none for a reused one.
func handshakesShown(p getitem.Call) int {
	if !p.Reused && p.TLSMs > 0 {
		return 1
	}
	return 0
}

// ownConnectionClaim is T6.
var ownConnectionClaim = claimtest.Claim{IDs: []string{"T6"}, Family: familyOwnConnection}

// TestPhasesAreTheSDKsOwnConnection is T6: the phases the function reports are those of the
// connection its SDK call made, as DynamoDB's side confirms.
func TestPhasesAreTheSDKsOwnConnection(t *testing.T) {
	claimtest.Run(t, testPhasesAreTheSDKsOwnConnection, platforms...)
}

func testPhasesAreTheSDKsOwnConnection(t *testing.T, p lambdaPlatform) {
	on(ownConnectionClaim, p.Language()).Check(t, measureOwnConnection(t, p, getItemFunction, p.Settings().Trials))
}

// measureOwnConnection runs trials cold starts of the cold variant built from b, unthrottled,
// and decides T6 from the function's traces and, where the platform counts them, DynamoDB's
// handshakes.
func measureOwnConnection(t *testing.T, p lambdaPlatform, b functionCode, trials int) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	c := getitemConfig(p, b, cold, memoryMB, true)
	fn := p.Create(t, c)
	counter, counts := p.(handshakeCounter)

	pl := planColdStarts(t, p, "cold starts", trials, 1, fewestTrials(p.Settings()))
	runs := make([]family.OwnConnection, 0, pl.n)
	startWithin(t, pl, func(i int) {
		runs = append(runs, family.OwnConnection{})
		var before int
		if counts {
			before = counter.DynamoDBHandshakes()
		}
		runs[i].ColdStart = runColdStart(t, fn, c.String(), 0, p.Settings().CPUPeriod)
		if counts {
			n := counter.DynamoDBHandshakes() - before
			runs[i].ServerHandshakes = &n
		}
	})

	// Evidence: a cold start, whose two calls did what the function is for, a GetItem that
	// found the item (coldStart.judge).
	evidence := stats.Proportion{N: pl.rounds()}
	s := family.OwnConnectionSummary{NotEvidence: notStarted(pl, len(runs))}
	var tls []float64
	for _, tr := range runs {
		f, g := tr.First.Answer, tr.Second.Answer
		if reason := judge(&tr.ColdStart); reason != "" {
			addReason(s.NotEvidence, reason)
			continue
		}
		evidence.K++
		s.NewWithHandshake.N++
		s.SecondCallReused.N++
		if f.Attempts == 1 && !f.Reused && f.TLSMs > 0 && f.ConnectMs > 0 {
			s.NewWithHandshake.K++
		}
		// The cross-check: the handshakes the function's traces show are the handshakes
		// DynamoDB completed, no more and no fewer. Whether the SDK reused its connection for
		// the second call is its own business (now and then it drops one it could have
		// pooled); either way the trace must say what happened.
		if tr.ServerHandshakes != nil {
			s.CountsAgree.N++
			if handshakesShown(f.Call)+handshakesShown(g.Call) == *tr.ServerHandshakes {
				s.CountsAgree.K++
			}
		}
		if g.Reused {
			s.SecondCallReused.K++
		}
		tls = append(tls, f.TLSMs)
	}
	s.FirstCallTLSMs = stats.Summarize(tls)
	checks := []verdict.Check{notEvidenceCheck(s.NotEvidence, evidence),
		verdict.All("cold starts whose first GetItem's trace shows a new connection with a TLS handshake", s.NewWithHandshake)}
	headline := fmt.Sprintf("first call: new connection with a handshake in %s; second call reused the connection in %s", s.NewWithHandshake, s.SecondCallReused)
	if counts {
		checks = append(checks, verdict.All("cold starts whose traced handshakes equal the handshakes the DynamoDB stand-in completed", s.CountsAgree))
		headline = fmt.Sprintf("first call: new connection with a handshake in %s; traced handshakes = the stand-in's in %s; second call reused the connection in %s",
			s.NewWithHandshake, s.CountsAgree, s.SecondCallReused)
	}
	headline = pl.withCut(withNotEvidence(s.NotEvidence, headline))
	return claimtest.Measurement{
		Target:      onPlatform{Platform: p, Functions: []family.Function{c}},
		Broken:      brokenIn(p, b),
		StartedAt:   started,
		Headline:    headline,
		Parameters:  family.OwnConnectionParameters{ColdStarts: pl.rounds(), Cut: pl.record(), Variant: cold, MemoryMB: c.MemoryMB},
		Summary:     s,
		Trials:      runs,
		Environment: results.Fingerprint(),
		Evidence:    evidence,
		NotEvidence: s.NotEvidence.String(),
		Cut:         pl.whyCut(),
		Checks:      checks,
	}
}

// warmupTimeout bounds the warm variant's warm-up in TestWarmupFailureDoesNotFailInit.
const warmupTimeout = 500 * time.Millisecond

// initMargin is what Init may take beyond the warm-up's timeout in language l: starting the
// process and building the SDK's client. For Go and Rust that is a few ms to tens of ms here, and
// a second is far above it; Node.js and Python load their SDK's modules in Init, hundreds of ms
// on a busy machine, so they get three. Either is far below what an unbounded warm-up waits on a
// stalled endpoint (aws-sdk-go-v2's TLS handshake timeout alone is 10 s; botocore's retries of a
// dead endpoint take tens of seconds; the JavaScript SDK sets no timeout at all).
func initMargin(l lambdazip.Language) time.Duration {
	if l == lambdazip.Node || l == lambdazip.Python {
		return 3 * time.Second
	}
	return time.Second
}

// stallFor is how long a stalled DynamoDB stays stalled after the warm-up's bound, counted from
// the first invoke, which is when the emulator runs Init: the handler's GetItem is stalled too.
const stallFor = 500 * time.Millisecond

// warmupFailureClaim is T4.
var warmupFailureClaim = claimtest.Claim{IDs: []string{"T4"}, Family: familyWarmupFailure}

// TestWarmupFailureDoesNotFailInit is T4: the warm variant's warm-up fails, refused and stalled
// in turn, and Init goes on within the warm-up's bound.
func TestWarmupFailureDoesNotFailInit(t *testing.T) {
	claimtest.Run(t, testWarmupFailureDoesNotFailInit, platforms...)
}

func testWarmupFailureDoesNotFailInit(t *testing.T, p lambdaPlatform) {
	on(warmupFailureClaim, p.Language()).Check(t, measureWarmupFailure(t, p, getItemFunction, warmupTimeout, p.Settings().Trials))
}

// measureWarmupFailure runs trials cold starts of the warm variant built from b, its warm-up
// bounded by timeout, with DynamoDB unreachable: refused and stalled in turn. Each cold start's
// first invocation comes while DynamoDB is still unreachable, its second after it is back.
func measureWarmupFailure(t *testing.T, p lambdaPlatform, b functionCode, timeout time.Duration, trials int) claimtest.Measurement {
	t.Helper()
	away, ok := p.(dynamoOutage)
	if !ok {
		t.Skipf("T4: the %s platform cannot make DynamoDB unreachable", p.Mode())
	}
	handlerDown := away.OutageReachesHandler()
	started := time.Now()
	c := getitemConfig(p, b, warm, memoryMB, true)
	margin := initMargin(c.Build.Language)
	c.Env["CLAIMS_WARMUP_TIMEOUT_MS"] = strconv.Itoa(int(timeout.Milliseconds()))
	f := p.Create(t, c)

	pl := planColdStarts(t, p, "cold starts", trials, 1, fewestTrials(p.Settings()))
	runs := make([]family.UnreachableStart, 0, pl.n)
	startWithin(t, pl, func(i int) {
		runs = append(runs, family.UnreachableStart{})
		r := &runs[i]
		r.How = family.Refused
		if i%2 == 1 {
			r.How = family.Stalled
		}
		require.NoError(t, away.BreakDynamoDB(r.How))
		require.NoError(t, f.ColdStart(t.Context()))
		if r.How == family.Refused { // (the stall below outlasts Init, which runs inside the first invoke)
			// Refused: the GetItem fails at once, and the function must answer with its error.
			r.WhileDown = invoke(t, f)
			require.NoError(t, away.RestoreDynamoDB(), "bringing DynamoDB back")
		} else {
			// Stalled: the GetItem waits on a handshake that never comes; DynamoDB comes back
			// (the stalled connections are closed) while it waits, and the SDK's retry must
			// then succeed.
			back := time.AfterFunc(timeout+stallFor, func() { _ = away.RestoreDynamoDB() })
			r.WhileDown = invoke(t, f)
			back.Stop()
			require.NoError(t, away.RestoreDynamoDB(), "bringing DynamoDB back")
		}
		if functionAnswered(r.WhileDown) {
			r.AfterUp = invoke(t, f)
		} // else the environment failed; the emulator would hold a second invoke forever
	})

	s := family.WarmupFailureSummary{NotEvidence: notStarted(pl, len(runs))}
	s.WarmupFailed.N = pl.rounds()
	var initMs, handlerCPUMs []float64
	for i := range runs {
		r := &runs[i]
		d, u := r.WhileDown.Answer, r.AfterUp.Answer
		// A cold start that was none ran no Init, so no warm-up met the outage: no evidence.
		if reason, detail := notCold(r.WhileDown); reason != "" {
			r.NotEvidence = reason + " (" + detail + ")"
			addReason(s.NotEvidence, reason)
			continue
		}
		for _, pr := range []*stats.Proportion{&s.BoundedInit, &s.ClearError, &s.ServedAfter, &s.SameProcess} {
			pr.N++
		}
		// The warm-up's failure shows in the answer, or, where Init failed over it, in the
		// platform's error: either way it failed.
		if (d.Warmup != nil && d.Warmup.Error != "") || !functionAnswered(r.WhileDown) {
			s.WarmupFailed.K++
		}
		initMs = append(initMs, d.InitMs)
		handlerCPUMs = append(handlerCPUMs, d.HandlerCPUMs)
		if d.InitMs <= float64((timeout + margin).Milliseconds()) {
			s.BoundedInit.K++
		}
		// Refused: a clear error. Stalled: DynamoDB came back during the call, which succeeded.
		// Where the outage reached the warm-up alone, the handler's GetItem must simply succeed.
		if wantError := handlerDown && r.How == family.Refused; functionAnswered(r.WhileDown) &&
			(wantError && !d.Found && d.Error != "" || !wantError && d.Found && d.Error == "") {
			s.ClearError.K++
		}
		if functionAnswered(r.AfterUp) && u.Found && u.Error == "" {
			s.ServedAfter.K++
		}
		if functionAnswered(r.WhileDown) && functionAnswered(r.AfterUp) && d.Pid == u.Pid && u.Invocation == 2 {
			s.SameProcess.K++
		}
	}
	s.InitMs, s.FirstInvocationCPUMs = stats.Summarize(initMs), stats.Summarize(handlerCPUMs)
	// Evidence: a cold start whose warm-up really failed; a warm-up that reached DynamoDB, or
	// none at all, tests nothing here.
	headline := fmt.Sprintf("warm-up failed in %s (refused and stalled), Init max %.0f ms (bound %v + %v), served after DynamoDB came back in %s",
		s.WarmupFailed, s.InitMs.MaxMs, timeout, margin, s.ServedAfter)
	headline = pl.withCut(withNotEvidence(s.NotEvidence, headline))
	return claimtest.Measurement{
		Target:    onPlatform{Platform: p, Functions: []family.Function{c}},
		Broken:    brokenIn(p, b),
		StartedAt: started,
		Headline:  headline,
		Parameters: family.WarmupFailureParameters{ColdStarts: pl.rounds(), Cut: pl.record(), Variant: warm, MemoryMB: c.MemoryMB,
			WarmupTimeoutMs: timeout.Milliseconds(), InitMarginMs: margin.Milliseconds(), StallForMs: stallFor.Milliseconds()},
		Summary:     s,
		Trials:      runs,
		Environment: results.Fingerprint(),
		Evidence:    s.WarmupFailed,
		NotEvidence: s.NotEvidence.String(),
		Cut:         pl.whyCut(),
		Checks: []verdict.Check{
			notEvidenceCheck(s.NotEvidence, s.WarmupFailed),
			verdict.All(fmt.Sprintf("cold starts whose Init completed, within %v (the warm-up's bound) plus %v", timeout, margin), s.BoundedInit),
			verdict.All(firstInvocationCheck(handlerDown), s.ClearError),
			verdict.All("second invocations, DynamoDB back, that found the item", s.ServedAfter),
			verdict.All("cold starts whose two invocations ran in the one process (nothing crashed)", s.SameProcess),
		},
	}
}

// firstInvocationCheck names what T4 wants of each first invocation, by where the outage was.
func firstInvocationCheck(handlerDown bool) string {
	if handlerDown {
		return "first invocations, DynamoDB unreachable, that answered with the GetItem's error (refused) or found the item once it was back (stalled)"
	}
	return "first invocations, the warm-up's endpoint unreachable, whose GetItem found the item (the handler's DynamoDB was never away)"
}
