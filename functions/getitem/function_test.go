package main

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invoke calls the handler as lambda.Start would, and decodes its answer from JSON, as the
// harness will, so that the field names are tested too.
func invoke(t *testing.T, f *function) map[string]any {
	t.Helper()
	r, err := f.handle(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// TestColdHandlerMakesItsOwnConnection is the cold variant (the article's first function): Init
// touches no network, so the first invocation's GetItem makes the connection and its handshake.
func TestColdHandlerMakesItsOwnConnection(t *testing.T) {
	fake := startFakeDynamoDB(t)
	useEndpoint(t, fake.URL)
	f, err := initialize(context.Background(), testSettings(t, fake, variantCold, nil))
	require.NoError(t, err)
	assert.Empty(t, fake.Targets(), "calls during cold Init = %v; want none", fake.Targets())
	f.setInit(measureInit(time.Now()))

	got := invoke(t, f)
	assert.Equal(t, "cold", got["variant"], "variant = %v; want cold", got["variant"])
	assert.Equal(t, true, got["found"], "found = %v; want true", got["found"])
	assert.Equal(t, false, got["reused"], "reused = %v; want false", got["reused"])
	assert.Greater(t, got["tlsMs"], 0.0, "tlsMs = %v; want > 0", got["tlsMs"])
	assert.Equal(t, true, got["pooled"], "pooled = %v; want true (writeError %v)", got["pooled"], got["writeError"])
	assert.Greater(t, got["totalMs"], 0.0, "totalMs = %v; want > 0", got["totalMs"])
	assert.GreaterOrEqual(t, got["handlerMs"], got["totalMs"], "handlerMs = %v; want at least the GetItem's totalMs %v", got["handlerMs"], got["totalMs"])
	// The handshake and the handler cost CPU, and the handler's holds the handshake's.
	assert.Greater(t, got["tlsCpuMs"], 0.0, "tlsCpuMs = %v; want > 0", got["tlsCpuMs"])
	assert.GreaterOrEqual(t, got["handlerCpuMs"], got["tlsCpuMs"], "handlerCpuMs = %v; want at least tlsCpuMs %v", got["handlerCpuMs"], got["tlsCpuMs"])
	assert.NotContains(t, got, "warmup", "cold answer has a warmup: %v", got["warmup"])
	assert.NotContains(t, got, "error", "error = %v; want none", got["error"])
	assert.Equal(t, float64(os.Getpid()), got["pid"], "pid = %v; want %d", got["pid"], os.Getpid())
	assert.Equal(t, 1.0, got["invocation"], "invocation = %v; want 1", got["invocation"])
	assert.Greater(t, got["initMs"], 0.0, "initMs = %v; want > 0", got["initMs"])
	assert.Equal(t, "proc", got["initFrom"], "initFrom = %v; want proc (this is Linux)", got["initFrom"])
	assert.Equal(t, []string{"DynamoDB_20120810.GetItem"}, fake.Targets())

	again := invoke(t, f)
	assert.Equal(t, true, again["reused"], "second invocation reused = %v; want true", again["reused"])
	assert.Equal(t, 2.0, again["invocation"], "second invocation = %v; want 2", again["invocation"])
	assert.Equal(t, int64(1), fake.Conns(), "connections the server accepted = %d; want 1", fake.Conns())
}

// TestWarmHandlerReusesTheInitConnection is claim T3's mechanism: the warm-up in Init leaves its
// connection in the SDK's pool, and the first invocation's GetItem goes out on it, with no
// handshake of its own.
func TestWarmHandlerReusesTheInitConnection(t *testing.T) {
	fake := startFakeDynamoDB(t)
	useEndpoint(t, fake.URL)
	f, err := initialize(context.Background(), testSettings(t, fake, variantWarm, nil))
	require.NoError(t, err)
	require.Equal(t, []string{"DynamoDB_20120810.ListTables"}, fake.Targets(), "calls during warm Init")
	w := f.warmup.result()
	require.NotNil(t, w)
	assert.Empty(t, w.Error, "warm-up error = %q; want none", w.Error)
	assert.False(t, w.Reused, "warm-up reused = true; want false (it makes the connection)")
	assert.Greater(t, w.TLSMs, 0.0, "warm-up tlsMs = %v; want > 0", w.TLSMs)
	assert.True(t, w.Pooled, "warm-up pooled = false; want true (writeError %q)", w.WriteError)
	f.setInit(measureInit(time.Now()))

	got := invoke(t, f)
	assert.Equal(t, "warm", got["variant"], "variant = %v; want warm", got["variant"])
	assert.Equal(t, true, got["found"], "found = %v; want true", got["found"])
	assert.Equal(t, true, got["reused"], "reused = %v; want true", got["reused"])
	assert.Equal(t, 0.0, got["tlsMs"], "tlsMs = %v; want 0", got["tlsMs"])
	assert.Equal(t, 0.0, got["connectMs"], "connectMs = %v; want 0", got["connectMs"])
	assert.Equal(t, int64(1), fake.Conns(), "connections the server accepted = %d; want 1", fake.Conns())
	warm, ok := got["warmup"].(map[string]any)
	require.True(t, ok, "warmup = %v; want an object", got["warmup"])
	assert.Greater(t, warm["tlsMs"], 0.0, "warmup.tlsMs = %v; want > 0", warm["tlsMs"])
	assert.Equal(t, false, warm["reused"], "warmup.reused = %v; want false", warm["reused"])
	assert.NotContains(t, warm, "error", "warmup.error = %v; want none", warm["error"])
}

// TestHandlerReportsAMissingItem: found is GetItem's answer, not a constant.
func TestHandlerReportsAMissingItem(t *testing.T) {
	fake := startFakeDynamoDB(t)
	useEndpoint(t, fake.URL)
	f, err := initialize(context.Background(), testSettings(t, fake, variantCold, map[string]string{"CLAIMS_KEY": `{"pk":"nobody"}`}))
	require.NoError(t, err)
	got := invoke(t, f)
	assert.Equal(t, false, got["found"], "found = %v; want false", got["found"])
	assert.NotContains(t, got, "error", "error = %v; want none", got["error"])
}

// closedPort is a loopback address where nothing listens: connecting is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// silentServer accepts connections and never says a word: a TLS handshake with it hangs until
// the client gives up.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// TestWarmUpFailureIsReportedNotFatal is claim T4: with DynamoDB unreachable, the warm Init
// still succeeds, within the warm-up's timeout and a margin, and the error is in every answer.
func TestWarmUpFailureIsReportedNotFatal(t *testing.T) {
	const timeout = 300 * time.Millisecond
	// The margin covers the SDK's last retry backoff being cut short and a slow -race run; it
	// is still far below the 10 s an unbounded warm-up could spend on a silent server.
	const margin = 2 * time.Second
	for _, tc := range []struct {
		name string
		addr func(*testing.T) string
	}{
		{"refused", closedPort},
		{"silent", silentServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			useEndpoint(t, "https://"+tc.addr(t))
			s := testSettings(t, nil, variantWarm, map[string]string{
				"CLAIMS_WARMUP_TIMEOUT_MS": strconv.Itoa(int(timeout / time.Millisecond)),
			})
			start := time.Now()
			f, err := initialize(context.Background(), s)
			took := time.Since(start)
			require.NoError(t, err, "a failed warm-up must not fail Init")
			assert.Less(t, took, timeout+margin, "Init took %v; want under %v", took, timeout+margin)
			w := f.warmup.result()
			require.NotNil(t, w)
			t.Logf("Init took %v; warm-up: %d attempts, error %q", took, w.Attempts, w.Error)
			assert.NotEmpty(t, w.Error, "warm-up error is empty; want the failure")
			assert.False(t, w.Pooled, "warm-up pooled = true; want false (there was no connection)")
			if tc.name == "silent" {
				assert.GreaterOrEqual(t, took, timeout, "Init took %v against a silent server; want the whole timeout %v", took, timeout)
				assert.Contains(t, w.Error, "deadline exceeded", "warm-up error = %q; want the timeout's", w.Error)
			}

			// The handler still answers, with its own failure and the warm-up's.
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			r, err := f.handle(ctx, json.RawMessage(`{}`))
			require.NoError(t, err, "a failed GetItem is answered, not a Lambda error")
			assert.NotEmpty(t, r.Error, "GetItem error is empty; want the failure")
			assert.False(t, r.Found, "found = true; want false")
			require.NotNil(t, r.Warmup)
			assert.Equal(t, w.Error, r.Warmup.Error, "warmup.error in the answer = %q; want Init's %q", r.Warmup.Error, w.Error)
		})
	}
}

// TestWarmupOutageStaysInTheSandbox is claim T4 as Lambda can try it: CLAIMS_WARMUP_OUTAGE sends
// the warm-up alone to a loopback endpoint of the function's own that refuses or stalls; Init
// still completes within the warm-up's bound, and the handler's GetItem reaches DynamoDB.
func TestWarmupOutageStaysInTheSandbox(t *testing.T) {
	const timeout = 300 * time.Millisecond
	const margin = 2 * time.Second // as in TestWarmUpFailureIsReportedNotFatal
	for _, how := range []string{outageRefused, outageStalled} {
		t.Run(how, func(t *testing.T) {
			fake := startFakeDynamoDB(t)
			useEndpoint(t, fake.URL)
			s := testSettings(t, fake, variantWarm, map[string]string{
				"CLAIMS_WARMUP_TIMEOUT_MS": strconv.Itoa(int(timeout / time.Millisecond)),
				"CLAIMS_WARMUP_OUTAGE":     how,
			})
			start := time.Now()
			f, err := initialize(context.Background(), s)
			took := time.Since(start)
			require.NoError(t, err, "a failed warm-up must not fail Init")
			assert.Less(t, took, timeout+margin, "Init took %v; want under %v", took, timeout+margin)
			w := f.warmup.result()
			require.NotNil(t, w)
			assert.NotEmpty(t, w.Error, "warm-up error is empty; want the %s endpoint's failure", how)
			assert.Empty(t, fake.Targets(), "calls DynamoDB got during Init = %v; want none (the warm-up stays in the sandbox)", fake.Targets())

			got := invoke(t, f)
			assert.Equal(t, true, got["found"], "found = %v; want true (the handler reads DynamoDB)", got["found"])
			assert.NotContains(t, got, "error", "error = %v; want none", got["error"])
		})
	}
}

// TestLoadSettings: each setting's default, and the errors that stop the process before
// lambda.Start.
func TestLoadSettings(t *testing.T) {
	base := map[string]string{"CLAIMS_VARIANT": "warm", "CLAIMS_TABLE": "t", "CLAIMS_KEY": `{"pk":"a","sk":7}`}
	s, err := loadSettings(envOf(base))
	require.NoError(t, err)
	assert.Equal(t, defaultWarmupTimeout, s.WarmupTimeout, "default warm-up timeout = %v; want %v", s.WarmupTimeout, defaultWarmupTimeout)
	assert.Len(t, s.Key, 2)
	assert.Empty(t, s.CAFile, "CAFile = %q; want empty: the system's roots", s.CAFile)

	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"no variant", "CLAIMS_VARIANT", "", `CLAIMS_VARIANT = ""; want "cold" or "warm"`},
		{"unknown variant", "CLAIMS_VARIANT", "hot", `CLAIMS_VARIANT = "hot"`},
		{"no table", "CLAIMS_TABLE", "", "CLAIMS_TABLE is not set"},
		{"no key", "CLAIMS_KEY", "", "CLAIMS_KEY is not set"},
		{"key not JSON", "CLAIMS_KEY", "pk=a", "want a JSON object"},
		{"empty key", "CLAIMS_KEY", "{}", "want at least one attribute"},
		{"key of a list", "CLAIMS_KEY", `{"pk":[1]}`, "want a string or a number"},
		{"timeout not a number", "CLAIMS_WARMUP_TIMEOUT_MS", "1s", `CLAIMS_WARMUP_TIMEOUT_MS = "1s"`},
		{"timeout zero", "CLAIMS_WARMUP_TIMEOUT_MS", "0", "want a positive number"},
		{"unknown outage", "CLAIMS_WARMUP_OUTAGE", "down", `CLAIMS_WARMUP_OUTAGE = "down"; want "refused", "stalled" or unset`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := maps.Clone(base)
			env[tc.key] = tc.value
			_, err := loadSettings(envOf(env))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestNewClientRejectsABadCAFile: a CA file that cannot be used is an Init error, not a silent
// fall-back to the system's roots (which would fail every handshake with the stand-in later,
// further from the cause).
func TestNewClientRejectsABadCAFile(t *testing.T) {
	useEndpoint(t, "https://127.0.0.1:1")
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, tc := range []struct{ name, file, want string }{
		{"missing", filepath.Join(t.TempDir(), "none.pem"), "no such file"},
		{"not PEM", notPEM, "no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings(t, nil, variantCold, map[string]string{"CLAIMS_CA_FILE": tc.file})
			_, err := newClient(context.Background(), s)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestNewClientWantsARegion: without AWS_REGION the SDK would fail only at the first call.
func TestNewClientWantsARegion(t *testing.T) {
	useEndpoint(t, "https://127.0.0.1:1")
	t.Setenv("AWS_REGION", "")
	_, err := newClient(context.Background(), testSettings(t, nil, variantCold, nil))
	assert.ErrorContains(t, err, "set AWS_REGION")
}
