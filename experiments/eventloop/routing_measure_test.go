//go:build lambda

package eventloop

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/results/family"
)

// discovery is sent before a routing run's trials and after them: pairs of concurrent /ping,
// whose answers say which environments existed before the first trial and still existed after
// the last (an endpoint scales from zero, and a second environment may come only with concurrent
// requests). An environment seen before and after a trial existed during it.
var discovery = pattern.Pattern{Name: "discovery", Steps: []pattern.Step{
	{Name: "ping", Kind: record.KindPing, Path: "/ping"},
	{Name: "ping2", Kind: record.KindPing, Path: "/ping"},
}}

// discoveryRounds is how many pairs discovery sends.
const discoveryRounds = 5

// routingRun is a run of a pattern on a Web Function, with where each request ran.
type routingRun struct {
	*run
	envs       map[string]int     // logstream -> environment number, from 1 in order of first sighting
	placements []family.Placement // one per trial
	// byEnvID is the one logstream each envId was seen with, over discovery and trials: it places
	// an answer that came without lambda-web-logstream (Lambda sends it only "when present").
	byEnvID map[string]string
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
	all := slices.Concat(before.trials, r.trials, after.trials)
	r.byEnvID = logstreamsByEnvID(all)
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
	for i, tr := range all {
		// Discovery before the trials counts as trial -1, after them as one past the last.
		trial := min(max(i-len(before.trials), -1), len(r.trials))
		for _, q := range tr.Requests {
			log, _ := r.logstream(q)
			seen(log, trial)
		}
	}
	for i, tr := range r.trials {
		r.placements = append(r.placements, place(tr, r.envs, r.logstream, func(env int) bool { return first[env] <= i && last[env] >= i }))
	}
	return r
}

// logstreamsByEnvID maps each envId to the logstream its served answers carried, leaving out an
// envId seen with more than one: there the two ids disagree, and neither can stand for the other.
func logstreamsByEnvID(trials []record.Trial) map[string]string {
	logs := map[string]map[string]bool{}
	for _, tr := range trials {
		for _, q := range tr.Requests {
			if q.Served() && q.EnvHint != "" && q.Answer.EnvID != "" {
				if logs[q.Answer.EnvID] == nil {
					logs[q.Answer.EnvID] = map[string]bool{}
				}
				logs[q.Answer.EnvID][q.EnvHint] = true
			}
		}
	}
	out := map[string]string{}
	for id, set := range logs {
		if len(set) == 1 {
			for log := range set {
				out[id] = log
			}
		}
	}
	return out
}

// logstream is the environment q ran in, by its lambda-web-logstream, or, where the answer came
// without one, by the logstream its envId was seen with (inferred); "" for a throttled request
// and for an answer neither id places.
func (r *routingRun) logstream(q record.Request) (log string, inferred bool) {
	switch {
	case !q.Served():
		return "", false
	case q.EnvHint != "":
		return q.EnvHint, false
	default:
		log = r.byEnvID[q.Answer.EnvID]
		return log, log != ""
	}
}

// place says where tr's requests ran; logstream places one request (routingRun.logstream), and
// alive says whether an environment existed at tr.
func place(tr record.Trial, envs map[string]int, logstream func(record.Request) (string, bool), alive func(env int) bool) family.Placement {
	p := family.Placement{Placed: true, Agree: true}
	logs := make([]string, len(tr.Requests))
	for i, q := range tr.Requests {
		var inferred bool
		logs[i], inferred = logstream(q)
		switch {
		case q.Throttled:
			p.Throttled++
		case q.EnvHint == "":
			p.LogstreamMissing++
			if inferred {
				p.LogstreamInferred++
			} else {
				p.Placed = false
			}
		}
	}
	var cpus []int
	ping := -1
	for i, q := range tr.Requests {
		if q.Kind == record.KindCPU {
			cpus = append(cpus, i)
			p.CPUEnvs = append(p.CPUEnvs, envs[logs[i]])
		} else if ping < 0 {
			ping = i
		}
	}
	p.PingEnv = envs[logs[ping]]
	p.PingThrottled = tr.Requests[ping].Throttled
	for env := 1; env <= len(envs); env++ {
		if p.CPUEnvs[0] != 0 && env != p.CPUEnvs[0] && alive(env) {
			p.OtherExisted = true
		}
	}
	// W9's check takes only answers that carried the header: an inferred logstream is the envId's
	// own word again.
	for i, a := range tr.Requests {
		for _, b := range tr.Requests[i+1:] {
			if a.EnvHint == "" || b.EnvHint == "" || !a.Served() || !b.Served() {
				continue
			}
			p.PairsChecked++
			if (a.Answer.EnvID == b.Answer.EnvID) != (a.EnvHint == b.EnvHint) {
				p.Agree = false
			}
		}
	}
	pingReq := tr.Requests[ping]
	var startedBefore, finishedBefore, runningAt int
	for _, c := range cpus {
		if logs[c] == "" || logs[c] != logs[ping] {
			continue
		}
		p.PingCoLocated++
		cpu := tr.Requests[c].Answer
		if cpu.ReceivedAt < pingReq.Answer.ReceivedAt {
			startedBefore++
		}
		if cpu.FinishedAt <= pingReq.Answer.ReceivedAt {
			finishedBefore++
		} else if cpu.ReceivedAt <= pingReq.Answer.ReceivedAt {
			runningAt++
		}
	}
	// Times are compared only where both ids say one environment: then they are one clock.
	if clocks(p) && p.PingCoLocated > 0 {
		p.PingAfterCPU = startedBefore == p.PingCoLocated
		p.PingWaited = finishedBefore == p.PingCoLocated
		p.PingBesideBusy = runningAt > 0
		p.PingBesideInFlight = finishedBefore < p.PingCoLocated
	}
	if len(cpus) == 2 {
		// On the client's one clock: the second /cpu left in the first half of the first's round
		// trip, so the first was still in the endpoint when the second got there. Node runs the
		// two one after the other in one process, so the process's clock cannot say it.
		a, b := tr.Requests[cpus[0]], tr.Requests[cpus[1]]
		p.SecondCPUWhileFirstBusy = a.Served() && b.Served() && 2*b.SentMs < a.SentMs+a.DoneMs
	}
	return p
}

// clocks says whether the trial's answers in one environment may be compared on its clock: every
// served answer placed, and envId agreeing with the logstream wherever both were given.
func clocks(p family.Placement) bool { return p.Placed && p.Agree }

// share counts, among the trials for which sel holds (N), those for which hit holds too (K).
func (r *routingRun) share(sel, hit func(family.Placement) bool) stats.Proportion {
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

func (r *routingRun) summary() family.RoutingSummary {
	all := func(family.Placement) bool { return true }
	coLocated := func(p family.Placement) bool { return p.PingCoLocated > 0 && clocks(p) }
	s := family.RoutingSummary{
		Ping: r.ping(), Environments: len(r.envs),
		OtherExisted:   r.share(all, otherExisted),
		PingElsewhere:  r.share(pingPlaced, func(p family.Placement) bool { return p.PingCoLocated == 0 }),
		PingWaited:     r.share(coLocated, func(p family.Placement) bool { return p.PingWaited }),
		PingBesideBusy: r.share(all, func(p family.Placement) bool { return p.PingBesideBusy }),
		IDsAgree:       r.share(idsChecked, func(p family.Placement) bool { return p.Agree }),
		Throttled:      r.share(all, func(p family.Placement) bool { return p.Throttled > 0 }),
		PingThrottled:  r.share(all, func(p family.Placement) bool { return p.PingThrottled }),
		Unplaced:       r.share(all, func(p family.Placement) bool { return !p.Placed }),
	}
	if len(r.pattern.Steps) == 3 {
		two := r.w8Share()
		s.TwoOnOneSide = &two
		s.EveryEnvBusy = r.share(all, everyEnvBusy)
	}
	ids, logs := map[string]bool{}, map[string]bool{}
	for i, tr := range r.trials {
		for _, q := range tr.Requests {
			if q.Served() {
				ids[q.Answer.EnvID] = true
			}
			if q.EnvHint != "" {
				logs[q.EnvHint] = true
			}
		}
		pl := r.placements[i]
		s.ThrottledRequests += pl.Throttled
		s.LogstreamMissing += pl.LogstreamMissing
		s.LogstreamInferred += pl.LogstreamInferred
	}
	s.EnvIDsSeen, s.LogstreamsInRun = len(ids), len(logs)
	return s
}

// notEvidence says, for a headline, what kept trials from being evidence: throttled requests and
// answers without a logstream; "" when nothing did.
func notEvidence(s family.RoutingSummary) string {
	var parts []string
	if s.ThrottledRequests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests throttled (429) in %s trials", s.ThrottledRequests, s.Throttled))
	}
	if s.LogstreamMissing > 0 {
		parts = append(parts, fmt.Sprintf("%d answers without lambda-web-logstream, %d of them placed by envId", s.LogstreamMissing, s.LogstreamInferred))
	}
	return strings.Join(parts, "; ")
}

// routed is every trial with its placement.
func (r *routingRun) routed() []family.RoutedTrial {
	out := make([]family.RoutedTrial, len(r.trials))
	for i, tr := range r.trials {
		out[i] = family.RoutedTrial{Trial: tr, Placement: r.placements[i]}
	}
	return out
}

// pingOutcomes counts where r's /ping went in the trials with every environment busy.
func (r *routingRun) pingOutcomes() family.PingOutcomes {
	beside := func(p family.Placement) bool { return p.PingBesideBusy }
	return family.PingOutcomes{
		BesideBusy:       r.share(everyEnvBusy, beside),
		Elsewhere:        r.share(everyEnvBusy, func(p family.Placement) bool { return p.PingEnv != 0 && p.PingCoLocated == 0 }),
		Queued:           r.share(everyEnvBusy, func(p family.Placement) bool { return p.PingWaited }),
		ArrivedFirst:     r.share(everyEnvBusy, func(p family.Placement) bool { return p.PingCoLocated > 0 && !p.PingAfterCPU }),
		Throttled:        r.share(everyEnvBusy, func(p family.Placement) bool { return p.PingThrottled }),
		Unplaced:         r.share(everyEnvBusy, func(p family.Placement) bool { return !p.PingThrottled && p.PingEnv == 0 }),
		ServedBesideBusy: r.share(func(p family.Placement) bool { return everyEnvBusy(p) && !p.PingThrottled }, beside),
	}
}
