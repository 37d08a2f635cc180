package pattern

import "github.com/serverless-claims/claims/harness/workload/protocol"

// Wait is the same-clock evidence of one trial: did the /ping's handler start only after a /cpu
// of the same environment had finished?
type Wait struct {
	// CoLocated counts the /cpu answered by the /ping's environment (same envId).
	CoLocated int `json:"coLocated"`
	// InFlight counts those whose handler started before the /ping's handler did.
	InFlight int `json:"inFlight"`
	// WaitedFor counts those that finished at or before the /ping's handler started.
	WaitedFor int `json:"waitedFor"`
	// Evidential says the /ping reached a process already busy with a /cpu (InFlight >= 1),
	// sent after every /cpu: a /ping handled before any /cpu started, or sent ahead of a /cpu
	// the pattern puts before it, shows nothing about waiting for it.
	Evidential bool `json:"evidential"`
	// SentOutOfOrder says the trial's requests left the client in another order than the
	// pattern's (a late send on a busy machine): its /ping was not sent while every /cpu was.
	SentOutOfOrder bool `json:"sentOutOfOrder,omitempty"`
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
