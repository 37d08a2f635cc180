package main

import (
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/dynalite"
	"github.com/serverless-claims/claims/harness/standin/iamstub"
	"github.com/serverless-claims/claims/harness/standin/lambdaapi"
	"github.com/serverless-claims/claims/harness/standin/logsstub"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// The stand-ins' account and static keys, as the live mode's plan fixes them.
const (
	testAccount = "123456789012"
	testKeyID   = "AKIDCLAIMSSTANDIN"
	testSecret  = "claims-standin-secret"
)

// isolateAWS clears the SDK's default chain's sources: no variables, no shared files, no
// instance metadata, so that nothing reaches beyond loopback.
func isolateAWS(t *testing.T) {
	t.Helper()
	for _, k := range []string{
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CA_BUNDLE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ENDPOINT_URL",
		"AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_IAM", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS",
		"CLAIMS_LAMBDA_ARCH", "CLAIMS_LAMBDA_ENDPOINT", "CLAIMS_LIVE_MAX_USD", "CLAIMS_LAMBDA_ROLE_ARN", "CLAIMS_DYNAMODB_TABLE",
	} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestRefusesWhatIsMissingOrWrongBeforeAnyCall(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"no region":      {nil, "no AWS region"},
		"no credentials": {map[string]string{"AWS_REGION": "us-east-1"}, "no AWS credentials"},
		"bad arch":       {map[string]string{"CLAIMS_LAMBDA_ARCH": "i386"}, "CLAIMS_LAMBDA_ARCH"},
		"bad role": {map[string]string{"CLAIMS_LAMBDA_ROLE_ARN": "arn:aws:iam::123456789012:user/x"},
			"arn:aws:iam::<account>:user/x"},
	} {
		t.Run(name, func(t *testing.T) {
			isolateAWS(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errs strings.Builder
			code := run(t.Context(), nil, &out, &errs)
			assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, errs.String())
			assert.Contains(t, errs.String(), tc.want, "stderr = %q; want it to say %q", errs.String(), tc.want)
			assert.NotContains(t, errs.String(), "123456789012", "stderr names the account")
			assert.Empty(t, out.String())
		})
	}
}

// machineArch is this machine's architecture as Lambda names it, the only one the Lambda stand-in
// runs.
func machineArch() string {
	if runtime.GOARCH == "arm64" {
		return live.ArchARM64
	}
	return live.ArchX8664
}

// cloud is the stand-ins liveclean talks to, with the variables that point the SDK at them set.
type cloud struct {
	lam   *lambdaapi.Server
	iam   *iamstub.Server
	logs  *logsstub.Server
	trust func(*config.LoadOptions) error
}

func startCloud(t *testing.T) cloud {
	t.Helper()
	isolateAWS(t)
	keys := sigv4check.Keys{testKeyID: testSecret}
	db := dynalite.Start(t, dynalite.Options{})
	iamS := iamstub.Start(t, iamstub.Options{Keys: keys})
	lam := lambdaapi.Start(t, lambdaapi.Options{Keys: keys, RoleAssumable: iamS.Assumable})
	logs := logsstub.Start(t, logsstub.Options{Keys: keys, Region: "us-east-1"})
	for k, v := range map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": testKeyID, "AWS_SECRET_ACCESS_KEY": testSecret,
		"AWS_ENDPOINT_URL_IAM": iamS.URL(), "AWS_ENDPOINT_URL_DYNAMODB": db.Endpoint,
		"AWS_ENDPOINT_URL_CLOUDWATCH_LOGS": logs.URL(),
		"CLAIMS_LAMBDA_ENDPOINT":           lam.URL(), "CLAIMS_LAMBDA_ARCH": machineArch(),
	} {
		t.Setenv(k, v)
	}
	trust := config.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: db.CA.Pool()}}})
	return cloud{lam: lam, iam: iamS, logs: logs, trust: trust}
}

// abandon opens a run that makes its role, table and function, and the function's log group
// (as Lambda makes it when the function first logs), and is never closed.
func abandon(t *testing.T, cl cloud) *live.Session {
	t.Helper()
	ctx := t.Context()
	c, err := live.ConfigFromEnv()
	require.NoError(t, err)
	awsCfg, err := live.LoadAWS(ctx, c, cl.trust)
	require.NoError(t, err)
	s, err := live.Open(ctx, c, awsCfg)
	require.NoError(t, err)
	require.NoError(t, s.Admit(live.EstimateCost(s.Region, c.Arch, nil, 0), &strings.Builder{}))
	_, err = s.Table(ctx, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "bench"}})
	require.NoError(t, err)
	arch, err := lambdazip.ParseArch(c.Arch)
	require.NoError(t, err)
	pkg, err := lambdazip.Build("functions/throttle", arch)
	require.NoError(t, err)
	zip, err := pkg.Bytes()
	require.NoError(t, err)
	_, err = s.CreateFunction(ctx, live.FunctionSpec{Name: "left", Zip: zip, MemoryMB: 128, TimeoutSeconds: 3})
	require.NoError(t, err)
	cl.logs.AddLogGroup(live.FunctionLogGroup("claims-" + s.RunID + "-left"))
	return s
}

// noEndpoints is -web-endpoints naming a file that does not exist: no Web deployment in use.
func noEndpoints(t *testing.T) string {
	t.Helper()
	return "-web-endpoints=" + filepath.Join(t.TempDir(), "endpoints.json")
}

func TestListsThenDeletesTheLeftovers(t *testing.T) {
	cl := startCloud(t)
	ctx := t.Context()
	s := abandon(t, cl)
	group := live.FunctionLogGroup("claims-" + s.RunID + "-left")
	names := []string{"function claims-" + s.RunID + "-left", "role claims-" + s.RunID + "-exec", "table claims-" + s.RunID}
	endpoints := noEndpoints(t)

	var out, errs strings.Builder
	require.Equal(t, 0, run(ctx, []string{"-n", endpoints}, &out, &errs, cl.trust), "liveclean -n: %s", errs.String())
	listed := strings.Join(strings.Fields(out.String()), " ")
	for _, n := range names {
		assert.Contains(t, listed, n+" "+s.RunID+" "+s.Created.Format("2006-01-02T15:04:05Z"), "liveclean -n listed:\n%s", out.String())
	}
	assert.Contains(t, listed, "log-group "+group+" "+s.RunID+" ", "liveclean -n listed:\n%s", out.String())
	assert.Len(t, cl.lam.Functions(), 1, "-n deleted a function")
	assert.Len(t, cl.iam.Roles(), 1, "-n deleted a role")
	assert.Equal(t, []string{group}, cl.logs.LogGroups(), "-n deleted a log group")

	out.Reset()
	require.Equal(t, 0, run(ctx, []string{endpoints}, &out, &errs, cl.trust), "liveclean: %s", errs.String())
	for _, n := range append(names, "log-group "+group) {
		assert.Contains(t, out.String(), "deleted "+n+" (run "+s.RunID+")", "liveclean printed:\n%s", out.String())
	}
	assert.Empty(t, cl.lam.Functions(), "functions left")
	assert.Empty(t, cl.iam.Roles(), "roles left")
	assert.Empty(t, cl.logs.LogGroups(), "log groups left")
	assert.NotContains(t, out.String()+errs.String(), testAccount, "liveclean printed the account")
	assert.NotContains(t, out.String()+errs.String(), testSecret, "liveclean printed the secret")

	out.Reset()
	require.Equal(t, 0, run(ctx, []string{endpoints}, &out, &errs, cl.trust))
	assert.Contains(t, out.String(), "no leftovers")
}

func TestSparesTheRunOfTheWebEndpointsFile(t *testing.T) {
	cl := startCloud(t)
	ctx := t.Context()
	inUse := abandon(t, cl)
	dead := abandon(t, cl)
	// The Web deployment of inUse's run, as `make live-web-deploy` writes it.
	path := filepath.Join(t.TempDir(), "endpoints.json")
	require.NoError(t, webendpoints.Write(path, webendpoints.Deployment{
		RunID: inUse.RunID, Region: "us-east-1", CreatedAt: time.Now().UTC(), Role: "claims-" + inUse.RunID + "-web-exec",
		Endpoints: []webendpoints.Endpoint{{Name: webendpoints.Go, URL: "https://abc.lambda-web.us-east-1.on.aws", Auth: webendpoints.AuthIAM}},
	}))

	var out, errs strings.Builder
	require.Equal(t, 0, run(ctx, []string{"-web-endpoints=" + path}, &out, &errs, cl.trust), "liveclean: %s", errs.String())
	assert.Contains(t, out.String(), "sparing run "+inUse.RunID, "liveclean printed:\n%s", out.String())
	assert.NotContains(t, out.String(), "deleted role claims-"+inUse.RunID, "liveclean printed:\n%s", out.String())
	assert.Contains(t, out.String(), "deleted role claims-"+dead.RunID+"-exec", "liveclean printed:\n%s", out.String())
	assert.Equal(t, []string{"claims-" + inUse.RunID + "-exec"}, cl.iam.Roles(), "roles left: the run in use's")
	assert.Equal(t, []string{live.FunctionLogGroup("claims-" + inUse.RunID + "-left")}, cl.logs.LogGroups(), "log groups left: the run in use's")
	assert.Len(t, cl.lam.Functions(), 1, "functions left: the run in use's")

	// A file that cannot be read stops the cleaner before anything is deleted.
	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o644))
	out.Reset()
	errs.Reset()
	assert.Equal(t, 1, run(ctx, []string{"-web-endpoints=" + path}, &out, &errs, cl.trust), "liveclean with an unreadable endpoints file")
	assert.Contains(t, errs.String(), "cannot be spared", "stderr = %q", errs.String())
	assert.Len(t, cl.iam.Roles(), 1, "roles after a refused clean")
}
