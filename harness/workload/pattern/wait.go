package pattern

import (
	"github.com/serverless-claims/claims/harness/workload/protocol"
	"github.com/serverless-claims/claims/results/family"
)

// Wait is the same-clock evidence of one trial, as a result keeps it (results/family): did the
// /ping's handler start only after a /cpu of the same environment had finished?
type Wait = family.Wait

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
