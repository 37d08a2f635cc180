package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/protocol"
	"github.com/serverless-claims/claims/harness/stats"
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

func TestDecide(t *testing.T) {
	ok := All("waited", stats.Proportion{K: 20, N: 20})
	bad := None("waited", stats.Proportion{K: 3, N: 20})

	v := Decide(stats.Proportion{K: 20, N: 20}, ok)
	assert.Equal(t, Pass, v.Outcome)
	assert.Equal(t, "over 20/20 evidential trials: waited = 20/20 (want 20/20)", v.Reason)

	v = Decide(stats.Proportion{K: 20, N: 20}, ok, bad)
	assert.Equal(t, Fail, v.Outcome)
	assert.Equal(t, "waited = 3/20; want 0/20", v.Reason)

	v = Decide(stats.Proportion{K: 9, N: 20}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "fewer than half evidential")
	v = Decide(stats.Proportion{K: 0, N: 0}, ok)
	assert.Equal(t, Inconclusive, v.Outcome, "no trials")
}

func TestChecks(t *testing.T) {
	c := Within("ping p50 / (spin - 15 ms)", 490, 485, 0.9, 1.2, "spin 500 ms")
	assert.True(t, c.Pass)
	assert.Equal(t, "ping p50 / (spin - 15 ms) = 1.01; want within [0.90, 1.20] (490.0 ms / 485.0 ms, spin 500 ms)", c.String())
	assert.False(t, Within("r", 600, 485, 0.9, 1.2, "").Pass)
	assert.False(t, Within("r", 400, 485, 0.9, 1.2, "").Pass)
	assert.False(t, Within("r", 1, 0, 0, 2, "").Pass, "a zero reference proves nothing")

	assert.True(t, AtMost("p50", 0.4, 1, "ms", "").Pass)
	assert.False(t, AtMost("p50", 1.01, 1, "ms", "").Pass)

	assert.False(t, All("w", stats.Proportion{K: 19, N: 20}).Pass)
	assert.False(t, None("w", stats.Proportion{K: 1, N: 20}).Pass)
}

func TestLimitsAndRatios(t *testing.T) {
	assert.True(t, AtLeast("split", 2.0, 1.6, "", "").Pass)
	assert.False(t, AtLeast("split", 1.2, 1.6, "", "").Pass)
	assert.Equal(t, "1.20", AtLeast("split", 1.2, 1.6, "", "").Got, "a ratio has no unit")
	assert.Equal(t, "at least 1.60", AtLeast("split", 1.2, 1.6, "", "").Want)

	c := RatioAtLeast("read with load / alone", 40, 0.25, 10, "alone")
	assert.True(t, c.Pass, c.String())
	assert.Equal(t, "160.00", c.Got)
	assert.Contains(t, c.Note, "40.00 ms / 0.25 ms, alone")
	assert.False(t, RatioAtLeast("r", 40, 0, 10, "alone").Pass, "a zero reference must not pass as an infinite ratio")
	assert.True(t, RatioAtMost("r", 1, 2, 3, "idle").Pass)
	assert.False(t, RatioAtMost("r", 7, 2, 3, "idle").Pass)
	assert.False(t, RatioAtMost("r", 0, 0, 3, "idle").Pass, "0/0 is no evidence")
}
