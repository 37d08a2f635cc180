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
func logstreamsByEnvID(trials []pattern.Trial) map[string]string {
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
func (r *routingRun) logstream(q pattern.Request) (log string, inferred bool) {
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
func place(tr pattern.Trial, envs map[string]int, logstream func(pattern.Request) (string, bool), alive func(env int) bool) placement {
	p := placement{Placed: true, Agree: true}
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
		if q.Kind == pattern.KindCPU {
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
	if p.clocks() && p.PingCoLocated > 0 {
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
func (p placement) clocks() bool { return p.Placed && p.Agree }

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
	Ping         stats.Summary `json:"ping"`         // client-side /ping latency, served ones
	Environments int           `json:"environments"` // distinct logstreams seen, discovery included
	// Each share's N is the trials it is taken over, K those it counts.
	OtherExisted    stats.Proportion  `json:"otherExisted"`           // another environment than the first /cpu's existed, of all
	PingElsewhere   stats.Proportion  `json:"pingElsewhere"`          // the /ping in no /cpu's environment, of those
	TwoOnOneSide    *stats.Proportion `json:"twoOnOneSide,omitempty"` // both /cpu in one environment at once, of those (two /cpu)
	EveryEnvBusy    stats.Proportion  `json:"everyEnvBusy"`           // the two /cpu in two environments, of all (two /cpu)
	PingWaited      stats.Proportion  `json:"pingWaited"`             // the /ping waited for the /cpu beside it, of co-located trials
	PingBesideBusy  stats.Proportion  `json:"pingBesideBusy"`         // the /ping's handler started while a /cpu beside it ran, of all
	IDsAgree        stats.Proportion  `json:"idsAgree"`               // envId and logstream agreed, of trials with a pair to check
	EnvIDsSeen      int               `json:"envIdsSeen"`             // distinct envIds seen in the trials
	LogstreamsInRun int               `json:"logstreamsInRun"`        // distinct logstreams seen in the trials
	// What kept trials from being evidence: throttled requests (429, served nowhere) and
	// answers without lambda-web-logstream, placed by their envId or not at all.
	Throttled         stats.Proportion `json:"throttled"`         // trials with a throttled request, of all
	PingThrottled     stats.Proportion `json:"pingThrottled"`     // trials whose /ping was throttled, of all
	ThrottledRequests int              `json:"throttledRequests"` // throttled requests in the trials
	LogstreamMissing  int              `json:"logstreamMissing"`  // served answers in the trials without the header
	LogstreamInferred int              `json:"logstreamInferred"` // of those, placed by the logstream their envId carried elsewhere
	Unplaced          stats.Proportion `json:"unplaced"`          // trials with a served answer neither id placed, of all
}

func (r *routingRun) summary() routingSummary {
	all := func(placement) bool { return true }
	coLocated := func(p placement) bool { return p.PingCoLocated > 0 && p.clocks() }
	s := routingSummary{
		Ping: r.ping(), Environments: len(r.envs),
		OtherExisted:   r.share(all, otherExisted),
		PingElsewhere:  r.share(pingPlaced, func(p placement) bool { return p.PingCoLocated == 0 }),
		PingWaited:     r.share(coLocated, func(p placement) bool { return p.PingWaited }),
		PingBesideBusy: r.share(all, func(p placement) bool { return p.PingBesideBusy }),
		IDsAgree:       r.share(idsChecked, func(p placement) bool { return p.Agree }),
		Throttled:      r.share(all, func(p placement) bool { return p.Throttled > 0 }),
		PingThrottled:  r.share(all, func(p placement) bool { return p.PingThrottled }),
		Unplaced:       r.share(all, func(p placement) bool { return !p.Placed }),
	}
	if len(r.pattern.Steps) == 3 {
		two := r.share(cpusPlaced, twoAtOnce)
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
func (s routingSummary) notEvidence() string {
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
func (r *routingRun) routed() []routedTrial {
	out := make([]routedTrial, len(r.trials))
	for i, tr := range r.trials {
		out[i] = routedTrial{Trial: tr, Placement: r.placements[i]}
	}
	return out
}

// concurrencySummary is W12's: the routing at the default and at the lowered setting, and what
// lowering it did to the /ping's latency and to where the /ping went.
type concurrencySummary struct {
	Default routingSummary `json:"default"`
	Lowered routingSummary `json:"lowered"`
	// PingP50RatioLoweredToDefault is the served /ping's p50 lowered over default, one run's clock.
	// The ratio is left out, and PingFaster false, when either setting served no /ping.
	PingP50RatioLoweredToDefault *float64 `json:"pingP50RatioLoweredToDefault,omitempty"`
	PingFaster                   bool     `json:"pingFaster"`
	// DefaultPings and LoweredPings say where each /ping of a trial with every environment busy
	// went, so that fewer /ping beside a running /cpu can be read as placed elsewhere, queued or
	// throttled.
	DefaultPings pingOutcomes `json:"defaultPings"`
	LoweredPings pingOutcomes `json:"loweredPings"`
}

// pingOutcomes are the /ping of the trials with every environment busy (N of each share), by
// where they went.
type pingOutcomes struct {
	BesideBusy stats.Proportion `json:"besideBusy"` // handled while a /cpu beside it ran
	// Elsewhere: served in an environment none of the trial's /cpu ran in.
	Elsewhere stats.Proportion `json:"elsewhere"`
	// Queued: served beside a /cpu only after it had finished: the request waited for a free
	// slot, not in the process.
	Queued stats.Proportion `json:"queued"`
	// ArrivedFirst: served beside a /cpu whose handler had not started yet.
	ArrivedFirst stats.Proportion `json:"arrivedFirst"`
	Throttled    stats.Proportion `json:"throttled"` // answered 429 by the endpoint, served nowhere
	Unplaced     stats.Proportion `json:"unplaced"`  // served, but neither id said where
	// ServedBesideBusy is BesideBusy among the served /ping only.
	ServedBesideBusy stats.Proportion `json:"servedBesideBusy"`
}

// pingOutcomes counts where r's /ping went in the trials with every environment busy.
func (r *routingRun) pingOutcomes() pingOutcomes {
	beside := func(p placement) bool { return p.PingBesideBusy }
	return pingOutcomes{
		BesideBusy:       r.share(everyEnvBusy, beside),
		Elsewhere:        r.share(everyEnvBusy, func(p placement) bool { return p.PingEnv != 0 && p.PingCoLocated == 0 }),
		Queued:           r.share(everyEnvBusy, func(p placement) bool { return p.PingWaited }),
		ArrivedFirst:     r.share(everyEnvBusy, func(p placement) bool { return p.PingCoLocated > 0 && !p.PingAfterCPU }),
		Throttled:        r.share(everyEnvBusy, func(p placement) bool { return p.PingThrottled }),
		Unplaced:         r.share(everyEnvBusy, func(p placement) bool { return !p.PingThrottled && p.PingEnv == 0 }),
		ServedBesideBusy: r.share(func(p placement) bool { return everyEnvBusy(p) && !p.PingThrottled }, beside),
	}
}

// String reads "beside a busy /cpu 0/8, elsewhere 0/8, queued 0/8, throttled 8/8".
func (o pingOutcomes) String() string {
	s := fmt.Sprintf("beside a busy /cpu %s, elsewhere %s, queued %s, throttled %s", o.BesideBusy, o.Elsewhere, o.Queued, o.Throttled)
	if o.ArrivedFirst.K > 0 {
		s += fmt.Sprintf(", before its /cpu started %s", o.ArrivedFirst)
	}
	if o.Unplaced.K > 0 {
		s += fmt.Sprintf(", not placed %s", o.Unplaced)
	}
	return s
}

// concurrencyParameters are W12's: the pattern's, and the two settings compared.
type concurrencyParameters struct {
	parameters
	Default int `json:"defaultMaxConcurrencyPerEnvironment"`
	Lowered int `json:"loweredMaxConcurrencyPerEnvironment"`
}
