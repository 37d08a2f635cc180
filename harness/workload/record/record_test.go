package record

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/workload/protocol"
)

func ans(env string, received, finished float64) protocol.Answer {
	return protocol.Answer{EnvID: env, PID: 1, ReceivedAt: received, FinishedAt: finished}
}

func TestPingWait(t *testing.T) {
	cpu := ans("a", 0, 500)
	cpu2 := ans("a", 50, 1000)
	cpu2Late := ans("a", 500.5, 1000.5) // its handler started only after the /ping's
	cases := []struct {
		name string
		ping protocol.Answer
		cpus []protocol.Answer
		want Wait
	}{
		{"Node: handled when the spin ends", ans("a", 500, 500.1), []protocol.Answer{cpu}, Wait{CoLocated: 1, InFlight: 1, WaitedFor: 1, Evidential: true}},
		{"Go: handled during the spin", ans("a", 16, 16.1), []protocol.Answer{cpu}, Wait{CoLocated: 1, InFlight: 1, WaitedFor: 0, Evidential: true}},
		{"waited for both", ans("a", 1000.2, 1000.3), []protocol.Answer{cpu, cpu2}, Wait{CoLocated: 2, InFlight: 2, WaitedFor: 2, Evidential: true}},
		{"jumped ahead of the second", ans("a", 500.2, 500.3), []protocol.Answer{cpu, cpu2Late}, Wait{CoLocated: 2, InFlight: 1, WaitedFor: 1, Evidential: true}},
		{"before any /cpu started: no evidence", ans("a", -1, -0.9), []protocol.Answer{cpu}, Wait{CoLocated: 1, InFlight: 0, WaitedFor: 0, Evidential: false}},
		{"another environment: never compared", ans("b", 900, 901), []protocol.Answer{cpu}, Wait{CoLocated: 0, InFlight: 0, WaitedFor: 0, Evidential: false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, PingWait(c.ping, c.cpus))
		})
	}
}

// A trial whose /ping left the client ahead of a /cpu the pattern sends first is no evidence of
// waiting for that /cpu, whatever the probe's clock says; one sent in the pattern's order is
// judged on the probe's clock alone, even where the /ping jumped ahead of the second /cpu.
func TestTrialWaitNeedsThePatternsSendOrder(t *testing.T) {
	trial := func(cpu2SentMs, pingSentMs float64, ping protocol.Answer) Trial {
		return Trial{Requests: []Request{
			{Kind: KindCPU, OffsetMs: 0, SentMs: 0.1, Answer: ans("a", 0, 500)},
			{Kind: KindCPU, OffsetMs: 50, SentMs: cpu2SentMs, Answer: ans("a", 500.6, 1000.6)},
			{Kind: KindPing, OffsetMs: 65, SentMs: pingSentMs, Answer: ping},
		}}
	}
	aheadOfCPU2 := ans("a", 500.2, 500.3) // handled before the second /cpu's handler started

	late := TrialWait(trial(96.1, 95.9, aheadOfCPU2))
	assert.Equal(t, Wait{CoLocated: 2, InFlight: 1, WaitedFor: 1, Evidential: false, SentOutOfOrder: true}, late,
		"wait of a /ping sent 0.2 ms before the second /cpu = %+v; want no evidence, sent out of order", late)

	inOrder := TrialWait(trial(50.2, 65.3, aheadOfCPU2))
	assert.Equal(t, Wait{CoLocated: 2, InFlight: 1, WaitedFor: 1, Evidential: true}, inOrder,
		"wait of a /ping sent after both /cpu but handled ahead of the second = %+v; want evidence (against W3)", inOrder)

	assert.True(t, trial(50.2, 50.2, aheadOfCPU2).SentInOrder(), "requests sent at the same instant are in order")
}
