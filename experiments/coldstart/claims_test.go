package coldstart

import (
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/cgroup"
	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/tlsca"
	"github.com/serverless-claims/claims/harness/verdict"
)

// seed is the article these claims come from.
const seed = "003_2a2a2cc8247e6142.txt"

// memoryMB is the memory size the article's function had.
const memoryMB = 128

// claim is what a test decides.
type claim struct {
	ids       []string
	text      string
	published string
}

// target is what a cold-start result records as measured: the function, the stand-ins, the CPU
// shares, the trust bundle, and the function's configuration without its (dummy) credentials.
type target struct {
	Function   string            `json:"function"`
	Emulator   string            `json:"emulator"`
	DynamoDB   string            `json:"dynamodb"`
	Key        tlsca.KeyKind     `json:"certificateKey"`
	Trust      tlsca.Bundle      `json:"trust"`
	Env        map[string]string `json:"env"`
	Shares     []share           `json:"shares"`
	CPUQuota   string            `json:"cpuQuota"`
	InitSource string            `json:"initSource"`
}

// quotaModel says how the shares were made on s: the quota where one has it, and the machine's
// CPU for the rest.
func (s *stage) quotaModel(shares []share) string {
	where, err := cgroup.Available()
	machine := "the machine's CPU"
	if err == nil {
		machine = fmt.Sprintf("the machine's CPU, in a cgroup (%s) of every CPU with the largest weight, as a quota's group has", where)
	}
	for _, sh := range shares {
		if sh.Quota {
			return fmt.Sprintf("memory / 1769 MB of one CPU per %v CFS period (cgroup %s), for the emulator and the function together; where a share has initBurst, Init runs with %g CPU until the runtime first asks for an event; a share without a quota: %s", s.period, where, initBurstShare, machine)
		}
	}
	return "no quota: " + machine
}

// start begins the result of measuring c on s, at the CPU shares shares, with the function's
// configuration env.
func (c claim) start(t *testing.T, s *stage, env map[string]string, shares []share, params map[string]any) *results.Result {
	t.Helper()
	recorded := maps.Clone(env)
	// The credentials are dummies, but no key goes into a result; the trust bundle is a
	// temporary file, recorded as what it holds (target.trust).
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "SSL_CERT_FILE", "SSL_CERT_DIR"} {
		delete(recorded, k)
	}
	return &results.Result{
		Experiment: t.Name(),
		Claims:     c.ids,
		Claim:      c.text,
		Mode:       "local",
		StartedAt:  time.Now().UTC(),
		Parameters: params,
		Target: target{
			Function: functionPackage, Emulator: "aws-lambda-rie (go.mod tool)", DynamoDB: "dynalite " + s.db.Version + " behind TLS",
			Key: s.db.Key, Trust: s.trust, Env: recorded, Shares: shares, CPUQuota: s.quotaModel(shares),
			// The emulator's Init Duration ends when the runtime first asks for an event, before
			// work a runtime does lazily; the function's own measure is the Init evidence.
			InitSource: "the function's own measure (initMs); the emulator's Init Duration is kept beside it",
		},
		Published:   results.Published{Source: seed, Figure: c.published},
		Environment: results.Fingerprint(),
	}
}

// decide gives res its verdict and writes it under results/coldstart (claimtest.Decide).
func decide(t *testing.T, res *results.Result, evidence stats.Proportion, checks ...verdict.Check) {
	t.Helper()
	claimtest.Decide(t, "coldstart", res, evidence, checks...)
}

// holds asserts the claim (claimtest.Holds).
func holds(t *testing.T, res *results.Result) {
	t.Helper()
	claimtest.Holds(t, *res)
}

// handshakesShown is how many TLS handshakes one call's trace shows: one for a new connection
// whose handshake it timed, none for a reused one.
func handshakesShown(p phases) int {
	if !p.Reused && p.TLSMs > 0 {
		return 1
	}
	return 0
}

// ownConnection is one cold start's T6 evidence: what the function's trace of its SDK calls said,
// and what the DynamoDB stand-in saw from its side.
type ownConnection struct {
	coldStart
	ServerHandshakes int `json:"serverHandshakes"` // handshakes the stand-in completed during this cold start
}

func TestPhasesAreTheSDKsOwnConnection(t *testing.T) {
	holds(t, measureOwnConnection(t, setUp(t, tlsca.DefaultKeyKind), cfg.Trials))
}

// measureOwnConnection runs trials cold starts of the cold variant on s and decides T6 from the
// function's traces and the stand-in's handshake count.
func measureOwnConnection(t *testing.T, s *stage, trials int) *results.Result {
	t.Helper()
	env := s.functionEnv("cold")
	res := claim{
		ids:       []string{"T6"},
		text:      "the phases are observed on the SDK's own connection (net/http/httptrace inside the aws-sdk-go-v2 call), not on a separate one",
		published: "(the article measured a separate connection by hand and could not do this)",
	}.start(t, s, env, []share{noQuota}, map[string]any{"coldStarts": trials, "variant": "cold"})

	runs := make([]ownConnection, trials)
	for i := range runs {
		before := s.db.Handshakes()
		runs[i].coldStart = s.startCold(t, "cold", noQuota)
		runs[i].ServerHandshakes = s.db.Handshakes() - before
	}
	res.Trials = runs

	// Evidence: both calls did what the function is for, a GetItem that found the item.
	evidence := stats.Proportion{N: len(runs)}
	var newWithHandshake, countsAgree, secondReused stats.Proportion
	var tls []float64
	for _, tr := range runs {
		f, g := tr.First.Answer, tr.Second.Answer
		if !(tr.First.ok() && f.Found && tr.Second.ok() && g.Found) {
			continue
		}
		evidence.K++
		newWithHandshake.N++
		countsAgree.N++
		secondReused.N++
		if f.Attempts == 1 && !f.Reused && f.TLSMs > 0 && f.ConnectMs > 0 {
			newWithHandshake.K++
		}
		// The cross-check: the handshakes the function's traces show are the handshakes the
		// stand-in completed, no more and no fewer. Whether the SDK reused its connection for
		// the second call is its own business (now and then it drops one it could have
		// pooled); either way the trace must say what happened.
		if handshakesShown(f.phases)+handshakesShown(g.phases) == tr.ServerHandshakes {
			countsAgree.K++
		}
		if g.Reused {
			secondReused.K++
		}
		tls = append(tls, f.TLSMs)
	}
	res.Summary = map[string]any{
		"firstCallTLSMs":   stats.Summarize(tls),
		"secondCallReused": secondReused,
		results.HeadlineKey: fmt.Sprintf("first call: new connection with a handshake in %s; traced handshakes = the stand-in's in %s; second call reused the connection in %s",
			newWithHandshake, countsAgree, secondReused),
	}
	decide(t, res, evidence,
		verdict.All("cold starts whose first GetItem's trace shows a new connection with a TLS handshake", newWithHandshake),
		verdict.All("cold starts whose traced handshakes equal the handshakes the DynamoDB stand-in completed", countsAgree),
	)
	return res
}

// warmupTimeout bounds the warm variant's warm-up in TestWarmupFailureDoesNotFailInit.
const warmupTimeout = 500 * time.Millisecond

// initMargin is what Init may take beyond the warm-up's timeout: starting the process and
// building the SDK's client, a few ms to tens of ms here; a second is far above that and far
// below what an unbounded warm-up waits on a stalled endpoint (the SDK's 10 s TLS handshake
// timeout, times its retries).
const initMargin = time.Second

// stallFor is how long a stalled DynamoDB stays stalled after the warm-up's bound, counted from
// the first invoke, which is when the emulator runs Init: the handler's GetItem is stalled too.
const stallFor = 500 * time.Millisecond

// unreachableStart is one cold start of TestWarmupFailureDoesNotFailInit.
type unreachableStart struct {
	How       string  `json:"how"` // refused (nothing listens) or stalled (a black hole)
	WhileDown invoked `json:"whileDown"`
	AfterUp   invoked `json:"afterUp"`
}

func TestWarmupFailureDoesNotFailInit(t *testing.T) {
	holds(t, measureWarmupFailure(t, setUp(t, tlsca.DefaultKeyKind), warmupTimeout, cfg.Trials))
}

// measureWarmupFailure runs trials cold starts of the warm variant on s, its warm-up bounded by
// timeout, with DynamoDB unreachable: refused and stalled in turn. Each cold start's first
// invocation comes while DynamoDB is still unreachable, its second after it is back.
func measureWarmupFailure(t *testing.T, s *stage, timeout time.Duration, trials int) *results.Result {
	t.Helper()
	env := s.functionEnv("warm")
	env["CLAIMS_WARMUP_TIMEOUT_MS"] = strconv.Itoa(int(timeout.Milliseconds()))
	res := claim{
		ids:       []string{"T4"},
		text:      "a warm-up that fails must not fail Init: the function ignores its error, Init ends within the warm-up's bound, and the function serves once DynamoDB is back",
		published: "(design rule, no figure)",
	}.start(t, s, env, []share{noQuota}, map[string]any{"coldStarts": trials, "variant": "warm", "warmupTimeoutMs": timeout.Milliseconds(), "initMarginMs": initMargin.Milliseconds()})

	runs := make([]unreachableStart, trials)
	for i := range runs {
		r := &runs[i]
		r.How = "refused"
		if i%2 == 1 {
			r.How = "stalled"
		}
		if r.How == "stalled" {
			require.NoError(t, s.db.Stall())
		} else {
			s.db.Down()
		}
		e := s.start(t, env, noQuota)
		if r.How == "refused" { // (the stall below outlasts Init, which runs inside the first invoke)
			// Refused: the GetItem fails at once, and the function must answer with its error.
			r.WhileDown = invoke(t, e)
			require.NoError(t, s.db.Up(), "bringing the stand-in back")
		} else {
			// Stalled: the GetItem waits on a handshake that never comes; DynamoDB comes back
			// (the stalled connections are closed) while it waits, and the SDK's retry must
			// then succeed.
			back := time.AfterFunc(timeout+stallFor, func() { _ = s.db.Up() })
			r.WhileDown = invoke(t, e)
			back.Stop()
			require.NoError(t, s.db.Up(), "bringing the stand-in back")
		}
		if r.WhileDown.ok() {
			r.AfterUp = invoke(t, e)
		} // else the environment failed; the emulator would hold a second invoke forever
		require.NoError(t, e.Stop())
	}
	res.Trials = runs

	var warmupFailed, boundedInit, clearError, servedAfter, sameProcess stats.Proportion
	var initMs, handlerCPUMs []float64
	for _, r := range runs {
		d, u := r.WhileDown.Answer, r.AfterUp.Answer
		for _, p := range []*stats.Proportion{&warmupFailed, &boundedInit, &clearError, &servedAfter, &sameProcess} {
			p.N++
		}
		// The warm-up's failure shows in the answer, or, where Init failed over it, in the
		// emulator's error: either way it failed.
		if (d.Warmup != nil && d.Warmup.Error != "") || !r.WhileDown.ok() {
			warmupFailed.K++
		}
		initMs = append(initMs, d.InitMs)
		handlerCPUMs = append(handlerCPUMs, d.HandlerCPUMs)
		if d.InitMs <= float64((timeout + initMargin).Milliseconds()) {
			boundedInit.K++
		}
		// Refused: a clear error. Stalled: DynamoDB came back during the call, which succeeded.
		if r.WhileDown.ok() && ((r.How == "refused" && !d.Found && d.Error != "") || (r.How == "stalled" && d.Found && d.Error == "")) {
			clearError.K++
		}
		if r.AfterUp.ok() && u.Found && u.Error == "" {
			servedAfter.K++
		}
		if r.WhileDown.ok() && r.AfterUp.ok() && d.Pid == u.Pid && u.Invocation == 2 {
			sameProcess.K++
		}
	}
	init := stats.Summarize(initMs)
	res.Summary = map[string]any{
		"initMs": init,
		// The first invocation's CPU, while DynamoDB was unreachable (0 where Init failed).
		"cpu":               map[string]stats.Summary{"firstInvocationCpuMs": stats.Summarize(handlerCPUMs)},
		results.HeadlineKey: fmt.Sprintf("warm-up failed in %s (refused and stalled), Init max %.0f ms (bound %v + %v), served after DynamoDB came back in %s", warmupFailed, init.MaxMs, timeout, initMargin, servedAfter),
	}
	// Evidence: the warm-up really failed; a warm-up that reached DynamoDB tests nothing here.
	decide(t, res, warmupFailed,
		verdict.All(fmt.Sprintf("cold starts whose Init completed, within %v (the warm-up's bound) plus %v", timeout, initMargin), boundedInit),
		verdict.All("first invocations, DynamoDB unreachable, that answered with the GetItem's error (refused) or found the item once it was back (stalled)", clearError),
		verdict.All("second invocations, DynamoDB back, that found the item", servedAfter),
		verdict.All("cold starts whose two invocations ran in the one process (nothing crashed)", sameProcess),
	)
	return res
}
