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

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/workload/pattern"
	"github.com/serverless-claims/claims/harness/workload/target"
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
	return startOver(t, cfg, "a", "b")
}

// startOver starts a router over one environment per envID, in that order, with cfg's policy and
// limits.
func startOver(t *testing.T, cfg webrouter.Config, envIDs ...string) *webrouter.Router {
	t.Helper()
	cfg.Environments = nil
	for _, id := range envIDs {
		cfg.Environments = append(cfg.Environments, environment(t, id))
	}
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

// concurrently sends paths without waiting for their answers, each once r has taken the ones before
// it, and returns their replies in order.
func concurrently(r *webrouter.Router, w *target.Web, paths ...string) []target.Reply {
	out := make([]target.Reply, len(paths))
	before := arrived(r)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// In order of arrival, by the router's own count rather than a sleep, which a busy
			// machine can outlast: each request leaves once every earlier one has reached it.
			for deadline := time.Now().Add(10 * time.Second); arrived(r) < before+i && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			out[i] = w.Get(context.Background(), p)
		}()
	}
	wg.Wait()
	return out
}

// arrived counts the requests the router has taken so far: answered, in flight or throttled.
func arrived(r *webrouter.Router) int {
	st := r.Stats()
	n := st.Throttled
	for i := range st.Served {
		n += st.Served[i] + st.InFlight[i]
	}
	return n
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
			reps := concurrently(r, client(t, r, secret), "/cpu?ms=300", "/ping")
			require.NoError(t, errors.Join(reps[0].Err, reps[1].Err))
			assert.Equal(t, c.together, reps[0].EnvHint == reps[1].EnvHint,
				"/ping beside the busy /cpu = %v; want %v (logstreams %s, %s)", reps[0].EnvHint == reps[1].EnvHint, c.together, reps[0].EnvHint, reps[1].EnvHint)
		})
	}
}

// TestFullEndpointThrottles: a request that finds every environment fully used is throttled at
// once, as the Web Functions scaling documentation says, never queued until a slot frees.
func TestFullEndpointThrottles(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 1})
	w := client(t, r, secret)
	reps := concurrently(r, w, "/cpu?ms=300", "/cpu?ms=300", "/ping")
	require.NoError(t, errors.Join(reps[0].Err, reps[1].Err))
	assert.NotEqual(t, reps[0].EnvHint, reps[1].EnvHint, "the two /cpu share an environment with one slot each")
	ping := reps[2]
	assert.Equal(t, http.StatusTooManyRequests, ping.Status, "/ping status with both slots held; want 429 (err %v)", ping.Err)
	assert.True(t, errors.Is(ping.Err, target.ErrThrottled), "/ping error = %v; want target.ErrThrottled", ping.Err)
	assert.True(t, ping.DoneAt.Before(reps[0].DoneAt) && ping.DoneAt.Before(reps[1].DoneAt),
		"the throttled /ping was answered after a /cpu ended: it waited for a slot (/ping done %v, /cpu done %v, %v)",
		ping.DoneAt, reps[0].DoneAt, reps[1].DoneAt)
	assert.Empty(t, ping.EnvHint, "a throttled answer names a logstream, but no environment served it")
	assert.NotEmpty(t, ping.RequestID, "a throttled answer still carries lambda-web-request-id")
	st := r.Stats()
	assert.Equal(t, 1, st.Throttled, "throttled requests = %d; want the /ping (%+v)", st.Throttled, st)
	assert.Equal(t, 2, st.Served[0]+st.Served[1], "served = %v; want the two /cpu only", st.Served)
}

// TestThrottledAnswerShape: the throttled answer is the Lambda Web service's ThrottlingException
// (429, JSON with a message) with a platform error type, and no logstream.
func TestThrottledAnswerShape(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 1})
	busy := client(t, r, secret)
	done := make(chan struct{})
	go func() { defer close(done); concurrently(r, busy, "/cpu?ms=1000", "/cpu?ms=1000") }()
	t.Cleanup(func() { <-done })
	require.Eventually(t, func() bool { in := r.Stats().InFlight; return in[0]+in[1] == 2 }, 900*time.Millisecond, 5*time.Millisecond,
		"both /cpu hold both slots (in flight %v)", r.Stats().InFlight)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, r.URL()+"/ping", nil)
	require.NoError(t, err)
	require.NoError(t, signRequest(t, req))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: r.RootCAs()}}}
	t.Cleanup(hc.CloseIdleConnections)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, body["message"], "body = %v; want the ThrottlingException shape's message", body)
	assert.Equal(t, webrouter.ThrottlingException, resp.Header.Get("X-Amzn-Errortype"), "x-amzn-ErrorType")
	assert.Equal(t, webrouter.ThrottledErrorType, resp.Header.Get(webrouter.HeaderErrorType), "lambda-web-error-type")
	assert.Empty(t, resp.Header.Get(webrouter.HeaderLogstream), "lambda-web-logstream on a throttled answer")
	assert.NotEmpty(t, resp.Header.Get(webrouter.HeaderRequestID), "lambda-web-request-id on a throttled answer")
}

// signRequest signs req with the test keys, as target.Web does.
func signRequest(t *testing.T, req *http.Request) error {
	t.Helper()
	const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	req.Header.Set("X-Amz-Content-Sha256", emptySHA)
	creds, err := credentials.NewStaticCredentialsProvider(keyID, secret, "").Retrieve(t.Context())
	if err != nil {
		return err
	}
	return v4.NewSigner().SignHTTP(t.Context(), creds, req, emptySHA, webrouter.SigningService, region, time.Now())
}

// TestCPUBusyLimitKeepsRequestsOffABusyEnvironment: with CPUBusyLimit 1, an environment running
// a /cpu takes nothing more, as Lambda may not route to one under high sustained CPU; the same
// router without it puts a second /cpu beside the first.
func TestCPUBusyLimitKeepsRequestsOffABusyEnvironment(t *testing.T) {
	for _, c := range []struct {
		name       string
		busyLimit  int
		wantStatus []int // of /cpu, /cpu, /ping
	}{
		{"off", 0, []int{200, 200, 200}},
		{"busy-limit-1", 1, []int{200, 200, 429}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// CoLocate would put every request beside the busy /cpu: only the limit keeps it off.
			r := start(t, webrouter.Config{Policy: webrouter.CoLocate, CPUBusyLimit: c.busyLimit})
			reps := concurrently(r, client(t, r, secret), "/cpu?ms=300", "/cpu?ms=300", "/ping")
			got := []int{reps[0].Status, reps[1].Status, reps[2].Status}
			assert.Equal(t, c.wantStatus, got, "statuses of /cpu, /cpu, /ping (errors %v, %v, %v)", reps[0].Err, reps[1].Err, reps[2].Err)
			assert.Equal(t, c.busyLimit == 0, reps[0].EnvHint == reps[1].EnvHint,
				"second /cpu beside the first = %v; want %v (logstreams %s, %s)", reps[0].EnvHint == reps[1].EnvHint, c.busyLimit == 0, reps[0].EnvHint, reps[1].EnvHint)
		})
	}
}

// TestOmitLogstreamEvery: every Nth answer carries no lambda-web-logstream, the others their own
// environment's; the request id is on every one.
func TestOmitLogstreamEvery(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, OmitLogstreamEvery: 3})
	w := client(t, r, secret)
	var missing []int
	for i := range 9 {
		rep := w.Get(t.Context(), "/ping")
		require.NoError(t, rep.Err)
		assert.NotEmpty(t, rep.RequestID, "answer %d: lambda-web-request-id", i+1)
		if rep.EnvHint == "" {
			missing = append(missing, i+1)
		} else {
			assert.Equal(t, "2026/12/01/"+rep.Answer.EnvID, rep.EnvHint, "answer %d: logstream", i+1)
		}
	}
	assert.Equal(t, []int{3, 6, 9}, missing, "answers without lambda-web-logstream; want every third")
	assert.Equal(t, 3, r.Stats().LogstreamOmitted, "Stats().LogstreamOmitted")
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
		"no environments":  {webrouter.Config{Policy: webrouter.LeastBusy}, "Environments"},
		"unknown policy":   {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: "fastest"}, "Policy"},
		"concurrency 129":  {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.Random, MaxConcurrencyPerEnvironment: 129}, "MaxConcurrencyPerEnvironment"},
		"same logstream":   {webrouter.Config{Environments: []webrouter.Environment{env, {Addr: "127.0.0.1:2", Logstream: "x"}}, Policy: webrouter.Sticky}, "Logstream"},
		"keys, no region":  {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.Sticky, Keys: sigv4check.Keys{"a": "b"}}, "Region"},
		"not host:port":    {webrouter.Config{Environments: []webrouter.Environment{{Addr: "nowhere", Logstream: "y"}}, Policy: webrouter.Sticky}, "Addr"},
		"busy limit > max": {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 4, CPUBusyLimit: 5}, "CPUBusyLimit"},
		"busy limit < 0":   {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, CPUBusyLimit: -1}, "CPUBusyLimit"},
		"omit every -1":    {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, OmitLogstreamEvery: -1}, "OmitLogstreamEvery"},
		"young > max":      {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 4, YoungLimit: 5, MatureAfter: 10}, "YoungLimit"},
		"young < 0":        {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, YoungLimit: -1}, "YoungLimit"},
		"young, no mature": {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, YoungLimit: 1}, "MatureAfter"},
		"mature, no young": {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, MatureAfter: 10}, "MatureAfter"},
		"initial > envs":   {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, InitialEnvironments: 2}, "InitialEnvironments"},
		"initial < 0":      {webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy, InitialEnvironments: -1}, "InitialEnvironments"},
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

// TestYoungEndpointLimitGrowsWithServedRequests: a young endpoint's limit starts at YoungLimit, so
// that with both environments busy a /ping is throttled; once the endpoint has served MatureAfter
// requests its limit is the setting, and the same requests are all served.
func TestYoungEndpointLimitGrowsWithServedRequests(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 4, YoungLimit: 1, MatureAfter: 6})
	w := client(t, r, secret)
	assert.Equal(t, 1, r.Stats().Limit, "a new endpoint's limit; want YoungLimit")
	young := concurrently(r, w, "/cpu?ms=300", "/cpu?ms=300", "/ping")
	assert.Equal(t, []int{200, 200, 429}, []int{young[0].Status, young[1].Status, young[2].Status},
		"statuses of /cpu, /cpu, /ping on the young endpoint (errors %v, %v, %v)", young[0].Err, young[1].Err, young[2].Err)
	grown := r.Stats().Limit
	assert.True(t, grown > 1 && grown < 4, "limit after 2 served of MatureAfter 6 = %d; want grown, below the ceiling 4", grown)
	for range 4 {
		require.NoError(t, w.Get(t.Context(), "/ping").Err)
	}
	assert.Equal(t, 4, r.Stats().Limit, "limit after MatureAfter served requests; want MaxConcurrencyPerEnvironment (%+v)", r.Stats())
	mature := concurrently(r, w, "/cpu?ms=300", "/cpu?ms=300", "/ping")
	assert.Equal(t, []int{200, 200, 200}, []int{mature[0].Status, mature[1].Status, mature[2].Status},
		"statuses of /cpu, /cpu, /ping on the mature endpoint (errors %v, %v, %v)", mature[0].Err, mature[1].Err, mature[2].Err)
	assert.Contains(t, []string{mature[0].EnvHint, mature[1].EnvHint}, mature[2].EnvHint, "the /ping ran beside a busy /cpu on the mature endpoint")
}

// TestScaleOutStartsTheNextEnvironmentOnlyWhenTheRunningOnesAreFull: with InitialEnvironments 2
// of 3, requests one at a time reach only the first two; a request that finds both full starts
// the third, which is then running.
func TestScaleOutStartsTheNextEnvironmentOnlyWhenTheRunningOnesAreFull(t *testing.T) {
	r := startOver(t, webrouter.Config{Policy: webrouter.LeastBusy, MaxConcurrencyPerEnvironment: 1, InitialEnvironments: 2}, "a", "b", "c")
	w := client(t, r, secret)
	for range 6 {
		rep := w.Get(t.Context(), "/ping")
		require.NoError(t, rep.Err)
		assert.NotEqual(t, "c", rep.Answer.EnvID, "a /ping one at a time reached the environment not yet started")
	}
	assert.Equal(t, 2, r.Stats().Running, "environments running before any was full")
	reps := concurrently(r, w, "/cpu?ms=300", "/cpu?ms=300", "/ping")
	require.NoError(t, errors.Join(reps[0].Err, reps[1].Err, reps[2].Err))
	assert.Equal(t, "c", reps[2].Answer.EnvID, "/ping with a and b full ran in %q; want c, started for it", reps[2].Answer.EnvID)
	assert.Equal(t, 3, r.Stats().Running, "environments running after the scale-out")
	assert.Zero(t, r.Stats().Throttled, "throttled requests; want none while an environment could start")
}

// TestIamAuthRefusesAnUnsignedPayload: a correctly signed request without X-Amz-Content-SHA256, or
// with UNSIGNED-PAYLOAD in it, is refused with 403 and reaches no environment, as Lambda does not
// support unsigned payloads; the same request with the payload's hash is served.
func TestIamAuthRefusesAnUnsignedPayload(t *testing.T) {
	r := start(t, webrouter.Config{Policy: webrouter.LeastBusy})
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: r.RootCAs()}}}
	t.Cleanup(hc.CloseIdleConnections)
	const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	creds, err := credentials.NewStaticCredentialsProvider(keyID, secret, "").Retrieve(t.Context())
	require.NoError(t, err)
	for _, c := range []struct {
		name, header, hash string
		want               int
	}{
		{"no header", "", emptySHA, http.StatusForbidden},
		{"unsigned payload", "UNSIGNED-PAYLOAD", "UNSIGNED-PAYLOAD", http.StatusForbidden},
		{"the payload's hash", emptySHA, emptySHA, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, r.URL()+"/ping", nil)
			require.NoError(t, err)
			if c.header != "" {
				req.Header.Set(webrouter.HeaderContentSHA256, c.header)
			}
			require.NoError(t, v4.NewSigner().SignHTTP(t.Context(), creds, req, c.hash, webrouter.SigningService, region, time.Now()))
			require.Equal(t, c.header, req.Header.Get(webrouter.HeaderContentSHA256), "the signer changed the header under test")
			resp, err := hc.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var body map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Equal(t, c.want, resp.StatusCode, "status with %s = %q; want %d (%v)", webrouter.HeaderContentSHA256, c.header, c.want, body)
			if c.want == http.StatusForbidden {
				assert.Contains(t, body["message"], "unsigned payloads", "the refusal's message")
			}
		})
	}
	assert.Equal(t, 1, r.Stats().Served[0]+r.Stats().Served[1], "served = %v; want only the request with the payload's hash", r.Stats().Served)
}
