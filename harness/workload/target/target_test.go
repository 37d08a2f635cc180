package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
