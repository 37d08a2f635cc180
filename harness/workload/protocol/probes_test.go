package protocol_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/loopback"
	"github.com/serverless-claims/claims/harness/workload/probe"
	"github.com/serverless-claims/claims/harness/workload/protocol"
)

// spinMs is what the test asks each /cpu to spin: long enough that a probe answering early, or
// on a clock in seconds, shows.
const spinMs = 50

// calibratedFloorMs is all a calibrated ("about N ms") mode is held to: its work was sized at the
// probe's start-up, so load then can make it come out several times short, but it must do some.
const calibratedFloorMs = 1.0

// startFunc starts one slot's probe with env set.
type startFunc func(t *testing.T, env map[string]string) *probe.Probe

// TestBuiltInProbesFollowTheProtocol starts the Node and the Go probe (or the user's, when
// CLAIMS_NODE_PROBE or CLAIMS_GO_PROBE is set) and checks them against the tables of
// docs/protocol.md: the READY line, the answers to /ping and to /cpu in every mode, their fields
// and clock, keep-alive, and bad input, after which the probe must still answer.
func TestBuiltInProbesFollowTheProtocol(t *testing.T) {
	s := readSpec(t)
	slots := []struct {
		name  string
		start startFunc
		env   map[string]string
	}{
		{"node", func(t *testing.T, env map[string]string) *probe.Probe {
			return probe.StartNode(t, probe.Options{Env: env})
		}, nil},
		// GOMAXPROCS=1 differs from this machine's default, so the READY line shows it was honoured.
		{"go", func(t *testing.T, env map[string]string) *probe.Probe {
			return probe.StartGo(t, probe.Options{Env: env})
		}, map[string]string{"GOMAXPROCS": "1"}},
	}
	for _, slot := range slots {
		t.Run(slot.name, func(t *testing.T) {
			p := slot.start(t, slot.env)
			c := newClient(t, p)

			t.Run("ready", func(t *testing.T) { checkReady(t, s, slot.name, p, slot.env) })
			t.Run("ping", func(t *testing.T) {
				r := c.do(t, http.MethodGet, "/ping")
				checkAnswer(t, s, "ping", r, http.StatusOK)
				assert.Equal(t, "/ping", r.answer.Path, "GET /ping path = %q; want /ping", r.answer.Path)
			})
			t.Run("cpu without mode", func(t *testing.T) {
				r := c.do(t, http.MethodGet, fmt.Sprintf("/cpu?ms=%d", spinMs))
				checkAnswer(t, s, "cpu", r, http.StatusOK)
				assert.Equal(t, "spin", r.answer.Mode, "%s mode = %q; want spin", r.what, r.answer.Mode)
			})
			for _, m := range s.modes[slot.name] {
				t.Run("cpu/mode="+m.name, func(t *testing.T) { checkCPU(t, s, c, m) })
			}
			t.Run("modes it does not serve", func(t *testing.T) {
				for _, m := range otherModes(s, slot.name) {
					r := c.do(t, http.MethodGet, fmt.Sprintf("/cpu?ms=%d&mode=%s", spinMs, m))
					checkAnswer(t, s, "error", r, http.StatusBadRequest)
					assert.Contains(t, r.answer.Error, "mode", "GET /cpu?mode=%s error = %q; want it to name mode", m, r.answer.Error)
				}
			})
			t.Run("keep-alive", func(t *testing.T) {
				c.do(t, http.MethodGet, "/ping")
				r := c.do(t, http.MethodGet, "/ping")
				assert.True(t, r.reused, "second /ping reused the connection = false; want true (keep-alive)")
				assert.Equal(t, "HTTP/1.1", r.proto, "answer's protocol = %s; want HTTP/1.1", r.proto)
			})
			t.Run("bad input", func(t *testing.T) {
				for _, b := range s.bad {
					r := c.do(t, b.method, b.path)
					checkAnswer(t, s, "error", r, 0)
					assertStatus(t, b, r.status)
					assert.Contains(t, r.answer.Error, b.names, "%s %s error = %q; want it to name %q", b.method, b.path, r.answer.Error, b.names)
					c.assertPings(t, "after "+b.method+" "+b.path)
				}
			})
			t.Run("not HTTP", func(t *testing.T) {
				conn, err := net.DialTimeout("tcp", p.Ready.Addr, 5*time.Second)
				require.NoError(t, err)
				t.Cleanup(func() { conn.Close() })
				_, err = conn.Write([]byte("this is not HTTP\r\n\r\n"))
				require.NoError(t, err)
				require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
				reply, err := io.ReadAll(conn)
				assert.True(t, bytes.HasPrefix(reply, []byte("HTTP/1.1 400")), "answer to bytes that are not HTTP = %.80q; want HTTP/1.1 400", reply)
				assert.NoError(t, err, "reading until the probe closes the connection after bytes that are not HTTP")
				c.assertPings(t, "after bytes that are not HTTP")
			})
			t.Run("binds AWS_LAMBDA_HTTP_ENDPOINT", func(t *testing.T) {
				addrs, err := loopback.FreeAddrs(1)
				require.NoError(t, err)
				addr := addrs[0]
				env := map[string]string{"AWS_LAMBDA_HTTP_ENDPOINT": addr}
				maps.Copy(env, slot.env)
				p := slot.start(t, env)
				assert.Equal(t, addr, p.Ready.Addr, "READY addr = %s; want AWS_LAMBDA_HTTP_ENDPOINT's %s", p.Ready.Addr, addr)
				newClient(t, p).assertPings(t, "at AWS_LAMBDA_HTTP_ENDPOINT")
			})
		})
	}
}

// checkReady checks the READY line against the document: every required field with its type,
// and for a built-in probe exactly the extra fields the document lists for it.
func checkReady(t *testing.T, s spec, slot string, p *probe.Probe, env map[string]string) {
	t.Helper()
	got := p.Ready.Extra
	for _, f := range s.ready {
		assert.True(t, hasType(got[f.name], f.typ), "READY %s = %#v; want a %s", f.name, got[f.name], f.typ)
	}
	host, port, err := net.SplitHostPort(p.Ready.Addr)
	require.NoError(t, err, "READY addr %q", p.Ready.Addr)
	assert.Equal(t, "127.0.0.1", host, "READY addr's host = %s; want 127.0.0.1 (no AWS_LAMBDA_HTTP_ENDPOINT)", host)
	assert.NotEqual(t, "0", port, "READY addr's port = 0; want the port the kernel picked")

	if p.Info.Source != "built-in" {
		t.Logf("%s from %s: extra READY fields not checked: %v", slot, p.Info.Source, slices.Sorted(maps.Keys(got)))
		return
	}
	assert.Equal(t, slot, p.Ready.Runtime, "READY runtime = %q; want %q (built-in probe)", p.Ready.Runtime, slot)
	want := append(names(s.ready), names(s.extras[slot])...)
	slices.Sort(want)
	have := slices.Sorted(maps.Keys(got))
	assert.Equal(t, want, have, "READY fields = %v; want %v (%s, built-in %s probe)", have, want, docPath, slot)
	for _, f := range s.extras[slot] {
		assert.True(t, hasType(got[f.name], f.typ), "READY %s = %#v; want a %s", f.name, got[f.name], f.typ)
	}
	if n, ok := env["GOMAXPROCS"]; ok {
		assert.Equal(t, n, fmt.Sprint(got["gomaxprocs"]), "READY gomaxprocs = %v; want %s (GOMAXPROCS=%s)", got["gomaxprocs"], n, n)
	}
}

// checkCPU sends /cpu in mode m and checks its answer, its handler time, and that a /ping sent
// after it started on the same clock after the /cpu finished.
func checkCPU(t *testing.T, s spec, c *client, m mode) {
	t.Helper()
	r := c.do(t, http.MethodGet, fmt.Sprintf("/cpu?ms=%d&mode=%s", spinMs, m.name))
	checkAnswer(t, s, "cpu", r, http.StatusOK)
	assert.Equal(t, "/cpu", r.answer.Path, "%s path = %q; want /cpu", r.what, r.answer.Path)
	assert.Equal(t, spinMs, r.answer.Ms, "%s ms = %d; want %d", r.what, r.answer.Ms, spinMs)
	assert.Equal(t, m.name, r.answer.Mode, "%s mode = %q; want %q", r.what, r.answer.Mode, m.name)
	handlerMs := r.answer.FinishedAt - r.answer.ReceivedAt
	if m.atLeast {
		assert.GreaterOrEqual(t, handlerMs, float64(spinMs), "mode=%s: finishedAt - receivedAt = %.3f ms; want at least %d", m.name, handlerMs, spinMs)
	} else {
		assert.GreaterOrEqual(t, handlerMs, calibratedFloorMs, "mode=%s: finishedAt - receivedAt = %.3f ms; want at least %.0f ms (about %d ms, sized at start-up)", m.name, handlerMs, calibratedFloorMs, spinMs)
		t.Logf("mode=%s: handler %.3f ms for ms=%d (calibrated at start-up)", m.name, handlerMs, spinMs)
	}

	ping := c.do(t, http.MethodGet, "/ping")
	checkAnswer(t, s, "ping", ping, http.StatusOK)
	assert.GreaterOrEqual(t, ping.answer.ReceivedAt, r.answer.FinishedAt,
		"/ping receivedAt = %.3f; want at or after the /cpu's finishedAt %.3f (sent after it, one monotonic clock)", ping.answer.ReceivedAt, r.answer.FinishedAt)
}

// checkAnswer checks an answer against the answer table: the fields of its kind and nothing else,
// their types, the READY line's envId and pid, and times on a millisecond clock that does not run
// backwards. status 0 leaves the status to the caller.
func checkAnswer(t *testing.T, s spec, kind string, r reply, status int) {
	t.Helper()
	if status != 0 {
		assert.Equal(t, status, r.status, "%s status = %d; want %d (error %q)", r.what, r.status, status, r.fields["error"])
	}
	assert.Equal(t, "application/json", r.contentType, "%s Content-Type = %q; want application/json", r.what, r.contentType)
	got, want := slices.Sorted(maps.Keys(r.fields)), s.answerFields(kind)
	assert.Equal(t, want, got, "%s fields = %v; want %v (%s, %s answers)", r.what, got, want, docPath, kind)
	for name, v := range r.fields {
		if typ := s.answerType(name); typ != "" {
			assert.True(t, hasType(v, typ), "%s %s = %#v; want a %s", r.what, name, v, typ)
		}
	}
	a, err := protocol.ParseAnswer(r.body)
	require.NoError(t, err, "%s: protocol.ParseAnswer", r.what)
	assert.Equal(t, r.probe.Ready.EnvID, a.EnvID, "%s envId = %q; want the READY line's %q", r.what, a.EnvID, r.probe.Ready.EnvID)
	assert.Equal(t, r.probe.Ready.PID, a.PID, "%s pid = %d; want the READY line's %d", r.what, a.PID, r.probe.Ready.PID)
	handlerMs := a.FinishedAt - a.ReceivedAt
	assert.GreaterOrEqual(t, handlerMs, 0.0, "%s finishedAt - receivedAt = %.3f ms; want >= 0", r.what, handlerMs)
	assert.LessOrEqual(t, handlerMs, r.elapsedMs, "%s finishedAt - receivedAt = %.3f ms; want at most the %.3f ms the client waited (a clock in ms)", r.what, handlerMs, r.elapsedMs)
}

// assertStatus checks a status against the error table's: an exact code, or any 4xx.
func assertStatus(t *testing.T, b badInput, got int) {
	t.Helper()
	if b.status == "4xx" {
		assert.True(t, got >= 400 && got < 500, "%s %s status = %d; want 4xx", b.method, b.path, got)
		return
	}
	want, err := strconv.Atoi(b.status)
	require.NoError(t, err, "%s: status %q of %s %s", docPath, b.status, b.method, b.path)
	assert.Equal(t, want, got, "%s %s status = %d; want %d", b.method, b.path, got, want)
}

// otherModes are the modes the document gives other probes and not this one: it must refuse them.
func otherModes(s spec, slot string) []string {
	var out []string
	for probe, modes := range s.modes {
		for _, m := range modes {
			if probe != slot && !slices.ContainsFunc(s.modes[slot], func(o mode) bool { return o.name == m.name }) && !slices.Contains(out, m.name) {
				out = append(out, m.name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// client sends requests to one probe and keeps what the checks need of each answer.
type client struct {
	probe *probe.Probe
	http  *http.Client
}

// reply is one answer, whole.
type reply struct {
	what        string // "GET /ping", for messages
	probe       *probe.Probe
	status      int
	proto       string
	contentType string
	body        []byte
	fields      map[string]any // the body's JSON object, numbers as json.Number
	answer      protocol.Answer
	elapsedMs   float64 // from before the request was written to after the answer was read
	reused      bool    // the request went over a connection that had carried one before
}

func newClient(t *testing.T, p *probe.Probe) *client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 8, IdleConnTimeout: 4 * time.Second, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &client{probe: p, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends one request and decodes the answer; a failure to get a JSON object fails the test.
func (c *client) do(t *testing.T, method, path string) reply {
	t.Helper()
	r := reply{what: method + " " + path, probe: c.probe}
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+c.probe.Ready.Addr+path, nil)
	require.NoError(t, err)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { r.reused = info.Reused },
	}))
	start := time.Now()
	resp, err := c.http.Do(req)
	require.NoError(t, err, r.what)
	r.body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	r.elapsedMs = float64(time.Since(start).Nanoseconds()) / 1e6
	require.NoError(t, err, "%s: reading the answer", r.what)
	r.status, r.proto, r.contentType = resp.StatusCode, resp.Proto, resp.Header.Get("Content-Type")

	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&r.fields), "%s: answer = %.200q; want a JSON object", r.what, r.body)
	require.NoError(t, json.Unmarshal(r.body, &r.answer), r.what)
	return r
}

// assertPings checks that the probe still answers /ping with 200.
func (c *client) assertPings(t *testing.T, when string) {
	t.Helper()
	r := c.do(t, http.MethodGet, "/ping")
	assert.Equal(t, http.StatusOK, r.status, "/ping status %s = %d; want 200 (the probe stays up)", when, r.status)
}
