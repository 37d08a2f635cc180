package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/prices"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// fakeCloud records every call in order and fails the one named by failAt. Its listings answer
// what its fields hold; roleARN is CreateRole's answer (an aws-partition ARN when empty) and
// versionID, when set, PutBundle's.
type fakeCloud struct {
	calls     []string
	failAt    string // "CreateWebFunction claims-0123abcd-go", say
	roleARN   string
	versionID *string
	partition string // what CreateBucket was given
	functions []found
	buckets   []found
	roles     []found
	logGroups []string
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
	return cmpOr(f.roleARN, "arn:aws:iam::123456789012:role/"+name), f.call("CreateRole " + name)
}
func (f *fakeCloud) DeleteRole(_ context.Context, name, _ string) error {
	return f.call("DeleteRole " + name)
}
func (f *fakeCloud) ListRoles(context.Context, string) ([]found, error) {
	return f.roles, f.call("ListRoles")
}
func (f *fakeCloud) CreateBucket(_ context.Context, name, partition, _ string, _ map[string]string) error {
	f.partition = partition
	return f.call("CreateBucket " + name)
}
func (f *fakeCloud) PutBundle(_ context.Context, _, key, _ string) (string, error) {
	if f.versionID != nil {
		return *f.versionID, f.call("PutBundle " + key)
	}
	return "v-" + key, f.call("PutBundle " + key)
}
func (f *fakeCloud) DeleteBucket(_ context.Context, name string) error {
	return f.call("DeleteBucket " + name)
}
func (f *fakeCloud) ListBuckets(context.Context, string) ([]found, error) {
	return f.buckets, f.call("ListBuckets")
}
func (f *fakeCloud) CreateWebFunction(_ context.Context, s functionSpec) error {
	return f.call("CreateWebFunction " + s.Name)
}
func (f *fakeCloud) WaitEndpoint(_ context.Context, fn, _ string) (string, error) {
	return "id-" + fn + ".x.lambda-web.us-east-1.on.aws", f.call("WaitEndpoint " + fn)
}
func (f *fakeCloud) CheckServes(_ context.Context, e webendpoints.Endpoint) error {
	return f.call("CheckServes " + e.Function)
}
func (f *fakeCloud) DeleteWebFunction(_ context.Context, name string) error {
	return f.call("DeleteWebFunction " + name)
}
func (f *fakeCloud) ListWebFunctions(context.Context, string) ([]found, error) {
	return f.functions, f.call("ListWebFunctions")
}
func (f *fakeCloud) ListLogGroups(_ context.Context, prefix string) ([]string, error) {
	var out []string
	for _, g := range f.logGroups {
		if strings.HasPrefix(g, prefix) {
			out = append(out, g)
		}
	}
	return out, f.call("ListLogGroups")
}
func (f *fakeCloud) DeleteLogGroup(_ context.Context, name string) error {
	return f.call("DeleteLogGroup " + name)
}

func testPlan() plan {
	return newPlan("0123abcd", "us-east-1", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), settings.Article(), 0.25)
}

var testBundles = map[string]string{"node-probe": "/n.zip", "go-probe": "/g.zip"}

func TestDeployMakesInOrderAndWritesTheEndpoints(t *testing.T) {
	f := &fakeCloud{}
	var written webendpoints.Deployment
	err := deploy(t.Context(), f, testPlan(), testBundles, func(d webendpoints.Deployment) error { written = d; return nil }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"CreateRole claims-0123abcd-web-exec", "CreateBucket claims-0123abcd-web-code",
		"PutBundle node-probe.zip", "PutBundle go-probe.zip",
		"CreateWebFunction claims-0123abcd-node", "CreateWebFunction claims-0123abcd-go", "CreateWebFunction claims-0123abcd-go-c1",
		"WaitEndpoint claims-0123abcd-node", "WaitEndpoint claims-0123abcd-go", "WaitEndpoint claims-0123abcd-go-c1",
		"CheckServes claims-0123abcd-node", "CheckServes claims-0123abcd-go", "CheckServes claims-0123abcd-go-c1",
	}, f.calls)
	assert.Equal(t, "0123abcd", written.RunID)
	assert.Equal(t, "claims-0123abcd-web-code", written.Bucket)
	require.Len(t, written.Endpoints, 3)
	c1, ok := written.Endpoint(webendpoints.GoConc1)
	require.True(t, ok)
	assert.Equal(t, "https://id-claims-0123abcd-go-c1.x.lambda-web.us-east-1.on.aws", c1.URL)
	assert.Equal(t, 1, c1.MaxConcurrencyPerEnvironment)
	assert.Equal(t, webendpoints.LoweredMaxEnvironments, c1.MaxEnvironments, "W12's lowered endpoint's maxEnvironments: a third environment serves the /ping")
	assert.Equal(t, webendpoints.AuthIAM, c1.Auth)
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
		// A revision that does not serve /ping fails the deploy, and all of it is deleted.
		{"CheckServes claims-0123abcd-go", []string{
			"DeleteWebFunction claims-0123abcd-go-c1", "DeleteWebFunction claims-0123abcd-go", "DeleteWebFunction claims-0123abcd-node",
			"DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec"}},
	} {
		t.Run(tc.failAt, func(t *testing.T) {
			f := &fakeCloud{failAt: tc.failAt}
			wrote := false
			var out strings.Builder
			err := deploy(t.Context(), f, testPlan(), testBundles, func(webendpoints.Deployment) error { wrote = true; return nil }, &out)
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
	err := deploy(ctx, f, testPlan(), testBundles, func(webendpoints.Deployment) error { return nil }, io.Discard)
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
	d := webendpoints.Deployment{RunID: p.RunID, Region: p.Region, Bucket: p.Bucket, Role: p.Role}
	for _, f := range p.Functions {
		d.Endpoints = append(d.Endpoints, webendpoints.Endpoint{Name: f.Endpoint, Function: f.Name})
	}
	f := &fakeCloud{}
	var out strings.Builder
	require.NoError(t, destroy(t.Context(), f, d, &out))
	assert.Equal(t, []string{
		"ListWebFunctions", "DeleteWebFunction claims-0123abcd-node", "DeleteWebFunction claims-0123abcd-go", "DeleteWebFunction claims-0123abcd-go-c1",
		"ListLogGroups",
		"DeleteLogGroup /aws/lambda/web/claims-0123abcd-node", "DeleteLogGroup /aws/lambda/web/claims-0123abcd-node.local",
		"DeleteLogGroup /aws/lambda/web/claims-0123abcd-go", "DeleteLogGroup /aws/lambda/web/claims-0123abcd-go.local",
		"DeleteLogGroup /aws/lambda/web/claims-0123abcd-go-c1", "DeleteLogGroup /aws/lambda/web/claims-0123abcd-go-c1.local",
		"ListBuckets", "DeleteBucket claims-0123abcd-web-code", "DeleteRole claims-0123abcd-web-exec",
	}, f.calls)
	for _, what := range []string{"Web Function claims-0123abcd-go-c1", "log group /aws/lambda/web/claims-0123abcd-go.local", "S3 bucket claims-0123abcd-web-code", "IAM role claims-0123abcd-web-exec"} {
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
		"scalingConfig": map[string]any{"maxEnvironments": float64(webendpoints.LoweredMaxEnvironments)},
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

// TestTheBucketPolicyIsInTheCallersPartition: the partition comes from the role's ARN, the
// caller's, and every ARN of the bucket policy is in it.
func TestTheBucketPolicyIsInTheCallersPartition(t *testing.T) {
	f := &fakeCloud{roleARN: "arn:aws-us-gov:iam::123456789012:role/claims-0123abcd-web-exec"}
	require.NoError(t, deploy(t.Context(), f, testPlan(), testBundles, func(webendpoints.Deployment) error { return nil }, io.Discard))
	assert.Equal(t, "aws-us-gov", f.partition, "CreateBucket's partition = %q; want the role ARN's aws-us-gov", f.partition)

	policy := bucketPolicy("claims-0123abcd-web-code", "aws-cn", "cn-north-1", "123456789012")
	var doc struct {
		Statement []struct {
			Resource  any
			Condition map[string]map[string]string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(policy), &doc), "bucket policy: %s", policy)
	assert.NotContains(t, policy, "arn:aws:", "the policy names the aws partition: %s", policy)
	assert.Equal(t, "arn:aws-cn:s3:::claims-0123abcd-web-code/*", doc.Statement[0].Resource)
	assert.Equal(t, "arn:aws-cn:lambda:cn-north-1:123456789012:web-function/*", doc.Statement[0].Condition["ArnLike"]["aws:SourceArn"])
	assert.Equal(t, []any{"arn:aws-cn:s3:::claims-0123abcd-web-code", "arn:aws-cn:s3:::claims-0123abcd-web-code/*"}, doc.Statement[1].Resource)
}

// TestAnEmptyVersionIDIsNeverDeployed: a bundle without an object version fails the deploy
// before any function is made, and what was made is deleted.
func TestAnEmptyVersionIDIsNeverDeployed(t *testing.T) {
	empty := ""
	f := &fakeCloud{versionID: &empty}
	wrote := false
	err := deploy(t.Context(), f, testPlan(), testBundles, func(webendpoints.Deployment) error { wrote = true; return nil }, io.Discard)
	assert.ErrorContains(t, err, "no object version")
	assert.False(t, wrote, "an endpoints file was written")
	for _, c := range f.calls {
		assert.False(t, strings.HasPrefix(c, "CreateWebFunction"), "%s was called with an unpinned revision (calls %v)", c, f.calls)
	}
	assert.Equal(t, "DeleteRole claims-0123abcd-web-exec", f.calls[len(f.calls)-1])
}

// leftovers are an account's Web resources: run 0123abcd is the deployment in the endpoints
// file, deadbeef an earlier run's, and the rest belong to no run of ours.
func leftovers() *fakeCloud {
	return &fakeCloud{
		functions: []found{
			{Name: "claims-0123abcd-node", RunID: "0123abcd"}, {Name: "claims-deadbeef-go", RunID: "deadbeef"},
			{Name: "claims-someones-own"}, // no claims:run tag
		},
		logGroups: []string{
			"/aws/lambda/web/claims-0123abcd-node", "/aws/lambda/web/claims-0123abcd-node.local",
			"/aws/lambda/web/claims-deadbeef-go", "/aws/lambda/web/claims-deadbeef-go.local",
			"/aws/lambda/web/claims-app", // not of a run's name
		},
		buckets: []found{
			{Name: "claims-0123abcd-web-code", RunID: "0123abcd"}, {Name: "claims-deadbeef-web-code", RunID: "deadbeef"},
			{Name: "claims-cafef00d-web-code"}, // untagged: a kill between CreateBucket and its tagging
			{Name: "claims-assets"},            // untagged, not of the deploy's pattern
		},
		roles: []found{{Name: "claims-0123abcd-web-exec", RunID: "0123abcd"}, {Name: "claims-deadbeef-web-exec", RunID: "deadbeef"}},
	}
}

func inUseDeployment() webendpoints.Deployment {
	p := testPlan()
	d := webendpoints.Deployment{RunID: p.RunID, Bucket: p.Bucket, Role: p.Role}
	for _, f := range p.Functions {
		d.Endpoints = append(d.Endpoints, webendpoints.Endpoint{Name: f.Endpoint, Function: f.Name, URL: "https://x.lambda-web.us-east-1.on.aws"})
	}
	return d
}

// TestCleanDeletesEarlierRunsAndNeverTheDeploymentInUse lists Web Functions, log groups, buckets
// and roles, deletes those of earlier runs (functions first, role last), and keeps every resource
// of the deployment the endpoints file names and everything that is no run's.
func TestCleanDeletesEarlierRunsAndNeverTheDeploymentInUse(t *testing.T) {
	f := leftovers()
	var out strings.Builder
	require.NoError(t, clean(t.Context(), f, newInUse(inUseDeployment()), false, &out))
	var deleted []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, "Delete") {
			deleted = append(deleted, c)
		}
	}
	assert.Equal(t, []string{
		"DeleteWebFunction claims-deadbeef-go",
		"DeleteLogGroup /aws/lambda/web/claims-deadbeef-go", "DeleteLogGroup /aws/lambda/web/claims-deadbeef-go.local",
		"DeleteBucket claims-deadbeef-web-code", "DeleteBucket claims-cafef00d-web-code",
		"DeleteRole claims-deadbeef-web-exec",
	}, deleted, "deletions = %v (output:\n%s)", deleted, out.String())
	for _, kept := range []string{"claims-0123abcd-node", "claims-0123abcd-web-code", "claims-0123abcd-web-exec", "/aws/lambda/web/claims-0123abcd-node.local"} {
		assert.Contains(t, out.String(), "kept ", "output:\n%s", out.String())
		assert.Contains(t, out.String(), kept+": run 0123abcd is the deployment in the endpoints file", "output:\n%s", out.String())
	}

	// Without an endpoints file, run 0123abcd is a leftover too.
	f = leftovers()
	require.NoError(t, clean(t.Context(), f, newInUse(webendpoints.Deployment{}), false, io.Discard))
	assert.Contains(t, f.calls, "DeleteWebFunction claims-0123abcd-node")
	assert.Contains(t, f.calls, "DeleteRole claims-0123abcd-web-exec")
	assert.NotContains(t, f.calls, "DeleteWebFunction claims-someones-own")
	assert.NotContains(t, f.calls, "DeleteBucket claims-assets")
	assert.NotContains(t, f.calls, "DeleteLogGroup /aws/lambda/web/claims-app")
}

func TestCleanWithNListsAndDeletesNothing(t *testing.T) {
	f := leftovers()
	var out strings.Builder
	require.NoError(t, clean(t.Context(), f, newInUse(inUseDeployment()), true, &out))
	for _, c := range f.calls {
		assert.False(t, strings.HasPrefix(c, "Delete"), "clean -n called %s", c)
	}
	for _, want := range []string{"web-function  claims-deadbeef-go", "log-group     /aws/lambda/web/claims-deadbeef-go.local", "bucket        claims-cafef00d-web-code", "role          claims-deadbeef-web-exec", "-n: nothing was deleted"} {
		assert.Contains(t, out.String(), want, "clean -n printed:\n%s", out.String())
	}
	assert.NotContains(t, out.String(), "role          claims-0123abcd-web-exec")
}

// TestCleanGoesOnPastAFailedListing: a listing that fails is reported and returned; the other
// kinds are still found and deleted.
func TestCleanGoesOnPastAFailedListing(t *testing.T) {
	f := leftovers()
	f.failAt = "ListBuckets"
	err := clean(t.Context(), f, newInUse(inUseDeployment()), false, io.Discard)
	assert.ErrorContains(t, err, "listing S3 buckets")
	assert.Contains(t, f.calls, "DeleteRole claims-deadbeef-web-exec")
}

// TestTheEstimateListsWebFunctionsBillingDimensions: each dimension Web Functions bill by has a
// line with its rate and the date read, or "rate not published" and the bound used.
func TestTheEstimateListsWebFunctionsBillingDimensions(t *testing.T) {
	e := estimate(testPlan())
	text := strings.Join(e.Lines, "\n")
	for _, dim := range []string{"active CPU and memory:", "requests:", "data transfer:", "platform log records, per request:"} {
		var line string
		for _, l := range e.Lines {
			if strings.HasPrefix(l, dim) {
				line = l
			}
		}
		require.NotEmpty(t, line, "no estimate line for %q in:\n%s", dim, text)
		assert.Contains(t, line, "bound used:", "line %q names no bound", line)
		assert.Regexp(t, `read 20\d\d-\d\d-\d\d`, line, "line %q has no date read", line)
		assert.Regexp(t, `\$[0-9.]+$`, line, "line %q ends with no price", line)
	}
	for _, dim := range []string{"active CPU and memory:", "requests:", "data transfer:"} {
		assert.Regexp(t, regexp.MustCompile(regexp.QuoteMeta(dim)+` rate not published \(looked for 20\d\d-\d\d-\d\d\)`), text)
	}
	assert.Contains(t, text, "2 vCPU / 2 GB each")
	assert.Contains(t, text, fmt.Sprintf("%d beyond maxEnvironments", extraEnvironments))
	assert.Contains(t, text, "the cap is compared with the sum of these bounds")
	assert.Contains(t, e.PriceTable, "Web Functions rates not published")

	// More than maxEnvironments for a while costs more than maxEnvironments alone would.
	gbs, _, _ := prices.Lambda("us-east-1", prices.ARM64)
	assert.Greater(t, e.GBSeconds, float64(len(testPlan().Functions)*webendpoints.MaxEnvironments)*idleTail.Seconds()*environmentVCPUs*eventMBPerVCPU/1024,
		"GB-s = %.1f; want more than the idle tail of maxEnvironments alone", e.GBSeconds)
	assert.Greater(t, e.USD, e.GBSeconds*gbs, "the estimate must add requests, transfer, logs and S3 to CPU and memory")
}
