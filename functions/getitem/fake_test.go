package main

import (
	"encoding/json"
	"encoding/pem"
	"hash/crc32"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeDynamoDB is a DynamoDB stand-in on loopback TLS that speaks just enough of the JSON
// protocol for the function: GetItem (the item {"pk":"bench"} exists in table "claims", nothing
// else does) and ListTables. It counts the TCP connections it accepts, so that a test can tell a
// reused connection from the server's side too, not only from the trace being tested.
type fakeDynamoDB struct {
	*httptest.Server
	// CAFile is a PEM file of the server's certificate, which is its own CA.
	CAFile   string
	newConns atomic.Int64
	mu       sync.Mutex
	targets  []string
}

// The fake's table and the key of its one item.
const (
	fakeTable = "claims"
	fakeKey   = `{"pk":"bench"}`
)

func startFakeDynamoDB(t *testing.T) *fakeDynamoDB {
	t.Helper()
	f := &fakeDynamoDB{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			f.newConns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	f.Server = srv
	f.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	require.NoError(t, os.WriteFile(f.CAFile, block, 0o600))
	return f
}

// Conns is how many connections the server has accepted.
func (f *fakeDynamoDB) Conns() int64 { return f.newConns.Load() }

// Targets are the operations called so far, in order.
func (f *fakeDynamoDB) Targets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.targets...)
}

func (f *fakeDynamoDB) serve(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	f.mu.Lock()
	f.targets = append(f.targets, target)
	f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch target {
	case "DynamoDB_20120810.ListTables":
		reply(w, http.StatusOK, `{"TableNames":["claims"]}`)
	case "DynamoDB_20120810.GetItem":
		var in struct {
			TableName string
			Key       map[string]map[string]string
		}
		switch {
		case json.Unmarshal(body, &in) != nil:
			reply(w, http.StatusBadRequest, `{"__type":"com.amazon.coral.validate#ValidationException","message":"bad JSON"}`)
		case in.TableName == fakeTable && len(in.Key) == 1 && in.Key["pk"]["S"] == "bench":
			reply(w, http.StatusOK, `{"Item":{"pk":{"S":"bench"},"n":{"N":"1"}}}`)
		default:
			reply(w, http.StatusOK, `{}`)
		}
	default:
		reply(w, http.StatusBadRequest, `{"__type":"com.amazon.coral.service#UnknownOperationException","message":"unknown target"}`)
	}
}

// reply answers as DynamoDB does, with the body's CRC32 in X-Amz-Crc32: the SDK checks it, and
// without it logs a checksum warning on every call.
func reply(w http.ResponseWriter, status int, body string) {
	time.Sleep(answerDelay)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// answerDelay is how long the fake thinks before it answers. DynamoDB is never instant, and the
// pause keeps a race in the SDK out of the tests: smithy-go closes the request body as soon as
// the response is in, and if net/http's write loop has not yet made its last read of that body
// (its check for bytes past Content-Length), the read fails with io.EOF, net/http counts the
// write as failed, and the connection is closed instead of pooled. On loopback with no pause,
// under -race, that happens in a few percent of calls.
const answerDelay = 5 * time.Millisecond

// useEndpoint points the SDK's default configuration at endpoint, with static dummy credentials,
// and keeps everything else of the test machine's AWS setup (profiles, files, other endpoints)
// out of it.
func useEndpoint(t *testing.T, endpoint string) {
	t.Helper()
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN",
		"AWS_CA_BUNDLE", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "") // restores the old value after the test
		require.NoError(t, os.Unsetenv(k))
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "ap-northeast-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDCLAIMSTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "claims-test-secret")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
}

// envOf is a getenv over a map, for loadSettings.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// testSettings are the settings of a function against the fake, through loadSettings as main
// reads them; extra overrides or adds variables.
func testSettings(t *testing.T, f *fakeDynamoDB, variant string, extra map[string]string) settings {
	t.Helper()
	env := map[string]string{
		"CLAIMS_VARIANT": variant,
		"CLAIMS_TABLE":   fakeTable,
		"CLAIMS_KEY":     fakeKey,
	}
	if f != nil {
		env["CLAIMS_CA_FILE"] = f.CAFile
	}
	maps.Copy(env, extra)
	s, err := loadSettings(envOf(env))
	require.NoError(t, err)
	return s
}
