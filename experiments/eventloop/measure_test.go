package eventloop

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/harness/workload/target"
	"github.com/serverless-claims/claims/results/family"
)

// Measuring: the claim's pattern run on its target (measure), and what the experiments read from
// the trials (which were evidence, in which the /ping waited, its latency) and the result records.

// warmupPings are sent before every experiment's first trial (see pattern.Schedule.Warmup).
const warmupPings = 20

// run is one pattern measured on one target.
type run struct {
	w        *web
	settings settings.Settings
	pattern  pattern.Pattern
	started  time.Time
	env      results.Environment
	trials   []record.Trial
	waits    []record.Wait // one per trial, for patterns with /cpu
}

// measure runs pat against w; it fails the test only when the measurement itself breaks (a
// request errs), never on the verdict.
func measure(t *testing.T, w *web, pat pattern.Pattern, s settings.Settings) *run {
	t.Helper()
	limit := budget(t, pat, s)
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	r := &run{w: w, settings: s, pattern: pat, started: time.Now(), env: w.env}
	r.env.LoadAvg1 = results.Fingerprint().LoadAvg1 // as the run starts, not as the target did
	sched := pattern.Schedule{Trials: s.Trials, Pause: s.Pause, Warmup: warmupPings}
	trials, err := pattern.Run(ctx, w.endpoints, pat, sched)
	if errors.Is(err, target.ErrCredentials) {
		t.Fatalf("pattern %s: a credentials error, not a finding; no result written: %v", pat.Name, err)
	}
	require.NoError(t, err, "running pattern %s (allowed %v, within the test's deadline)", pat.Name, limit.Round(time.Second))
	r.trials = trials
	for _, tr := range trials {
		if len(tr.Of(record.KindCPU)) > 0 {
			r.waits = append(r.waits, record.TrialWait(tr))
		}
	}
	return r
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

// ping summarizes the client-side latencies of every trial's served /ping: a throttled one's is
// the endpoint's refusal, not a /ping's.
func (r *run) ping() stats.Summary {
	var ms []float64
	for _, tr := range r.trials {
		for _, p := range tr.Of(record.KindPing) {
			if !p.Throttled {
				ms = append(ms, p.LatencyMs)
			}
		}
	}
	return stats.Summarize(ms)
}

// cpuHandler summarizes how long each /cpu's handler ran on the probe's clock: the evidence that
// the probe really spun for as long as it was asked.
func (r *run) cpuHandler() stats.Summary {
	var ms []float64
	for _, tr := range r.trials {
		for _, c := range tr.Of(record.KindCPU) {
			ms = append(ms, c.Answer.FinishedAt-c.Answer.ReceivedAt)
		}
	}
	return stats.Summarize(ms)
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
		if w.CoLocated == len(r.trials[i].Of(record.KindCPU)) {
			p.K++
		}
	}
	return p
}

// headline is the /ping's latency and how many evidential trials it waited in: for every /cpu
// (all = true) or for any.
func (r *run) headline(all bool) string {
	what := "a /cpu"
	if all {
		what = "every /cpu"
	}
	return fmt.Sprintf("%s; waited for %s in %s", r.ping(), what, r.waited(all))
}

// measurement is r decided by evidence and checks, with its headline.
func (r *run) measurement(headline string, evidence stats.Proportion, checks ...verdict.Check) claimtest.Measurement {
	return claimtest.Measurement{
		Target:      r.w,
		Broken:      r.w.broken,
		StartedAt:   r.started,
		Headline:    headline,
		Parameters:  r.parameters(),
		Summary:     r.summary(evidence),
		Trials:      r.records(),
		Environment: r.env,
		Evidence:    evidence,
		Checks:      checks,
	}
}

func (r *run) parameters() family.EventLoopParameters {
	p := family.EventLoopParameters{
		Pattern: r.pattern.Name, Trials: r.settings.Trials, SpinMs: r.settings.SpinMs,
		PauseMs: r.settings.PauseMs(), WarmupPings: warmupPings,
	}
	for _, s := range r.pattern.Steps {
		p.Steps = append(p.Steps, family.Step{Name: s.Name, Kind: s.Kind, Path: s.Path, OffsetMs: ms(s.Offset)})
	}
	return p
}

func (r *run) summary(evidence stats.Proportion) family.EventLoopSummary {
	s := family.EventLoopSummary{Ping: r.ping(), Evidential: evidence}
	if len(r.waits) > 0 {
		cpu, all, anyWait, co := r.cpuHandler(), r.waited(true), r.waited(false), r.coLocated()
		s.CPUHandler, s.WaitedForAll, s.WaitedForAny, s.CoLocated = &cpu, &all, &anyWait, &co
	}
	return s
}

func (r *run) records() []family.EventLoopTrial {
	out := make([]family.EventLoopTrial, len(r.trials))
	for i, tr := range r.trials {
		out[i].Trial = tr
		if i < len(r.waits) {
			w := r.waits[i]
			out[i].Wait = &w
		}
	}
	return out
}

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
