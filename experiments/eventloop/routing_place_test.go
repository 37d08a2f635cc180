//go:build lambda

package eventloop

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/workload/protocol"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/results/family"
)

// placedRequest is a served request of kind in the environment whose envId is env, with the
// logstream log ("" for an answer without lambda-web-logstream), handled from received to
// finished on that environment's clock.
func placedRequest(name, kind, env, log string, received, finished float64) record.Request {
	return record.Request{Name: name, Kind: kind, Status: http.StatusOK, EnvHint: log,
		Answer: protocol.Answer{EnvID: env, PID: 1, ReceivedAt: received, FinishedAt: finished}}
}

// throttledRequest is a request the endpoint answered 429.
func throttledRequest(name, kind string) record.Request {
	return record.Request{Name: name, Kind: kind, Status: http.StatusTooManyRequests, Throttled: true}
}

// TestWebPlacementOfThrottledAndHeaderlessAnswers: a throttled /ping is placed nowhere and is never
// co-located; an answer without lambda-web-logstream is placed by the logstream its envId carried
// elsewhere, or not at all, and W9 checks only pairs that both carried the header.
func TestWebPlacementOfThrottledAndHeaderlessAnswers(t *testing.T) {
	r := &routingRun{envs: map[string]int{"log-a": 1, "log-b": 2}}
	r.byEnvID = logstreamsByEnvID([]record.Trial{{Requests: []record.Request{
		placedRequest("ping", record.KindPing, "a", "log-a", 0, 1), placedRequest("ping2", record.KindPing, "b", "log-b", 0, 1),
	}}})
	alive := func(int) bool { return true }
	cases := []struct {
		name  string
		reqs  []record.Request
		check func(t *testing.T, p family.Placement)
	}{
		{"ping throttled while both /cpu run", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("cpu2", record.KindCPU, "b", "log-b", 60, 260),
			throttledRequest("ping", record.KindPing),
		}, func(t *testing.T, p family.Placement) {
			assert.True(t, p.PingThrottled, "pingThrottled")
			assert.Equal(t, 1, p.Throttled, "throttled requests")
			assert.Zero(t, p.PingEnv, "a throttled /ping's environment")
			assert.Zero(t, p.PingCoLocated, "a throttled /ping counted beside a /cpu")
			assert.False(t, p.PingBesideBusy || p.PingWaited, "a throttled /ping beside or waiting for a /cpu")
			assert.True(t, everyEnvBusy(p), "both /cpu in two environments: every environment busy (W12 selects the trial, and leaves its throttled /ping out of the share)")
			assert.False(t, pingPlaced(p), "W6 takes a trial with a throttled /ping as evidence")
		}},
		{"the /ping's header missing, its envId known", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("cpu2", record.KindCPU, "b", "log-b", 60, 260),
			placedRequest("ping", record.KindPing, "b", "", 100, 100.1),
		}, func(t *testing.T, p family.Placement) {
			assert.True(t, p.Placed, "placed by envId")
			assert.Equal(t, 1, p.LogstreamMissing, "answers without the header")
			assert.Equal(t, 1, p.LogstreamInferred, "answers placed by envId")
			assert.Equal(t, 2, p.PingEnv, "the /ping's environment, by the logstream its envId carried")
			assert.True(t, p.PingBesideBusy, "the /ping ran while cpu2 beside it did")
			assert.Equal(t, 1, p.PairsChecked, "W9's pairs: only cpu and cpu2 both carried the header")
			assert.True(t, p.Agree, "agree")
		}},
		{"the /ping's header missing, its envId never seen with one", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("ping", record.KindPing, "z", "", 100, 100.1),
		}, func(t *testing.T, p family.Placement) {
			assert.False(t, p.Placed, "placed with neither id")
			assert.Zero(t, p.PingEnv, "the /ping's environment")
			assert.False(t, pingPlaced(p), "W6 takes an unplaced /ping as evidence")
			assert.Zero(t, p.PairsChecked, "W9's pairs")
			assert.False(t, idsChecked(p), "W9 takes a trial with no pair to check as evidence")
		}},
		{"the /ping got to its environment before the /cpu there started", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("cpu2", record.KindCPU, "b", "log-b", 60, 260),
			placedRequest("ping", record.KindPing, "b", "log-b", 55, 55.1),
		}, func(t *testing.T, p family.Placement) {
			assert.False(t, p.PingBesideBusy, "a /ping whose handler ran before cpu2's started ran beside it running")
			assert.True(t, p.PingBesideInFlight, "pingBesideInFlight = false; want true: cpu2 held a slot in its environment (W12)")
			assert.False(t, p.PingAfterCPU, "pingAfterCpu")
		}},
		{"the /ping after the /cpu beside it finished", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("cpu2", record.KindCPU, "b", "log-b", 60, 260),
			placedRequest("ping", record.KindPing, "b", "log-b", 260, 260.1),
		}, func(t *testing.T, p family.Placement) {
			assert.True(t, p.PingWaited, "pingWaited")
			assert.False(t, p.PingBesideInFlight, "pingBesideInFlight = true; want false: cpu2 had finished (the /ping was queued, W12)")
		}},
		{"envId and logstream disagree", []record.Request{
			placedRequest("cpu", record.KindCPU, "a", "log-a", 10, 210), placedRequest("ping", record.KindPing, "a", "log-b", 100, 100.1),
		}, func(t *testing.T, p family.Placement) {
			assert.Equal(t, 1, p.PairsChecked, "W9's pairs")
			assert.False(t, p.Agree, "one envId under two logstreams agrees")
			assert.False(t, clocks(p), "clocks compared across a disagreement")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, place(record.Trial{Requests: c.reqs}, r.envs, r.logstream, alive))
		})
	}
}

// withoutAWS leaves the SDK's default chain nothing to find: no credentials, no region, no
// shared files, no instance metadata.
func withoutAWS(t *testing.T) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty,
		"AWS_EC2_METADATA_DISABLED": "true", standInEnv: "",
	} {
		t.Setenv(k, v)
	}
}

func TestWebPublicEndpointsNeedNoAWSConfiguration(t *testing.T) {
	withoutAWS(t)
	for _, name := range []string{webendpoints.Node, webendpoints.Go, webendpoints.GoConc1} {
		t.Setenv(webendpoints.URLEnv[name], "https://127.0.0.1:9")
	}

	t.Setenv(webendpoints.AuthEnv, webendpoints.AuthPublic)
	p, missing, err := deployed(t.Context())
	require.NoError(t, err)
	assert.Empty(t, missing, "ApplicationManaged endpoints without an AWS configuration: missing = %q; want none, they run unsigned", missing)
	assert.Nil(t, p.creds, "credentials of an ApplicationManaged run = %v; want none", p.creds)
	assert.Len(t, p.d.Endpoints, 3, "endpoints of the run")

	t.Setenv(webendpoints.AuthEnv, webendpoints.AuthIAM)
	_, missing, err = deployed(t.Context())
	require.NoError(t, err)
	assert.Contains(t, missing, "AWS configuration", "IamAuth endpoints without an AWS configuration: missing = %q; want the configuration named", missing)
}
