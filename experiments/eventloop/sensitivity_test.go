package eventloop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// TestCatchesBrokenProbes shows that every claim test above can fail: each experiment, run
// against a probe that breaks its claim (testdata/probes/broken), must decide "fail"
// (claimtest.CatchBroken). Their results say what was broken and go under results/sensitivity:
// they describe the broken probes, not the runtimes.
func TestCatchesBrokenProbes(t *testing.T) {
	claimtest.CatchBroken(t, claimtest.Settings(t), brokenProbes...)
}

// brokenProbes are the event-loop claims' broken cases (claimtest.BrokenCases), each run against
// a probe that breaks its claim.
var brokenProbes = func() []claimtest.BrokenCase {
	var (
		slowPing      = brokenNode("node-slow-ping.js", "/ping answers 20 ms late")
		cpuInWorker   = brokenNode("node-cpu-in-worker.js", "every /cpu spins in a worker thread, whatever its mode")
		cpuOnLoop     = brokenNode("node-cpu-on-loop.js", "every /cpu spins on the event loop, whatever its mode")
		serialized    = brokenGo("brokenserialize", "one mutex around every handler", goPreemptive)
		spinWithCalls = brokenGo("brokenspincalls", "the spin loop calls a function each round", goNonPreemptive)
	)
	return claimtest.BrokenCases(
		onBroken("W1/slow-ping", baselineClaim, baseline, slowPing),
		onBroken("W2/cpu-in-worker", nodeWaitsClaim[1], nodeWaits(1), cpuInWorker),
		onBroken("W3/cpu-in-worker", nodeWaitsClaim[2], nodeWaits(2), cpuInWorker),
		onBroken("W4/serialized", goDoesNotWaitClaim[1], goDoesNotWait(1), serialized),
		onBroken("W5/serialized", goDoesNotWaitClaim[2], goDoesNotWait(2), serialized),
		onBroken("W10/spin-with-calls", noPreemptionClaim, goWaitsWithoutPreemption, spinWithCalls),
		onBroken("W11/worker-on-loop", offloadedClaim, offloaded("worker", 1), cpuOnLoop),
		onBroken("W11/pbkdf2-on-loop", offloadedClaim, offloaded("pbkdf2", 2), cpuOnLoop),
	)
}()

// onBroken is the case name: claim, measured by e against the broken probe p.
func onBroken(name string, claim claimtest.Claim, e experiment, p brokenProbe) claimtest.BrokenCase {
	return claimtest.BrokenCase{Name: name, Claim: claim, Broken: p.broken,
		Measure: func(t *testing.T, s settings.Settings) claimtest.Measurement {
			return measured(t, claim, e, p.start(t), s)
		}}
}

// measured is e's measurement on w with s, where e decides claim: a case that names one claim
// and measures another would record the wrong claim's result.
func measured(t *testing.T, claim claimtest.Claim, e experiment, w *web, s settings.Settings) claimtest.Measurement {
	t.Helper()
	c, m := e(t, w, s)
	require.Equal(t, claim.IDs, c.IDs, "claims the experiment decides; want the case's")
	require.Equal(t, claim.Family, c.Family, "family of the experiment's result; want the case's")
	return m
}
