package report

// The event-loop families' charts (eventloop, eventloop.routing, eventloop.concurrency), drawn as
// the article's measurement page draws a run: one row per trial, a bar for each request's handler
// on the answering process's own clock, the /ping coloured by what the experiment decided.

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

func init() {
	register("eventloop", elChart)
	register("eventloop.routing", elRoutingChart)
	register("eventloop.concurrency", elConcurrencyChart)
}

// elTrial is one trial as the charts draw it: its requests and the evidence the experiment decided
// from, a wait (eventloop: one process) or a placement (eventloop.routing and .concurrency: a
// router in front of several). It reads either family's trial (results/family).
type elTrial struct {
	record.Trial
	Wait      *record.Wait      `json:"wait"`
	Placement *family.Placement `json:"placement"`
}

// probeTimes says whether the probe's own times of q can be drawn: an answer with an envId (whose
// clock they are on) and its times, in order. An answer without times (both 0: a probe that does
// not keep them) is drawn from the client's.
func probeTimes(q record.Request) bool {
	a := q.Answer
	return q.Error == "" && a.EnvID != "" && (a.ReceivedAt != 0 || a.FinishedAt != 0) && a.FinishedAt >= a.ReceivedAt
}

// elPingLook is how a trial's /ping is drawn: its colour and the words at the row's end.
type elPingLook struct{ colour, note string }

// elChart draws an eventloop result: one probe process, so that every /ping's colour comes
// from the trial's wait.
func elChart(e Entry) ([]Figure, error) {
	var p family.ConcurrencyParameters
	var trials []elTrial
	if err := elDecode(e, &p, &trials); err != nil {
		return nil, err
	}
	probe, err := elProbe(e)
	if err != nil {
		return nil, err
	}
	cpu := elHasCPU(p, trials)
	legend := []svg.LegendItem{{Colour: svg.Ping, Label: "/ping"}}
	if cpu {
		legend = []svg.LegendItem{{Colour: svg.CPU, Label: "/cpu"}, {Colour: svg.Ping, Label: "/ping that did not wait"},
			{Colour: svg.PingWaited, Label: "/ping that waited for a /cpu"}}
	}
	t := elTimeline{legend: legend, look: elWaitLook, label: "each trial's requests on the probe's clock"}
	html, fallbacks := t.draw(trials)
	return []Figure{{
		Title:   elTitle(e, probe, p, "each trial on the probe's clock"),
		Caption: elPatternCaption(p) + " " + elClockCaption(false, fallbacks),
		SVG:     html, Entry: e,
	}}, nil
}

// elWaitLook colours a /ping by its trial's wait as the experiment decided it: waited for at least
// one /cpu of its process (waitedFor), or not; a trial whose /ping was handled before any /cpu
// started (not evidential) says so, as it shows nothing about waiting.
func elWaitLook(tr elTrial) elPingLook {
	w := tr.Wait
	switch {
	case w == nil && len(elOf(tr, "cpu")) == 0:
		return elPingLook{svg.Ping, ""} // the baseline: nothing to wait for
	case w == nil:
		return elPingLook{svg.Ping, "no wait evidence"}
	case w.CoLocated == 0:
		return elPingLook{svg.PingElsewhere, "another environment"}
	case w.WaitedFor > 0 && w.WaitedFor < w.CoLocated:
		return elPingLook{svg.PingWaited, fmt.Sprintf("waited for %d of %d", w.WaitedFor, w.CoLocated)}
	case w.WaitedFor > 0:
		return elPingLook{svg.PingWaited, "waited"}
	case !w.Evidential:
		return elPingLook{svg.Ping, "not evidential"}
	default:
		return elPingLook{svg.Ping, "did not wait"}
	}
}

// elRoutingChart draws an eventloop.routing result: a router in front of several environments, so
// that a /ping's colour comes from the trial's placement.
func elRoutingChart(e Entry) ([]Figure, error) {
	var p family.ConcurrencyParameters
	var trials []elTrial
	if err := elDecode(e, &p, &trials); err != nil {
		return nil, err
	}
	var s family.RoutingSummary
	if err := Decode(e.Result.Summary, &s); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	probe, err := elProbe(e)
	if err != nil {
		return nil, err
	}
	f, err := elRoutedFigure(e, p, trials, s.Environments, "")
	if err != nil {
		return nil, err
	}
	f.Title = elTitle(e, probe, p, "each trial on its environments' clocks")
	return []Figure{f}, nil
}

// elConcurrencyChart draws W12's result: the same routed pattern at the default
// maxConcurrencyPerEnvironment and at the lowered one, one figure each.
func elConcurrencyChart(e Entry) ([]Figure, error) {
	var p family.ConcurrencyParameters
	if err := Decode(e.Result.Parameters, &p); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	var trials struct{ Default, Lowered []elTrial }
	if err := Decode(e.Result.Trials, &trials); err != nil {
		return nil, fmt.Errorf("trials: %w", err)
	}
	var s family.ConcurrencySummary
	if err := Decode(e.Result.Summary, &s); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	probe, err := elProbe(e)
	if err != nil {
		return nil, err
	}
	var figs []Figure
	for _, setting := range []struct {
		name   string
		conc   int
		trials []elTrial
		envs   int
	}{
		{"default", p.Default, trials.Default, s.Default.Environments},
		{"lowered", p.Lowered, trials.Lowered, s.Lowered.Environments},
	} {
		if len(setting.trials) == 0 {
			return nil, fmt.Errorf("trials: no %s trials", setting.name)
		}
		// The title names the setting, not its number, so that a live run beside a local one
		// whose default differs still shares the row; the caption gives the number.
		f, err := elRoutedFigure(e, p, setting.trials, setting.envs, fmt.Sprintf("maxConcurrencyPerEnvironment %d (%s).", setting.conc, setting.name))
		if err != nil {
			return nil, fmt.Errorf("%s trials: %w", setting.name, err)
		}
		f.Title = elTitle(e, probe, p, "each trial at the "+setting.name+" maxConcurrencyPerEnvironment")
		figs = append(figs, f)
	}
	return figs, nil
}

// elRoutedFigure draws routed trials; setting is a sentence the caption starts with, or "".
func elRoutedFigure(e Entry, p family.ConcurrencyParameters, trials []elTrial, envs int, setting string) (Figure, error) {
	for _, tr := range trials {
		if tr.Placement == nil {
			return Figure{}, fmt.Errorf("trial %d has no placement", tr.Index)
		}
	}
	legend := []svg.LegendItem{{Colour: svg.CPU, Label: "/cpu"}, {Colour: svg.Ping, Label: "/ping"},
		{Colour: svg.PingWaited, Label: "/ping that waited for a /cpu"}, {Colour: svg.PingElsewhere, Label: "/ping in another environment"}}
	t := elTimeline{legend: legend, look: elPlacementLook, label: "each trial's requests on their environments' clocks"}
	html, fallbacks := t.draw(trials)
	caption := elPatternCaption(p)
	if setting != "" {
		caption = setting + " " + caption
	}
	caption += " " + elClockCaption(true, fallbacks) +
		fmt.Sprintf(" %d environments seen (the discovery /ping pairs around the trials are not drawn).", envs)
	return Figure{Caption: caption, SVG: html, Entry: e}, nil
}

// elPlacementLook colours a routed /ping by its placement as the experiment decided it: in no
// /cpu's environment (by logstream), waited for the /cpu beside it, or neither. The row's words
// say where the trial's requests went, "two on one side" first (W8's evidence).
func elPlacementLook(tr elTrial) elPingLook {
	pl := tr.Placement
	elsewhere := pl.PingEnv != 0 && pl.PingCoLocated == 0
	look := elPingLook{colour: svg.Ping}
	switch {
	case elsewhere:
		look.colour = svg.PingElsewhere
	case pl.PingWaited:
		look.colour = svg.PingWaited
	}
	switch {
	case elTwoOnOneSide(*pl):
		look.note = "two on one side"
	case elsewhere:
		look.note = "another environment"
	case pl.PingCoLocated > 0:
		look.note = "co-located"
	case pl.PingThrottled:
		look.note = "/ping throttled (429)"
	default:
		look.note = "environment unknown"
	}
	return look
}

// elTwoOnOneSide says whether every /cpu of the trial (two at least) ran in one known environment
// while another existed.
func elTwoOnOneSide(pl family.Placement) bool {
	if len(pl.CPUEnvs) < 2 || !pl.OtherExisted || pl.CPUEnvs[0] == 0 {
		return false
	}
	for _, env := range pl.CPUEnvs[1:] {
		if env != pl.CPUEnvs[0] {
			return false
		}
	}
	return true
}

// elDecode reads a result's parameters and trials, which must hold at least one trial.
func elDecode(e Entry, p *family.ConcurrencyParameters, trials *[]elTrial) error {
	if err := decodeParts(e, p, nil, trials); err != nil {
		return err
	}
	if len(*trials) == 0 {
		return fmt.Errorf("trials: none")
	}
	return nil
}

// elHasCPU says whether the pattern, or failing that any trial, sends a /cpu.
func elHasCPU(p family.ConcurrencyParameters, trials []elTrial) bool {
	for _, s := range p.Steps {
		if s.Kind == "cpu" {
			return true
		}
	}
	for _, tr := range trials {
		if len(elOf(tr, "cpu")) > 0 {
			return true
		}
	}
	return false
}

// elOf is the trial's requests of one kind.
func elOf(tr elTrial, kind string) []record.Request { return tr.Of(kind) }

// elTitle names the figure by its claims, its probe and what each trial sent, then what it
// shows: the page heads a row with the title alone. It leaves out every figure (spin, offsets),
// which a live run may set apart from a local one drawn beside it.
func elTitle(e Entry, probe string, p family.ConcurrencyParameters, what string) string {
	sent := map[string]string{"ping-only": "/ping alone", "one-cpu": "/cpu, then /ping", "two-cpu": "two /cpu, then /ping"}[p.Pattern]
	if sent == "" {
		sent = p.Pattern
	}
	for _, s := range p.Steps {
		if mode := elQuery(s.Path, "mode"); s.Kind == "cpu" && mode != "" {
			sent += " (/cpu in mode " + mode + ")"
			break
		}
	}
	who := strings.Join(e.Result.Claims, ", ")
	if probe != "" {
		who += ", " + probe
	}
	return fmt.Sprintf("%s: %s; %s", who, sent, what)
}

// elProbe is the probe the result ran, "Node probe" or "Go probe" (W12's: its default endpoint's),
// or "" where the target does not say. It is part of what the experiment is, the same for every
// variant of one Base, unlike the runtime's version.
func elProbe(e Entry) (string, error) {
	// A probe (eventloop), an endpoint (eventloop.routing) or two (eventloop.concurrency).
	var runtime string
	var err error
	switch e.Result.Family {
	case "eventloop":
		var p record.Probe
		err = Decode(e.Result.Target, &p)
		runtime = p.Runtime
	case "eventloop.concurrency":
		var c family.ConcurrencyTarget
		err = Decode(e.Result.Target, &c)
		runtime = c.Default.Runtime
	default:
		var w family.WebFunction
		err = Decode(e.Result.Target, &w)
		runtime = w.Runtime
	}
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	switch runtime {
	case "node":
		return "Node probe", nil
	case "go":
		return "Go probe", nil
	}
	return "", nil
}

// elQuery is the value of key in path's query, or "".
func elQuery(path, key string) string {
	u, err := url.Parse(path)
	if err != nil {
		return ""
	}
	return u.Query().Get(key)
}

// elPatternCaption is what each trial sent, in one line: each step's path at its offset, the spin,
// and the trials.
func elPatternCaption(p family.ConcurrencyParameters) string {
	var steps []string
	for _, s := range p.Steps {
		steps = append(steps, fmt.Sprintf("%s at %g", s.Path, s.OffsetMs))
	}
	c := fmt.Sprintf("%s: %s ms", p.Pattern, strings.Join(steps, ", "))
	if elHasCPU(p, nil) {
		c += fmt.Sprintf(" (spin %d ms)", p.SpinMs)
	}
	return c + fmt.Sprintf("; %d trials, %d ms apart.", p.Trials, p.PauseMs)
}

// elClockCaption says how the times were put on one axis, and which bars are the client's.
func elClockCaption(routed bool, fallbacks int) string {
	whose := "the probe's clock"
	if routed {
		whose = "each environment's clock"
	}
	c := "Handlers on " + whose + ", shifted so that none starts before it was sent; grey: a /ping not yet handled; latency as the client saw it."
	if fallbacks > 0 {
		c += fmt.Sprintf(" %d request(s) without the probe's times are drawn from the client's sent to done.", fallbacks)
	}
	return c
}
