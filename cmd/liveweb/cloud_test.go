package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/sys/loopback"
	"github.com/serverless-claims/claims/harness/workload/target"
)

// cliCloud is an awsCloud whose CLI is the fake aws in dir, with short bounds.
func cliCloud(dir string) *awsCloud {
	return &awsCloud{cli: awsCLI{bin: filepath.Join(dir, "aws"), region: "us-east-1"}, region: "us-east-1",
		roleWait: 3 * time.Second, retryEvery: 10 * time.Millisecond}
}

// countCalls counts the fake aws's calls that begin with prefix.
func countCalls(t *testing.T, log, prefix string) int {
	t.Helper()
	n := 0
	for _, c := range calls(t, log) {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func testSpec() functionSpec {
	p := testPlan()
	return functionSpec{webFunction: p.Functions[0], RoleARN: "arn:aws:iam::123456789012:role/" + p.Role, Bucket: p.Bucket, Key: "node-probe.zip", VersionID: "v1", Tags: p.tags()}
}

// TestTheCreateRetriesOnlyARoleNotYetAssumable: the documented "cannot be assumed" is retried
// within the role wait; a PassRole AccessDenied, or any other error that mentions a role, fails
// at the first call, and the PassRole one names the permission.
func TestTheCreateRetriesOnlyARoleNotYetAssumable(t *testing.T) {
	const op = "An error occurred (%s) when calling the CreateWebFunction operation: %s"
	notYet := fmt.Sprintf(op, "ValidationException", "The role defined for the function cannot be assumed by Lambda.")
	cases := []struct {
		name     string
		failures []string
		calls    int
		errHas   []string // nil: success
	}{
		{"not assumable yet, twice", []string{notYet, notYet}, 3, nil},
		{"PassRole denied", []string{fmt.Sprintf(op, "AccessDeniedException",
			"User: arn:aws:iam::123456789012:user/dev is not authorized to perform: iam:PassRole on resource: arn:aws:iam::123456789012:role/claims-0123abcd-web-exec")},
			1, []string{"iam:PassRole", "iam:PassedToService"}},
		{"another error naming the role", []string{fmt.Sprintf(op, "ValidationException",
			"1 validation error detected: Value at 'revisionConfig.serviceConfig.executionRoleArn' failed to satisfy constraint")},
			1, []string{"executionRoleArn"}},
		{"a bare 500", []string{"An error occurred (InternalServerException) when calling the CreateWebFunction operation (reached max retries: 2): "},
			1, []string{"s3:GetObject", "s3:GetObjectVersion", "caller"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, log := fakeAWS(t, fakeState{CreateFailures: tc.failures})
			start := time.Now()
			err := cliCloud(dir).CreateWebFunction(t.Context(), testSpec())
			got := countCalls(t, log, "lambda-web create-web-function")
			assert.Equal(t, tc.calls, got, "create-web-function calls = %d; want %d (in %s)", got, tc.calls, time.Since(start))
			if tc.errHas == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tc.errHas {
				assert.Contains(t, err.Error(), s)
			}
			assert.NotContains(t, err.Error(), "123456789012", "the error names the account")
		})
	}
}

// TestWebFunctionsAndLogGroupsAreListedAndDeletedThroughTheCLI: list-web-functions and
// list-tags find the functions with their run, describe-log-groups the log groups; deletions of
// something already gone are no failure.
func TestWebFunctionsAndLogGroupsAreListedAndDeletedThroughTheCLI(t *testing.T) {
	dir, log := fakeAWS(t, fakeState{
		Functions: []fakeWebFunc{
			{Name: "claims-deadbeef-go", ARN: "arn:aws:lambda:us-east-1:123456789012:web-function/claims-deadbeef-go", Tags: map[string]string{"claims:run": "deadbeef"}},
			{Name: "claims-untagged", ARN: "arn:aws:lambda:us-east-1:123456789012:web-function/claims-untagged"},
			{Name: "other", ARN: "arn:aws:lambda:us-east-1:123456789012:web-function/other", Tags: map[string]string{"claims:run": "x"}},
		},
		LogGroups: []string{"/aws/lambda/web/claims-deadbeef-go", "/aws/lambda/web/claims-deadbeef-go.local", "/aws/lambda/other"},
	})
	c := cliCloud(dir)
	fns, err := c.ListWebFunctions(t.Context(), "claims-")
	require.NoError(t, err)
	assert.Equal(t, []found{{Name: "claims-deadbeef-go", RunID: "deadbeef"}, {Name: "claims-untagged"}}, fns)
	groups, err := c.ListLogGroups(t.Context(), "/aws/lambda/web/claims-")
	require.NoError(t, err)
	assert.Equal(t, []string{"/aws/lambda/web/claims-deadbeef-go", "/aws/lambda/web/claims-deadbeef-go.local"}, groups)

	require.NoError(t, c.DeleteWebFunction(t.Context(), "claims-deadbeef-go"))
	require.NoError(t, c.DeleteWebFunction(t.Context(), "claims-deadbeef-go"), "a function already gone is deleted")
	require.NoError(t, c.DeleteLogGroup(t.Context(), "/aws/lambda/web/claims-deadbeef-go.local"))
	require.NoError(t, c.DeleteLogGroup(t.Context(), "/aws/lambda/web/claims-deadbeef-go.local"), "a log group already gone is deleted")
	st := readFakeState(t, dir)
	assert.Len(t, st.Functions, 2)
	assert.Equal(t, []string{"/aws/lambda/web/claims-deadbeef-go", "/aws/lambda/other"}, st.LogGroups)
	assert.Contains(t, calls(t, log), "lambda-web list-tags --resource arn:aws:lambda:us-east-1:123456789012:web-function/claims-deadbeef-go")
}

// probeEnv is a stand-in environment answering as the probes do (docs/protocol.md): a JSON
// answer with envId and pid. It fails the first failFirst requests with 502, as an environment
// whose server is not up yet.
func probeEnv(t *testing.T, failFirst int) webrouter.Environment {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= int64(failFirst) {
			http.Error(w, "not listening yet", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"envId": "e1", "pid": 7, "receivedAt": 1.0, "finishedAt": 1.5, "path": r.URL.Path})
	}))
	t.Cleanup(srv.Close)
	return webrouter.Environment{Addr: strings.TrimPrefix(srv.URL, "http://"), Logstream: "2026/12/01/e1"}
}

// closedAddr is a loopback address nothing listens on: an environment whose code never started.
func closedAddr(t *testing.T) string {
	t.Helper()
	addrs, err := loopback.FreeAddrs(1)
	require.NoError(t, err)
	return addrs[0]
}

// TestTheRevisionMustAnswerPing runs checkServes against the local endpoint stand-in, which
// checks SigV4 as an IamAuth endpoint does.
func TestTheRevisionMustAnswerPing(t *testing.T) {
	const keyID, secret, region = "AKIDCLAIMSTEST", "claims-test-secret", "us-east-1"
	router := func(t *testing.T, env webrouter.Environment) *webrouter.Router {
		t.Helper()
		r, err := webrouter.Start(webrouter.Config{Environments: []webrouter.Environment{env}, Policy: webrouter.LeastBusy,
			Keys: sigv4check.Keys{keyID: secret}, Region: region})
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		return r
	}
	opts := func(r *webrouter.Router, sec string) target.WebOptions {
		return target.WebOptions{Credentials: credentials.NewStaticCredentialsProvider(keyID, sec, ""), Region: region, RootCAs: r.RootCAs()}
	}
	endpoint := func(r *webrouter.Router) webendpoints.Endpoint {
		return webendpoints.Endpoint{Name: webendpoints.Go, Function: "claims-0123abcd-go", URL: r.URL(), Auth: webendpoints.AuthIAM, Region: region}
	}

	t.Run("serves after a slow start", func(t *testing.T) {
		r := router(t, probeEnv(t, 2))
		assert.NoError(t, checkServes(t.Context(), endpoint(r), opts(r, secret), 5*time.Second, 10*time.Millisecond))
	})
	t.Run("never starts", func(t *testing.T) {
		r := router(t, webrouter.Environment{Addr: closedAddr(t), Logstream: "2026/12/01/dead"})
		start := time.Now()
		err := checkServes(t.Context(), endpoint(r), opts(r, secret), 300*time.Millisecond, 20*time.Millisecond)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "did not answer /ping")
		assert.Contains(t, err.Error(), "status 502")
		assert.Less(t, time.Since(start), 5*time.Second, "the wait is bounded")
	})
	t.Run("signed as the claims sign", func(t *testing.T) {
		r := router(t, probeEnv(t, 0))
		err := checkServes(t.Context(), endpoint(r), opts(r, "not-the-secret"), 100*time.Millisecond, 20*time.Millisecond)
		require.Error(t, err, "a wrongly signed /ping was taken as serving")
		assert.Contains(t, err.Error(), "credentials")
	})
}

// s3StandIn is a loopback S3 of one bucket for the operations the deploy makes of it. Like S3,
// it answers GetBucketVersioning with no Status until versioning is set, and then (its model of
// the documented propagation delay) for propagation more reads; a PutObject answers a version
// id only once versioning is in effect (the first noVersionPuts answer none).
type s3StandIn struct {
	mu            sync.Mutex
	propagation   int
	noVersionPuts int
	versioningSet bool
	ops           []string
}

func (s *s3StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	op := r.Method + " " + r.URL.Path
	switch {
	case q.Has("versioning") && r.Method == http.MethodPut:
		s.versioningSet = true
		op = "PutBucketVersioning"
	case q.Has("versioning"):
		op = "GetBucketVersioning"
		status := ""
		if s.versioningSet && s.propagation <= 0 {
			status = "<Status>Enabled</Status>"
		}
		s.propagation--
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">%s</VersioningConfiguration>`, status)
		op += " " + cmpOr(status, "(none)")
	case q.Has("tagging"):
		op = "PutBucketTagging"
	case q.Has("policy"):
		op = "PutBucketPolicy"
	case r.Method == http.MethodPut && strings.Count(strings.Trim(r.URL.Path, "/"), "/") == 0:
		op = "CreateBucket"
	case r.Method == http.MethodPut:
		op = "PutObject"
		if s.noVersionPuts > 0 {
			s.noVersionPuts--
		} else {
			w.Header().Set("x-amz-version-id", "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")
		}
		w.Header().Set("ETag", `"d41d8cd98f00b204e9800998ecf8427e"`)
	}
	s.ops = append(s.ops, op)
}

// s3Cloud is an awsCloud whose S3 is a stand-in, with short bounds.
func s3Cloud(t *testing.T, s *s3StandIn) *awsCloud {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		BaseEndpoint: aws.String(srv.URL), UsePathStyle: true, Region: "us-east-1",
		Credentials:                credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
	})
	return &awsCloud{s3: client, region: "us-east-1", versionWait: 2 * time.Second, versionEvery: 10 * time.Millisecond}
}

func bundleFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.zip")
	require.NoError(t, os.WriteFile(path, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o600))
	return path
}

// TestTheBucketIsReadyOnlyOnceVersioningReadsEnabled: CreateBucket returns only after
// GetBucketVersioning answers Enabled, and fails, bounded, when it never does.
func TestTheBucketIsReadyOnlyOnceVersioningReadsEnabled(t *testing.T) {
	s := &s3StandIn{propagation: 3}
	c := s3Cloud(t, s)
	require.NoError(t, c.CreateBucket(t.Context(), "claims-0123abcd-web-code", "aws", "123456789012", map[string]string{"claims:run": "0123abcd"}))
	assert.Equal(t, []string{"CreateBucket", "PutBucketTagging", "PutBucketVersioning",
		"GetBucketVersioning (none)", "GetBucketVersioning (none)", "GetBucketVersioning (none)", "GetBucketVersioning <Status>Enabled</Status>",
		"PutBucketPolicy"}, s.ops)

	never := &s3StandIn{propagation: 1 << 30}
	c = s3Cloud(t, never)
	c.versionWait = 200 * time.Millisecond
	err := c.CreateBucket(t.Context(), "claims-0123abcd-web-code", "aws", "123456789012", map[string]string{"claims:run": "0123abcd"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not Enabled")
}

// TestABundleIsPinnedToAVersionOrNotAtAll: a PutObject without a version id is retried until
// one comes, and an error when none comes within the bound; never "".
func TestABundleIsPinnedToAVersionOrNotAtAll(t *testing.T) {
	s := &s3StandIn{noVersionPuts: 2}
	v, err := s3Cloud(t, s).PutBundle(t.Context(), "claims-0123abcd-web-code", "go-probe.zip", bundleFile(t))
	require.NoError(t, err)
	assert.Equal(t, "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY", v)
	assert.Equal(t, []string{"PutObject", "PutObject", "PutObject"}, s.ops)

	never := &s3StandIn{noVersionPuts: 1 << 30}
	c := s3Cloud(t, never)
	c.versionWait = 100 * time.Millisecond
	v, err = c.PutBundle(t.Context(), "claims-0123abcd-web-code", "go-probe.zip", bundleFile(t))
	assert.Empty(t, v)
	require.Error(t, err, "an upload without a version id was taken as deployed")
	assert.Contains(t, err.Error(), "no object version")
}
