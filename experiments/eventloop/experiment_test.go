package eventloop

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/pattern"
	"github.com/serverless-claims/claims/harness/probe"
	"github.com/serverless-claims/claims/harness/protocol"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/target"
	"github.com/serverless-claims/claims/harness/verdict"
)

// seed is the article these claims come from.
const seed = "000_213682b2ccddfc2d.txt"

// experiment is one claim (or a pair the same pattern settles) as a runnable decision: the
// pattern to send and the checks that decide it from the trials.
type experiment struct {
	claims    []string
	claim     string
	published string
	pattern   func(s settings.Settings) pattern.Pattern
	decide    func(r *run) (evidence stats.Proportion, checks []verdict.Check)
}

// run is one pattern measured against one probe.
type run struct {
	settings settings.Settings
	trials   []pattern.Trial
	waits    []pattern.Wait
}

// trialRecord is a trial as the result file keeps it: the requests and the wait evidence.
type trialRecord struct {
	pattern.Trial
	Wait *pattern.Wait `json:"wait,omitempty"`
}

// warmupPings are sent before every experiment's first trial (see pattern.Schedule.Warmup).
const warmupPings = 20

// measure runs e's pattern against p and decides the claim; it fails the test only when the
// measurement itself breaks (a request errs), never on the verdict.
func (e experiment) measure(t *testing.T, p *probe.Probe, s settings.Settings) results.Result {
	t.Helper()
	pat := e.pattern(s)
	tgt := target.NewLocal(p.Ready.Addr)
	t.Cleanup(tgt.Close)

	limit := budget(t, pat, s)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	started := time.Now()
	sched := pattern.Schedule{Trials: s.Trials, Pause: s.Pause, Warmup: warmupPings}
	trials, err := pattern.Run(ctx, tgt, pat, sched)
	require.NoError(t, err, "running pattern %s (allowed %v, within the test's deadline)", pat.Name, limit.Round(time.Second))

	r := &run{settings: s, trials: trials}
	records := make([]trialRecord, len(trials))
	for i, tr := range trials {
		records[i].Trial = tr
		if cpus := tr.Of(pattern.KindCPU); len(cpus) > 0 {
			w := pattern.PingWait(tr.Of(pattern.KindPing)[0].Answer, answers(cpus))
			r.waits = append(r.waits, w)
			records[i].Wait = &w
		}
	}
	evidence, checks := e.decide(r)

	env := results.Fingerprint()
	env.Node, env.OpenSSL = p.Info.Node.Version, p.Info.Node.OpenSSL
	if g, ok := p.Ready.Extra["gomaxprocs"].(float64); ok {
		env.GOMAXPROCS = int(g)
	}
	env.UVThreadpoolSize = p.Info.Env["UV_THREADPOOL_SIZE"]
	return results.Result{
		Experiment: t.Name(),
		Claims:     e.claims,
		Claim:      e.claim,
		Mode:       "local",
		StartedAt:  started.UTC(),
		FinishedAt: time.Now().UTC(),
		Parameters: map[string]any{
			"pattern": pat.Name, "steps": pat.Steps, "trials": s.Trials, "spinMs": s.SpinMs, "pauseMs": s.PauseMs(),
			"warmupPings": sched.Warmup,
		},
		Target:      p.Info,
		Summary:     r.summary(evidence),
		Verdict:     verdict.Decide(evidence, checks...),
		Published:   results.Published{Source: seed, Figure: e.published},
		Environment: env,
		Trials:      records,
	}
}

// budget bounds a pattern's run: every trial at five times its nominal length, plus the pauses,
// so a hung probe ends the test long before go test's own timeout would kill it uncleanly.
func budget(t *testing.T, p pattern.Pattern, s settings.Settings) time.Duration {
	last := p.Steps[len(p.Steps)-1].Offset
	perTrial := last + 2*time.Duration(s.SpinMs)*time.Millisecond + time.Second
	b := time.Duration(s.Trials) * (5*perTrial + s.Pause)
	if dl, ok := t.Deadline(); ok && time.Until(dl) < b {
		b = time.Until(dl) - 5*time.Second
	}
	return b
}

// answers are the probe's answers to rs.
func answers(rs []pattern.Request) []protocol.Answer {
	out := make([]protocol.Answer, len(rs))
	for i, r := range rs {
		out[i] = r.Answer
	}
	return out
}

// pingLatencies are the client-side /ping latencies of every trial, in ms.
func (r *run) pingLatencies() []float64 {
	var ms []float64
	for _, tr := range r.trials {
		for _, p := range tr.Of(pattern.KindPing) {
			ms = append(ms, p.LatencyMs)
		}
	}
	return ms
}

// cpuDurations are how long each /cpu's handler ran on the probe's clock, in ms: the evidence
// that the probe really spun for as long as it was asked.
func (r *run) cpuDurations() []float64 {
	var ms []float64
	for _, tr := range r.trials {
		for _, c := range tr.Of(pattern.KindCPU) {
			ms = append(ms, c.Answer.FinishedAt-c.Answer.ReceivedAt)
		}
	}
	return ms
}

// evidential counts the trials whose /ping reached a process already busy with a /cpu.
func (r *run) evidential() stats.Proportion {
	p := stats.Proportion{N: len(r.waits)}
	for _, w := range r.waits {
		if w.Evidential {
			p.K++
		}
	}
	return p
}

// waited counts, among evidential trials, those where the /ping's handler started only after
// `all` co-located /cpu had finished (all = true) or after at least one had (all = false).
func (r *run) waited(all bool) stats.Proportion {
	var p stats.Proportion
	for _, w := range r.waits {
		if !w.Evidential {
			continue
		}
		p.N++
		if (all && w.WaitedFor == w.CoLocated) || (!all && w.WaitedFor > 0) {
			p.K++
		}
	}
	return p
}

// coLocated counts the trials in which every /cpu was answered by the /ping's environment.
func (r *run) coLocated() stats.Proportion {
	p := stats.Proportion{N: len(r.waits)}
	for i, w := range r.waits {
		if w.CoLocated == len(r.trials[i].Of(pattern.KindCPU)) {
			p.K++
		}
	}
	return p
}

func (r *run) summary(evidence stats.Proportion) map[string]any {
	s := map[string]any{
		"ping":       stats.Summarize(r.pingLatencies()),
		"evidential": evidence,
	}
	if len(r.waits) > 0 {
		s["cpuHandlerMs"] = stats.Summarize(r.cpuDurations())
		s["waitedForAll"] = r.waited(true)
		s["waitedForAny"] = r.waited(false)
		s["coLocated"] = r.coLocated()
	}
	return s
}

// check runs experiment e against p with the run's settings, writes its result, and asserts the
// claim: each check, then the verdict.
func check(t *testing.T, e experiment, p *probe.Probe) {
	t.Helper()
	res := e.measure(t, p, cfg)
	record(t, res)
	claimtest.Holds(t, res)
}

// record writes the result under results/eventloop.
func record(t *testing.T, res results.Result) {
	t.Helper()
	results.Record(t, "eventloop", res)
}

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
