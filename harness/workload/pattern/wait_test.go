package pattern

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
		{"Node: handled when the spin ends", ans("a", 500, 500.1), []protocol.Answer{cpu}, Wait{1, 1, 1, true}},
		{"Go: handled during the spin", ans("a", 16, 16.1), []protocol.Answer{cpu}, Wait{1, 1, 0, true}},
		{"waited for both", ans("a", 1000.2, 1000.3), []protocol.Answer{cpu, cpu2}, Wait{2, 2, 2, true}},
		{"jumped ahead of the second", ans("a", 500.2, 500.3), []protocol.Answer{cpu, cpu2Late}, Wait{2, 1, 1, true}},
		{"before any /cpu started: no evidence", ans("a", -1, -0.9), []protocol.Answer{cpu}, Wait{1, 0, 0, false}},
		{"another environment: never compared", ans("b", 900, 901), []protocol.Answer{cpu}, Wait{0, 0, 0, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, PingWait(c.ping, c.cpus))
		})
	}
}
