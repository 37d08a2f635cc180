package eventloop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/probe"
	"github.com/serverless-claims/claims/harness/repo"
	"github.com/serverless-claims/claims/harness/verdict"
)

// TestClaimTestsCatchBrokenProbes shows that every claim test above can fail: each experiment,
// run against a probe that breaks its claim (testdata/probes/broken), must decide "fail". These
// results are not written: they describe the broken probes, not the runtimes.
func TestClaimTestsCatchBrokenProbes(t *testing.T) {
	short := cfg
	short.Trials = min(cfg.Trials, 4) // a broken claim fails in every trial; four show it

	cases := []struct {
		name  string
		e     experiment
		start func(t *testing.T) *probe.Probe
	}{
		{"W1/slow-ping", baseline(""), brokenNode("node-slow-ping.js")},
		{"W2/cpu-in-worker", nodeWaits(1), brokenNode("node-cpu-in-worker.js")},
		{"W3/cpu-in-worker", nodeWaits(2), brokenNode("node-cpu-in-worker.js")},
		{"W4/serialized", goDoesNotWait(1), brokenGo("brokenserialize", goPreemptive)},
		{"W5/serialized", goDoesNotWait(2), brokenGo("brokenserialize", goPreemptive)},
		{"W10/spin-with-calls", goWaitsWithoutPreemption(), brokenGo("brokenspincalls", goNonPreemptive)},
		{"W11/worker-on-loop", offloaded("worker", 1), brokenNode("node-cpu-on-loop.js")},
		{"W11/pbkdf2-on-loop", offloaded("pbkdf2", 2), brokenNode("node-cpu-on-loop.js")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.e.measure(t, c.start(t), short)
			assert.Equal(t, verdict.Fail, res.Verdict.Outcome,
				"verdict against a probe that breaks %v = %s; want fail (%s)", res.Claims, res.Verdict.Outcome, res.Verdict.Reason)
			t.Logf("%v against %s: %s (%s)", res.Claims, c.name, res.Verdict.Outcome, res.Verdict.Reason)
		})
	}
}

// brokenNode starts a broken Node probe from testdata/probes/broken.
func brokenNode(file string) func(t *testing.T) *probe.Probe {
	return func(t *testing.T) *probe.Probe {
		t.Helper()
		script, err := repo.Path("testdata/probes/broken/" + file)
		require.NoError(t, err)
		return probe.StartNode(t, probe.Options{Program: script, Source: "broken: " + file})
	}
}

// brokenGo starts the Go probe built with a build tag that breaks it.
func brokenGo(tag string, env map[string]string) func(t *testing.T) *probe.Probe {
	return func(t *testing.T) *probe.Probe {
		t.Helper()
		bin := probe.BuildGoVariant(t, tag)
		return probe.StartGo(t, probe.Options{Program: bin, Source: "broken: -tags " + tag, Env: env})
	}
}
