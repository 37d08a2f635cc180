//go:build lambda

package eventloop

import (
	"slices"
	"testing"

	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/pattern"
	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// discovery is sent before a routing run's trials and after them: pairs of concurrent /ping,
// whose answers say which environments existed before the first trial and still existed after
// the last (an endpoint scales from zero, and a second environment may come only with concurrent
// requests). An environment seen before and after a trial existed during it.
var discovery = pattern.Pattern{Name: "discovery", Steps: []pattern.Step{
	{Name: "ping", Kind: pattern.KindPing, Path: "/ping"},
	{Name: "ping2", Kind: pattern.KindPing, Path: "/ping"},
}}

// discoveryRounds is how many pairs discovery sends.
const discoveryRounds = 5

// routingRun is a run of a pattern on a Web Function, with where each request ran.
type routingRun struct {
	*run
	envs       map[string]int // logstream -> environment number, from 1 in order of first sighting
	placements []placement    // one per trial
}

// measureRouting runs discovery, then pat, against w, and places every trial.
func measureRouting(t *testing.T, w *web, pat pattern.Pattern, s settings.Settings) *routingRun {
	t.Helper()
	discover := func() *run {
		return measure(t, w, discovery, settings.Settings{Trials: discoveryRounds, SpinMs: s.SpinMs})
	}
	before := discover()
	r := &routingRun{run: measure(t, w, pat, s), envs: map[string]int{}}
	after := discover()
	first, last := map[int]int{}, map[int]int{}
	seen := func(log string, trial int) int {
		if log == "" {
			return 0
		}
		n, ok := r.envs[log]
		if !ok {
			n = len(r.envs) + 1
			r.envs[log] = n
			first[n] = trial
		}
		last[n] = max(last[n], trial)
		return n
	}
	for i, tr := range slices.Concat(before.trials, r.trials, after.trials) {
		// Discovery before the trials counts as trial -1, after them as one past the last.
		trial := min(max(i-len(before.trials), -1), len(r.trials))
		for _, q := range tr.Requests {
			seen(q.EnvHint, trial)
		}
	}
	for i, tr := range r.trials {
		r.placements = append(r.placements, place(tr, r.envs, func(env int) bool { return first[env] <= i && last[env] >= i }))
	}
	return r
}

// place says where tr's requests ran; alive says whether an environment existed at tr.
func place(tr pattern.Trial, envs map[string]int, alive func(env int) bool) placement {
	var p placement
	cpus, ping := tr.Of(pattern.KindCPU), tr.Of(pattern.KindPing)[0]
	for _, c := range cpus {
		p.CPUEnvs = append(p.CPUEnvs, envs[c.EnvHint])
	}
	p.PingEnv = envs[ping.EnvHint]
	for env := 1; env <= len(envs); env++ {
		if env != p.CPUEnvs[0] && alive(env) {
			p.OtherExisted = true
		}
	}
	p.Agree = true
	for i, a := range tr.Requests {
		for _, b := range tr.Requests[i+1:] {
			if a.EnvHint == "" || b.EnvHint == "" || (a.Answer.EnvID == b.Answer.EnvID) != (a.EnvHint == b.EnvHint) {
				p.Agree = false
			}
		}
	}
	var startedBefore, finishedBefore, runningAt int
	for _, c := range cpus {
		if c.EnvHint != ping.EnvHint || ping.EnvHint == "" {
			continue
		}
		p.PingCoLocated++
		if c.Answer.ReceivedAt < ping.Answer.ReceivedAt {
			startedBefore++
		}
		if c.Answer.FinishedAt <= ping.Answer.ReceivedAt {
			finishedBefore++
		} else if c.Answer.ReceivedAt <= ping.Answer.ReceivedAt {
			runningAt++
		}
	}
	// Times are compared only where both ids say one environment: then they are one clock.
	if p.Agree && p.PingCoLocated > 0 {
		p.PingAfterCPU = startedBefore == p.PingCoLocated
		p.PingWaited = finishedBefore == p.PingCoLocated
		p.PingBesideBusy = runningAt > 0
	}
	return p
}

// share counts, among the trials for which sel holds (N), those for which hit holds too (K).
func (r *routingRun) share(sel, hit func(placement) bool) stats.Proportion {
	var p stats.Proportion
	for _, pl := range r.placements {
		if sel(pl) {
			p.N++
			if hit(pl) {
				p.K++
			}
		}
	}
	return p
}

// measurement is r decided by its evidential trials and checks.
func (r *routingRun) measurement(headline string, evidential int, checks ...verdict.Check) claimtest.Measurement {
	m := r.run.measurement(headline, stats.Proportion{K: evidential, N: len(r.trials)}, checks...)
	m.Summary = r.summary()
	m.Trials = r.routed()
	return m
}

// routingSummary is a routing result's figures: the shares behind each routing claim, whichever
// the result decides, so that one run's result can be read for all of them.
type routingSummary struct {
	Ping         stats.Summary `json:"ping"`         // client-side /ping latency
	Environments int           `json:"environments"` // distinct logstreams seen, discovery included
	// Each share's N is the trials it is taken over, K those it counts.
	OtherExisted    stats.Proportion  `json:"otherExisted"`           // another environment than the first /cpu's existed, of all
	PingElsewhere   stats.Proportion  `json:"pingElsewhere"`          // the /ping in no /cpu's environment, of those
	TwoOnOneSide    *stats.Proportion `json:"twoOnOneSide,omitempty"` // both /cpu in one environment, of those (two /cpu)
	EveryEnvBusy    stats.Proportion  `json:"everyEnvBusy"`           // the two /cpu in two environments, of all (two /cpu)
	PingWaited      stats.Proportion  `json:"pingWaited"`             // the /ping waited for the /cpu beside it, of co-located trials
	PingBesideBusy  stats.Proportion  `json:"pingBesideBusy"`         // the /ping's handler started while a /cpu beside it ran, of all
	IDsAgree        stats.Proportion  `json:"idsAgree"`               // envId and logstream agreed, of all
	EnvIDsSeen      int               `json:"envIdsSeen"`             // distinct envIds seen in the trials
	LogstreamsInRun int               `json:"logstreamsInRun"`        // distinct logstreams seen in the trials
}

func (r *routingRun) summary() routingSummary {
	all := func(placement) bool { return true }
	coLocated := func(p placement) bool { return p.PingCoLocated > 0 && p.Agree }
	s := routingSummary{
		Ping: r.ping(), Environments: len(r.envs),
		OtherExisted:   r.share(all, otherExisted),
		PingElsewhere:  r.share(otherExisted, func(p placement) bool { return p.PingCoLocated == 0 }),
		PingWaited:     r.share(coLocated, func(p placement) bool { return p.PingWaited }),
		PingBesideBusy: r.share(all, func(p placement) bool { return p.PingBesideBusy }),
		IDsAgree:       r.share(all, func(p placement) bool { return p.Agree }),
	}
	if len(r.pattern.Steps) == 3 {
		two := r.share(otherExisted, func(p placement) bool { return p.CPUEnvs[0] == p.CPUEnvs[1] })
		s.TwoOnOneSide = &two
		s.EveryEnvBusy = r.share(all, everyEnvBusy)
	}
	ids, logs := map[string]bool{}, map[string]bool{}
	for _, tr := range r.trials {
		for _, q := range tr.Requests {
			ids[q.Answer.EnvID], logs[q.EnvHint] = true, true
		}
	}
	s.EnvIDsSeen, s.LogstreamsInRun = len(ids), len(logs)
	return s
}

// routed is every trial with its placement.
func (r *routingRun) routed() []routedTrial {
	out := make([]routedTrial, len(r.trials))
	for i, tr := range r.trials {
		out[i] = routedTrial{Trial: tr, Placement: r.placements[i]}
	}
	return out
}

// concurrencySummary is W12's: the routing at the default and at the lowered setting, and what
// lowering it did to the /ping's latency.
type concurrencySummary struct {
	Default routingSummary `json:"default"`
	Lowered routingSummary `json:"lowered"`
	// PingP50RatioLoweredToDefault is the /ping's p50 lowered over default, one run's clock.
	PingP50RatioLoweredToDefault float64 `json:"pingP50RatioLoweredToDefault"`
	PingFaster                   bool    `json:"pingFaster"`
	// QueuedPings are the /ping that reached an environment only after the /cpu beside them had
	// finished, at the lowered setting: the request waited for a free slot, not in the process.
	QueuedPings stats.Proportion `json:"queuedPings"`
}

// concurrencyParameters are W12's: the pattern's, and the two settings compared.
type concurrencyParameters struct {
	parameters
	Default int `json:"defaultMaxConcurrencyPerEnvironment"`
	Lowered int `json:"loweredMaxConcurrencyPerEnvironment"`
}
