package eventloop

import (
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
)

// TestClaimTestsCatchBrokenProbes shows that every claim test above can fail: each experiment,
// run against a probe that breaks its claim (testdata/probes/broken), must decide "fail". Their
// results say what was broken and go under results/sensitivity: they describe the broken probes,
// not the runtimes.
func TestClaimTestsCatchBrokenProbes(t *testing.T) {
	short := cfg
	short.Trials = min(cfg.Trials, 4) // a broken claim fails in every trial; four show it

	var (
		slowPing      = brokenNode("node-slow-ping.js", "/ping answers 20 ms late")
		cpuInWorker   = brokenNode("node-cpu-in-worker.js", "every /cpu spins in a worker thread, whatever its mode")
		cpuOnLoop     = brokenNode("node-cpu-on-loop.js", "every /cpu spins on the event loop, whatever its mode")
		serialized    = brokenGo("brokenserialize", "one mutex around every handler", goPreemptive)
		spinWithCalls = brokenGo("brokenspincalls", "the spin loop calls a function each round", goNonPreemptive)
	)
	cases := []struct {
		name string
		e    experiment
		mode claimtest.Mode[*web]
	}{
		{"W1/slow-ping", baseline, slowPing},
		{"W2/cpu-in-worker", nodeWaits(1), cpuInWorker},
		{"W3/cpu-in-worker", nodeWaits(2), cpuInWorker},
		{"W4/serialized", goDoesNotWait(1), serialized},
		{"W5/serialized", goDoesNotWait(2), serialized},
		{"W10/spin-with-calls", goWaitsWithoutPreemption, spinWithCalls},
		{"W11/worker-on-loop", offloaded("worker", 1), cpuOnLoop},
		{"W11/pbkdf2-on-loop", offloaded("pbkdf2", 2), cpuOnLoop},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			claimtest.Run(t, func(t *testing.T, w *web) {
				claim, m := c.e(t, w, short)
				claimtest.CatchesBroken(t, claim.Decide(t, m))
			}, c.mode)
		})
	}
}
