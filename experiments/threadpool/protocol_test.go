package threadpool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabsRejectBadInput: a lab given a parameter that makes no sense exits 2 naming it, and
// the P10 server answers bad requests with a JSON error and stays up.
func TestLabsRejectBadInput(t *testing.T) {
	l := firstLab(t)

	for _, tc := range []struct {
		scenario string
		params   map[string]any
		names    string
	}{
		{"nope", nil, `scenario "nope"`},
		{"slots", map[string]any{"maxJobs": 0, "holdMs": 200}, "maxJobs = 0"},
		{"slots", map[string]any{"maxJobs": 4, "holdMs": "long"}, `holdMs = "long"`},
		{"waves", map[string]any{"jobs": 1.5, "iterations": 1000}, "jobs = 1.5"},
		{"blocking", map[string]any{"op": "sort"}, `op = "sort"`},
		{"apiTable", map[string]any{"heavyJobs": 4, "iterations": 1000, "dir": "relative", "dnsServer": "127.0.0.1:53"}, `dir = "relative"`},
		{"interference", map[string]any{"trials": 1, "gzipJobs": 1, "gzipBytes": 1024, "names": 1, "settleMs": 0, "dir": "/tmp", "dnsServer": "192.0.2.1:53"}, `dnsServer = "192.0.2.1:53"`},
	} {
		t.Run(tc.scenario+"/"+tc.names, func(t *testing.T) {
			var out map[string]any
			err := l.sized("4").try(t, tc.scenario, tc.params, &out)
			require.Error(t, err, "the lab accepted %v", tc.params)
			assert.Contains(t, err.Error(), "exit status 2", "a bad parameter exits 2")
			assert.Contains(t, err.Error(), tc.names, "the message names the parameter")
		})
	}

	t.Run("sync-server", func(t *testing.T) {
		srv := startSyncServer(t, syncServerLab(l, "request", syncPathDataFile(t), false))
		for path, status := range map[string]int{"/nope": 404, "/work?x=1": 400} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			r := srv.target.Get(ctx, path)
			cancel()
			require.NoError(t, r.Err, "GET %s", path)
			assert.Equal(t, status, r.Status, "GET %s: status = %d; want %d (%s)", path, r.Status, status, r.Answer.Error)
			assert.NotEmpty(t, r.Answer.Error, "GET %s: a JSON error", path)
		}
		_, err := srv.get("/ping")
		assert.NoError(t, err, "the server still answers after bad requests")
	})
}
