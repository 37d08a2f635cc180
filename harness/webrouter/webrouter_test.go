package webrouter_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/pattern"
	"github.com/serverless-claims/claims/harness/sigv4check"
	"github.com/serverless-claims/claims/harness/target"
	"github.com/serverless-claims/claims/harness/webrouter"
)

const (
	keyID  = "AKIDWEBROUTERTEST000"
	secret = "webrouter-test-secret"
	region = "us-east-1"
)

// environment is a minimal environment for the router's tests: it answers /ping at once and
// /cpu?ms=N after N ms, in the probe protocol's shape, with its own envId.
func environment(t *testing.T, envID string) webrouter.Environment {
	t.Helper()
	start := time.Now()
	now := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received := now()
		if ms, err := strconv.Atoi(r.URL.Query().Get("ms")); err == nil {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"envId": envID, "pid": 1, "receivedAt": received, "finishedAt": now(), "path": r.URL.Path})
	}))
	t.Cleanup(srv.Close)
	return webrouter.Environment{Addr: strings.TrimPrefix(srv.URL, "http://"), Logstream: "2026/12/01/" + envID}
}

// start starts a router over two environments, a and b, with cfg's policy and limits.
func start(t *testing.T, cfg webrouter.Config) *webrouter.Router {
	t.Helper()
	cfg.Environments = []webrouter.Environment{environment(t, "a"), environment(t, "b")}
	cfg.Keys, cfg.Region = sigv4check.Keys{keyID: secret}, region
	r, err := webrouter.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// client is a signing Web target for r, with the secret given.
func client(t *testing.T, r *webrouter.Router, sec string) *target.Web {
	t.Helper()
	w, err := target.NewWeb(r.URL(), target.WebOptions{
		Credentials: credentials.NewStaticCredentialsProvider(keyID, sec, ""), Region: region, RootCAs: r.RootCAs(),
	})
	require.NoError(t, err)
	t.Cleanup(w.Close)
	return w
}

// concurrently sends paths at once and returns their replies in order.
func concurrently(w *target.Web, paths ...string) []target.Reply {
	out := make([]target.Reply, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 20 * time.Millisecond) // in order of arrival
			out[i] = w.Get(context.Background(), p)
		}()
	}
	wg.Wait()
	return out
}

func TestSignedRequestGetsBothHeaders(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy})
	rep := client(t, r, secret).Get(t.Context(), "/ping")
	require.NoError(t, rep.Err)
	assert.Equal(t, http.StatusOK, rep.Status)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, rep.RequestID, "lambda-web-request-id")
	assert.Equal(t, "2026/12/01/"+rep.Answer.EnvID, rep.EnvHint, "lambda-web-logstream = %q; want the environment's own (envId %s)", rep.EnvHint, rep.Answer.EnvID)
}

func TestBadSignatureIsACredentialsError(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy})
	rep := client(t, r, "not-the-secret").Get(t.Context(), "/ping")
	assert.Equal(t, http.StatusForbidden, rep.Status)
	assert.True(t, errors.Is(rep.Err, target.ErrCredentials), "error = %v; want target.ErrCredentials", rep.Err)
	assert.NotEmpty(t, rep.RequestID, "a refused request still carries lambda-web-request-id")

	unsigned, err := target.NewWeb(r.URL(), target.WebOptions{RootCAs: r.RootCAs()})
	require.NoError(t, err)
	rep = unsigned.Get(t.Context(), "/ping")
	assert.Equal(t, http.StatusForbidden, rep.Status, "an unsigned request's status")
	assert.True(t, errors.Is(rep.Err, target.ErrCredentials), "error = %v; want target.ErrCredentials", rep.Err)
	assert.Equal(t, []int{0, 0}, r.Stats().Served, "refused requests reached an environment")

	// A pattern run stops at the first refusal and says it is the credentials, so that an
	// experiment reports it as such and writes no result.
	_, err = pattern.Run(t.Context(), client(t, r, "not-the-secret"), pattern.OneCPU(pattern.CPU{Ms: 100}), pattern.Schedule{Trials: 1})
	assert.True(t, errors.Is(err, target.ErrCredentials), "pattern.Run error = %v; want target.ErrCredentials", err)
}

func TestPolicies(t *testing.T) {
	cases := []struct {
		policy   webrouter.Policy
		together bool // the /ping joins the busy /cpu's environment
	}{
		{webrouter.LeastBusy, false},
		{webrouter.CoLocate, true},
	}
	for _, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			r := start(t, webrouter.Config{Policy: c.policy})
			reps := concurrently(client(t, r, secret), "/cpu?ms=300", "/ping")
			require.NoError(t, errors.Join(reps[0].Err, reps[1].Err))
			assert.Equal(t, c.together, reps[0].EnvHint == reps[1].EnvHint,
				"/ping beside the busy /cpu = %v; want %v (logstreams %s, %s)", reps[0].EnvHint == reps[1].EnvHint, c.together, reps[0].EnvHint, reps[1].EnvHint)
		})
	}
}

func TestConcurrencyLimitQueues(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 1})
	reps := concurrently(client(t, r, secret), "/cpu?ms=300", "/cpu?ms=300", "/ping")
	require.NoError(t, errors.Join(reps[0].Err, reps[1].Err, reps[2].Err))
	assert.NotEqual(t, reps[0].EnvHint, reps[1].EnvHint, "the two /cpu share an environment with one slot each")
	assert.Equal(t, 1, r.Stats().Queued, "queued requests = %d; want the /ping (%+v)", r.Stats().Queued, r.Stats())
	assert.GreaterOrEqual(t, reps[2].DoneAt.Sub(reps[0].SentAt), 300*time.Millisecond, "the /ping was answered before a /cpu ended")
}

func TestSwapLogstreamsMislabels(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, SwapLogstreams: true})
	w := client(t, r, secret)
	mislabeled := 0
	for range 4 {
		rep := w.Get(t.Context(), "/ping")
		require.NoError(t, rep.Err)
		if rep.EnvHint != "2026/12/01/"+rep.Answer.EnvID {
			mislabeled++
		}
	}
	assert.Equal(t, 2, mislabeled, "answers naming another environment's logstream = %d of 4; want every other one", mislabeled)
}

func TestOnlyHTTP1(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy})
	conn, err := tls.Dial("tcp", strings.TrimPrefix(r.URL(), "https://"), &tls.Config{RootCAs: r.RootCAs(), NextProtos: []string{"h2", "http/1.1"}})
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, "http/1.1", conn.ConnectionState().NegotiatedProtocol, "ALPN offered h2 and http/1.1")
}

func TestConfigRefusesNonsense(t *testing.T) {
	env := webrouter.Environment{Addr: "127.0.0.1:1", Logstream: "x"}
	cases := map[string]struct {
		cfg  webrouter.Config
		want string
	}{
		"no environments": {webrouter.Config{Policy: webrouter.LeastBusy}, "Environments"},
		"unknown policy":  {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: "fastest"}, "Policy"},
		"concurrency 129": {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.Random, MaxConcurrencyPerEnvironment: 129}, "MaxConcurrencyPerEnvironment"},
		"same logstream":  {webrouter.Config{Environments: []webrouter.Environment{env, {Addr: "127.0.0.1:2", Logstream: "x"}}, Policy: webrouter.Sticky}, "Logstream"},
		"keys, no region": {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.Sticky, Keys: sigv4check.Keys{"a": "b"}}, "Region"},
		"not host:port":   {webrouter.Config{Environments: []webrouter.Environment{{Addr: "nowhere", Logstream: "y"}}, Policy: webrouter.Sticky}, "Addr"},
	}
	for name, c := range cases {
		_, err := webrouter.Start(c.cfg)
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), c.want, "%s: the error must name the setting", name)
		}
	}
}

func TestStickyKeepsAConnectionsEnvironment(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.Sticky})
	w := client(t, r, secret) // one keep-alive connection for requests one after another
	seen := map[string]int{}
	for range 8 {
		rep := w.Get(t.Context(), "/ping")
		require.NoError(t, rep.Err)
		seen[rep.EnvHint]++
	}
	assert.Len(t, seen, 1, "environments one connection reached = %v; want one", seen)
}
