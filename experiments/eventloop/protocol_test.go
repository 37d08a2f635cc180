package eventloop

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/probe"
	"github.com/serverless-claims/claims/harness/target"
)

// TestProbesRejectBadInput checks the probe protocol's promise on both probes: bad input gets a
// 4xx with a JSON error naming what is wrong, and the probe stays up.
func TestProbesRejectBadInput(t *testing.T) {
	probes := map[string]func(t *testing.T) *probe.Probe{
		"node": startNode,
		"go":   func(t *testing.T) *probe.Probe { return startGo(t, goPreemptive) },
	}
	bad := []struct{ path, mentions string }{
		{"/cpu", "ms"},
		{"/cpu?ms=abc", "ms"},
		{"/cpu?ms=0", "ms"},
		{"/cpu?ms=-5", "ms"},
		{"/cpu?ms=1.5", "ms"},
		{"/cpu?ms=%2B5", "ms"}, // "+5"
		{"/cpu?ms=60001", "60000"},
		{"/cpu?ms=1&ms=2", "ms"},
		{"/cpu?ms=10&mode=turbo", "mode"},
		{"/nope", "/ping"},
	}
	for name, start := range probes {
		t.Run(name, func(t *testing.T) {
			p := start(t)
			tgt := target.NewLocal(p.Ready.Addr)
			t.Cleanup(tgt.Close)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			for _, b := range bad {
				r := tgt.Get(ctx, b.path)
				require.NoError(t, r.Err, "GET %s: the answer must be protocol JSON", b.path)
				assert.True(t, r.Status >= 400 && r.Status < 500, "GET %s status = %d; want 4xx", b.path, r.Status)
				assert.Contains(t, r.Answer.Error, b.mentions, "GET %s error = %q; want it to name %q", b.path, r.Answer.Error, b.mentions)
				assertPingAnswers(t, ctx, tgt, "after GET "+b.path)
			}

			// Not even HTTP: the probe must shrug it off too.
			conn, err := net.DialTimeout("tcp", p.Ready.Addr, 5*time.Second)
			require.NoError(t, err)
			_, _ = conn.Write([]byte("this is not HTTP\r\n\r\n"))
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			reply := make([]byte, 512)
			n, _ := conn.Read(reply)
			conn.Close()
			assert.True(t, strings.HasPrefix(string(reply[:n]), "HTTP/1.1 400"), "garbage request answered %q; want 400", reply[:n])
			assertPingAnswers(t, ctx, tgt, "after a request that is not HTTP")

			// And a method the probe does not serve.
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.Ready.Addr+"/ping", nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.True(t, resp.StatusCode >= 400 && resp.StatusCode < 500, "POST /ping status = %d; want 4xx", resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assertPingAnswers(t, ctx, tgt, "after POST /ping")
		})
	}
}

func assertPingAnswers(t *testing.T, ctx context.Context, tgt target.Target, when string) {
	t.Helper()
	r := tgt.Get(ctx, "/ping")
	assert.NoError(t, r.Err, "/ping %s", when)
	assert.Equal(t, http.StatusOK, r.Status, "/ping status %s", when)
}
