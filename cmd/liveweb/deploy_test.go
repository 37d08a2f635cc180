package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/webdeploy"
)

// fakeCloud records every call in order and fails the one named by failAt.
type fakeCloud struct {
	calls  []string
	failAt string // "CreateWebFunction claims-0123abcd-go", say
}

var errFake = errors.New("fake failure")

func (f *fakeCloud) call(c string) error {
	f.calls = append(f.calls, c)
	if c == f.failAt {
		return errFake
	}
	return nil
}

func (f *fakeCloud) CreateRole(_ context.Context, name string, _ map[string]string) (string, error) {
	return "arn:aws:iam::123456789012:role/" + name, f.call("CreateRole " + name)
}
func (f *fakeCloud) DeleteRole(_ context.Context, name, _ string) error {
	return f.call("DeleteRole " + name)
}
func (f *fakeCloud) CreateBucket(_ context.Context, name, _ string, _ map[string]string) error {
	return f.call("CreateBucket " + name)
}
func (f *fakeCloud) PutBundle(_ context.Context, _, key, _ string) (string, error) {
	return "v-" + key, f.call("PutBundle " + key)
}
func (f *fakeCloud) DeleteBucket(_ context.Context, name string) error {
	return f.call("DeleteBucket " + name)
}
func (f *fakeCloud) ListBuckets(context.Context, string) ([]string, error) {
	return nil, f.call("ListBuckets")
}
func (f *fakeCloud) CreateWebFunction(_ context.Context, s functionSpec) error {
	return f.call("CreateWebFunction " + s.Name)
}
func (f *fakeCloud) WaitEndpoint(_ context.Context, fn, _ string) (string, error) {
	return "id-" + fn + ".x.lambda-web.us-east-1.on.aws", f.call("WaitEndpoint " + fn)
}
func (f *fakeCloud) DeleteWebFunction(_ context.Context, name string) error {
	return f.call("DeleteWebFunction " + name)
}
func (f *fakeCloud) ListWebFunctions(context.Context, string) ([]string, error) {
	return nil, f.call("ListWebFunctions")
}

func testPlan() plan {
	return newPlan("0123abcd", "us-east-1", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), settings.Article(), 0.25)
}

var testBundles = map[string]string{"node-probe": "/n.zip", "go-probe": "/g.zip"}

func TestDeployMakesInOrderAndWritesTheEndpoints(t *testing.T) {
	f := &fakeCloud{}
	var written webdeploy.Deployment
	err := deploy(t.Context(), f, testPlan(), testBundles, func(d webdeploy.Deployment) error { written = d; return nil }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"CreateRole claims-0123abcd-web-exec", "CreateBucket claims-0123abcd-web-code",
		"PutBundle node-probe.zip", "PutBundle go-probe.zip",
		"CreateWebFunction claims-0123abcd-node", "CreateWebFunction claims-0123abcd-go", "CreateWebFunction claims-0123abcd-go-c1",
		"WaitEndpoint claims-0123abcd-node", "WaitEndpoint claims-0123abcd-go", "WaitEndpoint claims-0123abcd-go-c1",
	}, f.calls)
	assert.Equal(t, "0123abcd", written.RunID)
	assert.Equal(t, "claims-0123abcd-web-code", written.Bucket)
	require.Len(t, written.Endpoints, 3)
	c1, ok := written.Endpoint(webdeploy.GoConc1)
	require.True(t, ok)
	assert.Equal(t, "https://id-claims-0123abcd-go-c1.x.lambda-web.us-east-1.on.aws", c1.URL)
	assert.Equal(t, 1, c1.MaxConcurrencyPerEnvironment)
	assert.Equal(t, 2, c1.MaxEnvironments)
	assert.Equal(t, webdeploy.AuthIAM, c1.Auth)
}

// TestAFailedDeployDeletesWhatItMadeNewestFirst fails each step in turn and wants the deletions
// of everything registered so far, in reverse order, and no endpoints file.
func TestAFailedDeployDeletesWhatItMadeNewestFirst(t *testing.T) {
	for _, tc := range []struct {
		failAt  string
		deleted []string
	}{
		{"CreateRole claims-0123abcd-web-exec", []string{"DeleteRole claims-0123abcd-web-exec"}},
		{"PutBundle go-probe.zip", []string{"DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec"}},
		{"CreateWebFunction claims-0123abcd-go", []string{
			"DeleteWebFunction claims-0123abcd-go", "DeleteWebFunction claims-0123abcd-node",
			"DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec"}},
		{"WaitEndpoint claims-0123abcd-go-c1", []string{
			"DeleteWebFunction claims-0123abcd-go-c1", "DeleteWebFunction claims-0123abcd-go", "DeleteWebFunction claims-0123abcd-node",
			"DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec"}},
	} {
		t.Run(tc.failAt, func(t *testing.T) {
			f := &fakeCloud{failAt: tc.failAt}
			wrote := false
			var out strings.Builder
			err := deploy(t.Context(), f, testPlan(), testBundles, func(webdeploy.Deployment) error { wrote = true; return nil }, &out)
			require.ErrorIs(t, err, errFake)
			i := indexOf(f.calls, tc.failAt)
			require.GreaterOrEqual(t, i, 0, "calls = %v", f.calls)
			assert.Equal(t, tc.deleted, f.calls[i+1:], "deletions after %q = %v; want %v", tc.failAt, f.calls[i+1:], tc.deleted)
			assert.False(t, wrote, "an endpoints file was written for a failed deploy")
		})
	}
}

// TestAnInterruptedDeployDeletesWhatItMade: Ctrl-C cancels the context; the deletions still run.
func TestAnInterruptedDeployDeletesWhatItMade(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	f := &cancelAt{fakeCloud: fakeCloud{}, at: "WaitEndpoint claims-0123abcd-node", cancel: cancel}
	err := deploy(ctx, f, testPlan(), testBundles, func(webdeploy.Deployment) error { return nil }, io.Discard)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, f.calls, "DeleteRole claims-0123abcd-web-exec", "calls = %v", f.calls)
	assert.Equal(t, "DeleteRole claims-0123abcd-web-exec", f.calls[len(f.calls)-1])
}

// cancelAt cancels the context when the call at is made, as Ctrl-C would during it.
type cancelAt struct {
	fakeCloud
	at     string
	cancel context.CancelFunc
}

func (c *cancelAt) WaitEndpoint(ctx context.Context, fn, ep string) (string, error) {
	if "WaitEndpoint "+fn == c.at {
		c.cancel()
		c.calls = append(c.calls, c.at)
		return "", ctx.Err()
	}
	return c.fakeCloud.WaitEndpoint(ctx, fn, ep)
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestDestroyDeletesFunctionsThenBucketThenRoleAndTakesNothingGoneAsAFailure(t *testing.T) {
	p := testPlan()
	d := webdeploy.Deployment{RunID: p.RunID, Region: p.Region, Bucket: p.Bucket, Role: p.Role}
	for _, f := range p.Functions {
		d.Endpoints = append(d.Endpoints, webdeploy.Endpoint{Name: f.Endpoint, Function: f.Name})
	}
	f := &fakeCloud{}
	var out strings.Builder
	require.NoError(t, destroy(t.Context(), f, d, &out))
	assert.Equal(t, []string{
		"ListWebFunctions", "DeleteWebFunction claims-0123abcd-node", "DeleteWebFunction claims-0123abcd-go", "DeleteWebFunction claims-0123abcd-go-c1",
		"ListBuckets", "DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec",
	}, f.calls)
	for _, what := range []string{"Web Function claims-0123abcd-go-c1", "S3 bucket claims-0123abcd-web-code", "IAM role claims-0123abcd-web-exec"} {
		assert.Contains(t, out.String(), "deleted "+what)
	}

	// A failed deletion is reported, and the others still run.
	f = &fakeCloud{failAt: "DeleteBucket claims-0123abcd-web-code"}
	err := destroy(t.Context(), f, d, io.Discard)
	assert.ErrorContains(t, err, "deleting S3 bucket claims-0123abcd-web-code")
	assert.Equal(t, "DeleteRole claims-0123abcd-web-exec", f.calls[len(f.calls)-1])
}

// TestCreateArgsAreWhatTheAPIReferenceNames checks the JSON of create-web-function's arguments.
func TestCreateArgsAreWhatTheAPIReferenceNames(t *testing.T) {
	p := testPlan()
	args, err := createArgs(functionSpec{
		webFunction: p.Functions[2], RoleARN: "arn:aws:iam::123456789012:role/r", Bucket: p.Bucket, Key: "go-probe.zip", VersionID: "v1", Tags: p.tags(),
	})
	require.NoError(t, err)
	require.Equal(t, []string{"lambda-web", "create-web-function", "--function-name", "claims-0123abcd-go-c1"}, args[:4])
	var rc, ec, tags map[string]any
	require.NoError(t, json.Unmarshal([]byte(args[5]), &rc))
	require.NoError(t, json.Unmarshal([]byte(args[7]), &ec))
	require.NoError(t, json.Unmarshal([]byte(args[9]), &tags))
	assert.Equal(t, "--revision-config --endpoint-config --tags", strings.Join([]string{args[4], args[6], args[8]}, " "))
	assert.Equal(t, map[string]any{
		"buildConfig": map[string]any{
			"codeConfig":    map[string]any{"s3Object": map[string]any{"bucket": "claims-0123abcd-web-code", "key": "go-probe.zip", "versionId": "v1"}},
			"runtimeConfig": map[string]any{"runtime": "nodejs24.x"},
		},
		"description":   "claims: go-probe",
		"serviceConfig": map[string]any{"executionRoleArn": "arn:aws:iam::123456789012:role/r", "maxConcurrencyPerEnvironment": 1.0},
	}, rc)
	assert.Equal(t, map[string]any{
		"endpointName": "claims", "endpointType": "HomeRegion", "authType": "IamAuth", "autoDeploymentMode": "LatestRevision",
		"scalingConfig": map[string]any{"maxEnvironments": 2.0},
	}, ec)
	assert.Equal(t, map[string]any{"claims:run": "0123abcd", "claims:created": "2026-12-01T00:00:00Z"}, tags)
}

func TestEstimateGrowsWithTheTrialsAndIsRefusedAboveTheCap(t *testing.T) {
	p := testPlan()
	e := estimate(p)
	assert.Greater(t, e.USD, 0.0)
	more := p
	more.Settings.Trials *= 10
	assert.Greater(t, estimate(more).USD, e.USD, "ten times the trials must cost more")
	var out strings.Builder
	p.MaxUSD = e.USD / 2
	err := admit(p, e, &out)
	assert.ErrorContains(t, err, "CLAIMS_LIVE_MAX_USD")
	assert.Contains(t, out.String(), fmt.Sprintf("estimate: $%.4f", e.USD))
	p.MaxUSD = e.USD * 2
	assert.NoError(t, admit(p, e, io.Discard))
}
