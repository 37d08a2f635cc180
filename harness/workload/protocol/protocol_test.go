package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReady(t *testing.T) {
	r, err := ParseReady(`READY {"addr":"127.0.0.1:4000","envId":"ab12","pid":42,"runtime":"go","version":"go1.26.8","gomaxprocs":2}` + "\n")
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:4000", r.Addr)
	assert.Equal(t, "ab12", r.EnvID)
	assert.Equal(t, 42, r.PID)
	assert.Equal(t, "go", r.Runtime)
	assert.Equal(t, "go1.26.8", r.Version)
	assert.EqualValues(t, 2, r.Extra["gomaxprocs"])
}

func TestParseReadyRejects(t *testing.T) {
	for name, line := range map[string]string{
		"no prefix":  `{"addr":"a","envId":"e","pid":1,"runtime":"go","version":"v"}`,
		"not json":   `READY addr=1`,
		"no addr":    `READY {"envId":"e","pid":1,"runtime":"go","version":"v"}`,
		"no envId":   `READY {"addr":"a","pid":1,"runtime":"go","version":"v"}`,
		"no pid":     `READY {"addr":"a","envId":"e","runtime":"go","version":"v"}`,
		"no version": `READY {"addr":"a","envId":"e","pid":1,"runtime":"go"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseReady(line)
			assert.Error(t, err)
		})
	}
}

func TestParseAnswer(t *testing.T) {
	a, err := ParseAnswer([]byte(`{"path":"/cpu","envId":"e","pid":7,"receivedAt":10.5,"finishedAt":510.25}`))
	require.NoError(t, err)
	assert.Equal(t, Answer{EnvID: "e", PID: 7, ReceivedAt: 10.5, FinishedAt: 510.25, Path: "/cpu"}, a)

	_, err = ParseAnswer([]byte(`{"envId":"e","pid":7,"receivedAt":10,"finishedAt":9}`))
	assert.ErrorContains(t, err, "before receivedAt")
	_, err = ParseAnswer([]byte(`{"pid":7}`))
	assert.ErrorContains(t, err, "no envId")
	_, err = ParseAnswer([]byte(`<html>`))
	assert.ErrorContains(t, err, "not JSON")
}

func TestAwaitReadySkipsOtherLinesAndParsesReady(t *testing.T) {
	var r Ready
	ready := AwaitReady(&r)
	ok, err := ready("listening soon")
	assert.False(t, ok)
	assert.NoError(t, err)
	ok, err = ready(`READY {"addr":"127.0.0.1:1","envId":"e","pid":7,"runtime":"node","version":"v24"}`)
	assert.True(t, ok)
	assert.NoError(t, err)
	assert.Equal(t, "127.0.0.1:1", r.Addr)
	_, err = ready(`READY {"addr":""}`)
	assert.Error(t, err, "a READY line without its fields is an error, not a wait")
}
