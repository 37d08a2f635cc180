package main

import (
	"crypto/tls"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/dynalite"
	"github.com/serverless-claims/claims/harness/iamstub"
	"github.com/serverless-claims/claims/harness/lambdaapi"
	"github.com/serverless-claims/claims/harness/lambdazip"
	"github.com/serverless-claims/claims/harness/live"
	"github.com/serverless-claims/claims/harness/sigv4check"
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
		"AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_IAM", "AWS_ENDPOINT_URL_DYNAMODB",
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

func TestListsThenDeletesTheLeftovers(t *testing.T) {
	isolateAWS(t)
	ctx := t.Context()
	keys := sigv4check.Keys{testKeyID: testSecret}
	db := dynalite.Start(t, dynalite.Options{})
	iamS := iamstub.Start(t, iamstub.Options{Keys: keys})
	lam := lambdaapi.Start(t, lambdaapi.Options{Keys: keys, RoleAssumable: iamS.Assumable})
	for k, v := range map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": testKeyID, "AWS_SECRET_ACCESS_KEY": testSecret,
		"AWS_ENDPOINT_URL_IAM": iamS.URL(), "AWS_ENDPOINT_URL_DYNAMODB": db.Endpoint,
		"CLAIMS_LAMBDA_ENDPOINT": lam.URL(), "CLAIMS_LAMBDA_ARCH": machineArch(),
	} {
		t.Setenv(k, v)
	}
	trust := config.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: db.CA.Pool()}}})

	// A run that made its role, table and function and was never closed.
	c, err := live.ConfigFromEnv()
	require.NoError(t, err)
	awsCfg, err := live.LoadAWS(ctx, c, trust)
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
	names := []string{"function claims-" + s.RunID + "-left", "role claims-" + s.RunID + "-exec", "table claims-" + s.RunID}

	var out, errs strings.Builder
	require.Equal(t, 0, run(ctx, []string{"-n"}, &out, &errs, trust), "liveclean -n: %s", errs.String())
	listed := strings.Join(strings.Fields(out.String()), " ")
	for _, n := range names {
		assert.Contains(t, listed, n+" "+s.RunID+" "+s.Created.Format("2006-01-02T15:04:05Z"), "liveclean -n listed:\n%s", out.String())
	}
	assert.Len(t, lam.Functions(), 1, "-n deleted a function")
	assert.Len(t, iamS.Roles(), 1, "-n deleted a role")

	out.Reset()
	require.Equal(t, 0, run(ctx, nil, &out, &errs, trust), "liveclean: %s", errs.String())
	for _, n := range names {
		assert.Contains(t, out.String(), "deleted "+n+" (run "+s.RunID+")", "liveclean printed:\n%s", out.String())
	}
	assert.Empty(t, lam.Functions(), "functions left")
	assert.Empty(t, iamS.Roles(), "roles left")
	assert.NotContains(t, out.String()+errs.String(), testAccount, "liveclean printed the account")
	assert.NotContains(t, out.String()+errs.String(), testSecret, "liveclean printed the secret")

	out.Reset()
	require.Equal(t, 0, run(ctx, nil, &out, &errs, trust))
	assert.Contains(t, out.String(), "no leftovers")
}
