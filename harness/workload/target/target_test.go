package target

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocalGet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ping":
			w.Write([]byte(`{"envId":"e1","pid":9,"receivedAt":1.5,"finishedAt":1.6}`))
		case "/bad":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"ms = \"abc\": want an integer","envId":"e1","pid":9,"receivedAt":2,"finishedAt":2}`))
		default:
			w.Write([]byte(`<html>not a probe</html>`))
		}
	}))
	t.Cleanup(srv.Close)
	tgt := NewLocal(strings.TrimPrefix(srv.URL, "http://"))
	t.Cleanup(tgt.Close)
	ctx := context.Background()

	r := tgt.Get(ctx, "/ping")
	require.NoError(t, r.Err)
	assert.Equal(t, 200, r.Status)
	assert.Equal(t, "e1", r.Answer.EnvID)
	assert.False(t, r.DoneAt.Before(r.SentAt))

	r = tgt.Get(ctx, "/bad")
	require.NoError(t, r.Err, "a 400 with a protocol answer is a reply, not a failure")
	assert.Equal(t, 400, r.Status)
	assert.Contains(t, r.Answer.Error, "ms")

	r = tgt.Get(ctx, "/other")
	assert.ErrorContains(t, r.Err, "not JSON")

	srv.Close()
	r = tgt.Get(ctx, "/ping")
	assert.Error(t, r.Err, "a closed server is an error in the reply")
}

// TestWebSignsThePayloadHash: a signing Web target sends X-Amz-Content-SHA256 with the empty
// body's SHA-256 and signs it, as Lambda requires of an IamAuth request (it does not support
// unsigned payloads); an unsigned target sends neither header.
func TestWebSignsThePayloadHash(t *testing.T) {
	got := make(chan http.Header, 2)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"envId":"a","pid":1,"receivedAt":1,"finishedAt":1,"path":"/ping"}`))
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	signed, err := NewWeb(srv.URL, WebOptions{Credentials: credentials.NewStaticCredentialsProvider("AKIDTARGETTEST000000", "s", ""), Region: "us-east-1", RootCAs: pool})
	require.NoError(t, err)
	t.Cleanup(signed.Close)
	require.NoError(t, signed.Get(t.Context(), "/ping").Err)
	h := <-got
	const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	assert.Equal(t, emptySHA, h.Get("X-Amz-Content-Sha256"), "X-Amz-Content-SHA256 of a signed GET")
	assert.Contains(t, h.Get("Authorization"), "x-amz-content-sha256", "the header is among the signed ones (Authorization %q)", h.Get("Authorization"))
	assert.Contains(t, h.Get("Authorization"), "/us-east-1/lambda/aws4_request", "the signature's scope names service lambda (Authorization %q)", h.Get("Authorization"))

	unsigned, err := NewWeb(srv.URL, WebOptions{RootCAs: pool})
	require.NoError(t, err)
	t.Cleanup(unsigned.Close)
	require.NoError(t, unsigned.Get(t.Context(), "/ping").Err)
	h = <-got
	assert.Empty(t, h.Get("Authorization"), "Authorization of an unsigned GET")
	assert.Empty(t, h.Get("X-Amz-Content-Sha256"), "X-Amz-Content-SHA256 of an unsigned GET")
}
