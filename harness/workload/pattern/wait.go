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
	// Evidential says the /ping reached a process already busy with a /cpu (InFlight >= 1);
	// a /ping handled before any /cpu started shows nothing about waiting.
	Evidential bool `json:"evidential"`
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
