// Package record is what a run of a request pattern records, as a result keeps it: each trial's
// requests as sent and answered, the probe process that answered them, and the evidence read from
// one trial on one probe's own clock (PingWait, TrialWait, Trial.SentInOrder), so that network
// jitter and a noisy machine cannot touch it. harness/workload/pattern and probe produce these,
// results/family holds them, the report reads them; the package imports no more than the types
// they hold.
package record

import (
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/workload/protocol"
)

// The kinds of request a pattern sends.
const (
	KindCPU  = "cpu"
	KindPing = "ping"
)

// Kinds are the kinds of request, for the result's schema.
var Kinds = []string{KindCPU, KindPing}

// Request is one request of a trial as sent and answered (harness/workload/pattern sends it).
// Times are ms from the trial's start on the harness's clock; Answer's are on the probe's clock.
type Request struct {
	Name     string  `json:"name" jsonschema:"minLength=1"`
	Kind     string  `json:"kind"`
	Path     string  `json:"path" jsonschema:"pattern=^/"`
	OffsetMs float64 `json:"offsetMs" jsonschema:"minimum=0"` // when the pattern says to send it
	SentMs   float64 `json:"sentMs"`                          // when it was sent
	DoneMs   float64 `json:"doneMs"`                          // when its answer was read
	// DoneMs - SentMs, what the article calls latency
	LatencyMs float64         `json:"latencyMs"`
	Status    int             `json:"status"`
	Answer    protocol.Answer `json:"answer"`
	EnvHint   string          `json:"envHint,omitempty"`   // the platform's logstream: which environment answered
	RequestID string          `json:"requestId,omitempty"` // the platform's id of the request
	// Throttled: the endpoint answered 429, no environment having a free slot; no environment
	// served the request, so it has no answer and says nothing about where requests ran.
	Throttled bool   `json:"throttled,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Trial is one run of a pattern.
type Trial struct {
	Index    int       `json:"index" jsonschema:"minimum=0"`
	Requests []Request `json:"requests" jsonschema:"minItems=1"`
}

// Of returns the trial's requests of one kind, in the pattern's order.
func (tr Trial) Of(kind string) []Request {
	var out []Request
	for _, r := range tr.Requests {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// Served says an environment answered r: 200 with a protocol answer, not throttled.
func (r Request) Served() bool { return !r.Throttled && r.Error == "" }

// Throttled counts the trial's throttled requests of one kind ("" for any).
func (tr Trial) Throttled(kind string) int {
	n := 0
	for _, r := range tr.Requests {
		if r.Throttled && (kind == "" || r.Kind == kind) {
			n++
		}
	}
	return n
}

// SentInOrder says each of tr's requests left the client no earlier than the one the pattern
// puts before it, on the client's one clock. Each request is sent by a goroutine of its own at
// its offset, so on a busy machine two late ones can leave in either order.
func (tr Trial) SentInOrder() bool {
	for i := 1; i < len(tr.Requests); i++ {
		if tr.Requests[i].OffsetMs > tr.Requests[i-1].OffsetMs && tr.Requests[i].SentMs < tr.Requests[i-1].SentMs {
			return false
		}
	}
	return true
}

// Wait is the same-clock evidence of one trial (PingWait and TrialWait decide it): did the
// /ping's handler start only after a /cpu of the same environment had finished?
type Wait struct {
	// CoLocated counts the /cpu answered by the /ping's environment (same envId).
	CoLocated int `json:"coLocated" jsonschema:"minimum=0"`
	// InFlight counts those whose handler started before the /ping's handler did.
	InFlight int `json:"inFlight" jsonschema:"minimum=0"`
	// WaitedFor counts those that finished at or before the /ping's handler started.
	WaitedFor int `json:"waitedFor" jsonschema:"minimum=0"`
	// Evidential says the /ping reached a process already busy with a /cpu (InFlight >= 1),
	// sent after every /cpu: a /ping handled before any /cpu started, or sent ahead of a /cpu
	// the pattern puts before it, shows nothing about waiting for it.
	Evidential bool `json:"evidential"`
	// SentOutOfOrder says the trial's requests left the client in another order than the
	// pattern's (a late send on a busy machine): its /ping was not sent while every /cpu was.
	SentOutOfOrder bool `json:"sentOutOfOrder,omitempty"`
}

// Probe is what a result records about a probe process (harness/workload/probe starts it).
type Probe struct {
	Runtime string `json:"runtime" jsonschema:"enum=node,enum=go"` // node or go
	// built-in, CLAIMS_NODE_PROBE, CLAIMS_GO_PROBE, or a test's own
	Source string `json:"source" jsonschema:"minLength=1"`
	// the script or binary, relative to the repository where it is in it
	Program string `json:"program" jsonschema:"minLength=1"`
	// the variables the experiment set for it (nothing else is passed but PATH and HOME)
	Env map[string]string `json:"env"`
	// the Node.js that ran the probe or the Go probe's launcher
	Node  runtimes.Node  `json:"node"`
	Ready map[string]any `json:"ready"` // the READY line, whole
}

// PingWait decides from the probe's own clock how the /ping related to the trial's /cpu. Times of
// different environments are never compared.
func PingWait(ping protocol.Answer, cpus []protocol.Answer) Wait {
	var w Wait
	for _, c := range cpus {
		if c.EnvID != ping.EnvID || ping.EnvID == "" { // a throttled request has no answer
			continue
		}
		w.CoLocated++
		if c.ReceivedAt < ping.ReceivedAt {
			w.InFlight++
		}
		if c.FinishedAt <= ping.ReceivedAt {
			w.WaitedFor++
		}
	}
	w.Evidential = w.InFlight > 0
	return w
}

// TrialWait is PingWait of tr's /ping and /cpu, and no evidence where tr's requests were sent out
// of the pattern's order (SentInOrder): the pattern's offsets are what the claim is about.
func TrialWait(tr Trial) Wait {
	var cpus []protocol.Answer
	for _, c := range tr.Of(KindCPU) {
		cpus = append(cpus, c.Answer)
	}
	w := PingWait(tr.Of(KindPing)[0].Answer, cpus)
	if !tr.SentInOrder() {
		w.SentOutOfOrder, w.Evidential = true, false
	}
	return w
}
