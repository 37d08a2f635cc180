package eventloop

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/workload/probe"
	"github.com/serverless-claims/claims/harness/workload/target"
)

// What the event-loop claims run against: the web target, and the local probes, as they are and
// broken on purpose, that start one.

// web is what an event-loop claim runs against: HTTP endpoints whose every answer names the
// environment that served it (envId), so that waiting is decided on one environment's clock.
// Locally it is one probe process; live, the same claims can run against Web Functions.
type web struct {
	endpoints target.Target
	mode      string              // results.ModeLocal, ModeLocalRouter or ModeLive: claimtest.Target
	about     any                 // what the result records as its target: family.Probe locally, family.WebFunction for an endpoint
	env       results.Environment // the machine and the runtime that serves the endpoints
	broken    string              // what was broken on purpose; its results go under results/sensitivity
}

// Mode implements claimtest.Target.
func (w *web) Mode() string { return w.mode }

// MarshalJSON records what was measured, not how it is reached.
func (w *web) MarshalJSON() ([]byte, error) { return json.Marshal(w.about) }

// The local targets: one probe process each. The Go probe's settings are the article's
// (GOMAXPROCS as the environment's 2 vCPUs) or W10's, which takes away both ways the Go runtime
// has to serve /ping during a spin: a second P, and asynchronous preemption of a loop that makes
// no function call.
var (
	goPreemptive    = map[string]string{"GOMAXPROCS": "2"}
	goNonPreemptive = map[string]string{"GOMAXPROCS": "1", "GODEBUG": "asyncpreemptoff=1"}

	nodeProbe = claimtest.Mode[*web]{Name: "node", Start: func(t *testing.T) *web { return local(t, startNode(t), "") }}
	goProbe   = claimtest.Mode[*web]{Name: "go", Start: func(t *testing.T) *web { return local(t, startGo(t, goPreemptive), "") }}
	// goNonPreemptiveProbe is W10's control.
	goNonPreemptiveProbe = claimtest.Mode[*web]{Name: "go-nonpreemptive", Start: func(t *testing.T) *web {
		return local(t, startGo(t, goNonPreemptive), "")
	}}
)

// startNode starts the Node.js probe (or CLAIMS_NODE_PROBE).
func startNode(t *testing.T) *probe.Probe {
	t.Helper()
	return probe.StartNode(t, probe.Options{})
}

// startGo starts the Go probe (or CLAIMS_GO_PROBE) behind its launcher with env set.
func startGo(t *testing.T, env map[string]string) *probe.Probe {
	t.Helper()
	return probe.StartGo(t, probe.Options{Env: env})
}

// brokenProbe is a probe broken on purpose: how to start it, and what it breaks.
type brokenProbe struct {
	start  func(t *testing.T) *web
	broken string
}

// brokenNode is a broken Node probe from testdata/probes/broken; broken says what it breaks.
func brokenNode(file, broken string) brokenProbe {
	p := brokenProbe{broken: file + ": " + broken}
	p.start = func(t *testing.T) *web {
		t.Helper()
		return local(t, startBrokenNode(t, file), p.broken)
	}
	return p
}

// startBrokenNode starts the broken Node probe testdata/probes/broken/<file>.
func startBrokenNode(t *testing.T, file string) *probe.Probe {
	t.Helper()
	script, err := repo.Path("testdata/probes/broken/" + file)
	require.NoError(t, err)
	return probe.StartNode(t, probe.Options{Program: script, Source: "broken: " + file})
}

// brokenGo is the Go probe built with a build tag that breaks it, run with env.
func brokenGo(tag, broken string, env map[string]string) brokenProbe {
	p := brokenProbe{broken: "Go probe with -tags " + tag + ": " + broken}
	p.start = func(t *testing.T) *web {
		t.Helper()
		bin := probe.BuildGoVariant(t, tag)
		started := probe.StartGo(t, probe.Options{Program: bin, Source: "broken: -tags " + tag, Env: env})
		return local(t, started, p.broken)
	}
	return p
}

// local is the started probe p as a target, with the runtime it reported.
func local(t *testing.T, p *probe.Probe, broken string) *web {
	t.Helper()
	tgt := target.NewLocal(p.Ready.Addr)
	t.Cleanup(tgt.Close)
	return &web{endpoints: tgt, mode: results.ModeLocal, about: p.Info, env: environmentOf(p), broken: broken}
}

// environmentOf is the machine's fingerprint with the runtime the probe p reported.
func environmentOf(p *probe.Probe) results.Environment {
	env := results.Fingerprint()
	env.Node, env.OpenSSL = p.Info.Node.Version, p.Info.Node.OpenSSL
	if g, ok := p.Ready.Extra["gomaxprocs"].(float64); ok {
		env.GOMAXPROCS = int(g)
	}
	env.UVThreadpoolSize = p.Info.Env["UV_THREADPOOL_SIZE"]
	return env
}
