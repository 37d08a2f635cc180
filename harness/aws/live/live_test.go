package live

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/prices"
)

// The stand-ins' account, region and static keys, as the live mode's plan fixes them.
const (
	testAccount = "123456789012"
	testRegion  = "us-east-1"
	testKeyID   = "AKIDCLAIMSSTANDIN"
	testSecret  = "claims-standin-secret"
)

// awsEnv is every variable of the SDK's default chain the tests set or clear, so that nothing of
// the machine's own AWS setup reaches a test (and no test reaches beyond loopback).
var awsEnv = []string{
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ENDPOINT_URL",
	"AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_IAM", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS", "AWS_CA_BUNDLE",
	EnvArch, EnvLambdaEndpoint, EnvMaxUSD, EnvRoleARN, EnvTable, EnvLedger,
}

// isolateAWS clears the default chain's sources for the test: no variables, no shared files, no
// instance metadata.
func isolateAWS(t *testing.T) {
	t.Helper()
	for _, k := range awsEnv {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// standinAWS loads the SDK's configuration through LoadAWS, as a live run does, with the stand-ins'
// region, static keys and per-service endpoints (AWS_ENDPOINT_URL_<SERVICE>) in the environment,
// trusting roots for TLS (nil: the system's).
func standinAWS(t *testing.T, c Config, endpoints map[string]string, roots *x509.CertPool) aws.Config {
	t.Helper()
	isolateAWS(t)
	t.Setenv("AWS_REGION", testRegion)
	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	for service, url := range endpoints {
		t.Setenv("AWS_ENDPOINT_URL_"+service, url)
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	cfg, err := LoadAWS(t.Context(), c, config.WithHTTPClient(client))
	require.NoError(t, err, "loading the stand-ins' AWS configuration")
	return cfg
}

// offline is an aws.Config that reaches nothing: for what must refuse before any call.
func offline() aws.Config {
	return aws.Config{
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testKeyID, testSecret, ""),
		BaseEndpoint: aws.String("http://127.0.0.1:1"),
	}
}

func defaultConfig() Config { return Config{Arch: ArchARM64, MaxUSD: DefaultMaxUSD} }

func TestConfigFromEnvDefaults(t *testing.T) {
	isolateAWS(t)
	c, err := ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, Config{Arch: ArchARM64, MaxUSD: DefaultMaxUSD}, c, "config with nothing set")

	t.Setenv(EnvArch, "x86_64")
	t.Setenv(EnvLambdaEndpoint, "http://127.0.0.1:9001")
	t.Setenv(EnvMaxUSD, "1.5")
	t.Setenv(EnvRoleARN, "arn:aws:iam::"+testAccount+":role/service-role/mine")
	t.Setenv(EnvTable, "my.table-1")
	c, err = ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, Config{Arch: ArchX8664, LambdaEndpoint: "http://127.0.0.1:9001", MaxUSD: 1.5,
		RoleARN: "arn:aws:iam::" + testAccount + ":role/service-role/mine", Table: "my.table-1"}, c, "config with everything set")
}

func TestConfigFromEnvRefusesEachBadValueByName(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{EnvArch, "amd64"},
		{EnvArch, "ARM64"},
		{EnvLambdaEndpoint, "127.0.0.1:9001"},
		{EnvLambdaEndpoint, "ftp://127.0.0.1"},
		{EnvMaxUSD, "ten"},
		{EnvMaxUSD, "0"},
		{EnvMaxUSD, "-1"},
		{EnvMaxUSD, "NaN"},
		{EnvMaxUSD, "+Inf"},
		{EnvRoleARN, "claims-exec"},
		{EnvRoleARN, "arn:aws:lambda:us-east-1:" + testAccount + ":function:x"},
		{EnvTable, "ab"},
		{EnvTable, "bad table"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			isolateAWS(t)
			t.Setenv(tc.name, tc.value)
			_, err := ConfigFromEnv()
			require.Error(t, err, "%s = %q was accepted", tc.name, tc.value)
			assert.Contains(t, err.Error(), tc.name, "error = %v; want it to name %s", err, tc.name)
			assert.NotContains(t, err.Error(), testAccount, "error = %v; want no account id", err)
		})
	}
}

func TestLoadAWSSaysWhatIsMissing(t *testing.T) {
	ctx := t.Context()
	isolateAWS(t)
	_, err := LoadAWS(ctx, defaultConfig())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no AWS region", "error = %v; want it to say the region is missing", err)

	t.Setenv("AWS_REGION", testRegion)
	_, err = LoadAWS(ctx, defaultConfig())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no AWS credentials", "error = %v; want it to say the credentials are missing", err)

	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	cfg, err := LoadAWS(ctx, defaultConfig())
	require.NoError(t, err)
	assert.Equal(t, testRegion, cfg.Region)

	_, err = LoadAWS(ctx, Config{Arch: "sparc", MaxUSD: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvArch, "a bad Config is refused before loading")
}

func TestEstimateHandChecked(t *testing.T) {
	e := EstimateCost("us-east-1", ArchARM64, []PlannedFunction{
		{Name: "big", MemoryMB: 1024, Invocations: 100, MaxSecondsEach: 2},
		{Name: "small", MemoryMB: 128, Invocations: 1000, MaxSecondsEach: 0.5},
	}, 1000)
	// 1 GB × 100 × 2 s + 0.125 GB × 1000 × 0.5 s = 262.5 GB-s.
	assert.Equal(t, 1100, e.Requests, "requests")
	assert.InDelta(t, 262.5, e.GBSeconds, 1e-9, "GB-seconds")
	// 262.5 × $0.0000133334 + 1100 × $0.20/M + 1000 × $0.125/M + 1100 KiB / GiB × $0.50.
	want := 262.5*0.0000133334 + 1100*0.20/1e6 + 1000*0.125/1e6 + 1100.0/(1<<20)*0.50
	assert.InDelta(t, 0.0043695385, want, 1e-9, "the hand-checked sum")
	assert.InDelta(t, want, e.USD, 1e-12, "USD = %v; want %v", e.USD, want)
	assert.Contains(t, e.PriceTable, prices.Read)
	assert.Contains(t, e.PriceTable, "us-east-1")
	assert.Contains(t, e.PriceTable, ArchARM64)
	assert.Len(t, e.Lines, 5, "a line per function, Lambda, DynamoDB, Logs: %q", e.Lines)

	x86 := EstimateCost("us-east-1", ArchX8664, []PlannedFunction{{Name: "big", MemoryMB: 1024, Invocations: 100, MaxSecondsEach: 2}}, 0)
	assert.InDelta(t, 200*0.0000166667+100*0.20/1e6+100.0/(1<<20)*0.50, x86.USD, 1e-12, "x86_64 at its own price")
}

func TestEstimateOfAnUnlistedRegionIsAtTheHighestAndSaysSo(t *testing.T) {
	fns := []PlannedFunction{{Name: "f", MemoryMB: 1024, Invocations: 10, MaxSecondsEach: 1}}
	listed := EstimateCost("us-east-1", ArchARM64, fns, 10)
	unlisted := EstimateCost("xx-nowhere-9", ArchARM64, fns, 10)
	assert.Greater(t, unlisted.USD, listed.USD, "unlisted region's USD = %v; want above us-east-1's %v", unlisted.USD, listed.USD)
	// ap-east-1's arm64 price is the table's highest.
	assert.InDelta(t, 10*0.0000183+10*0.20/1e6+10*0.125/1e6+10.0/(1<<20)*0.76, unlisted.USD, 1e-12)
	assert.Contains(t, unlisted.PriceTable, "highest")
	assert.Contains(t, strings.Join(unlisted.Lines, "\n"), "xx-nowhere-9 is not in the price table")
	assert.NotContains(t, listed.PriceTable, "highest")
}

func TestAdmitRefusesAboveTheCapAndNothingIsMadeBeforeAdmit(t *testing.T) {
	s, err := Open(t.Context(), Config{Arch: ArchARM64, MaxUSD: 0.01}, offline())
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{8}$`, s.RunID)

	// Nothing is made before Admit: each maker refuses before any call (the endpoint is closed,
	// so a call would fail differently).
	_, err = s.Table(t.Context(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not admitted")
	_, err = s.Role(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not admitted")
	_, err = s.CreateFunction(t.Context(), FunctionSpec{Name: "f", MemoryMB: 128, TimeoutSeconds: 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not admitted")

	var out strings.Builder
	over := EstimateCost("us-east-1", ArchARM64, []PlannedFunction{{Name: "f", MemoryMB: 10240, Invocations: 100, MaxSecondsEach: 10}}, 0)
	err = s.Admit(over, &out)
	require.Error(t, err, "an estimate of $%.4f was admitted under a cap of $0.01", over.USD)
	assert.Contains(t, err.Error(), EnvMaxUSD)
	assert.Contains(t, err.Error(), "$0.01")
	assert.Contains(t, err.Error(), fmt.Sprintf("$%.4f", over.USD))
	assert.Contains(t, out.String(), "function f:", "Admit prints the plan: %s", out.String())
	_, err = s.Table(t.Context(), nil)
	assert.ErrorContains(t, err, "not admitted", "a refused estimate admits nothing")

	under := EstimateCost("us-east-1", ArchARM64, []PlannedFunction{{Name: "f", MemoryMB: 128, Invocations: 2, MaxSecondsEach: 1}}, 0)
	require.NoError(t, s.Admit(under, &out))
	assert.Contains(t, out.String(), "IAM role claims-"+s.RunID+"-exec")
	assert.Contains(t, out.String(), "DynamoDB table claims-"+s.RunID)
	require.NoError(t, s.Close(t.Context()), "closing a session that made nothing")
}

func TestInvokeIsRefusedOnceTheTallyPassedTheCap(t *testing.T) {
	s, err := Open(t.Context(), Config{Arch: ArchARM64, MaxUSD: 0.01}, offline())
	require.NoError(t, err)
	f := &Function{Name: "claims-" + s.RunID + "-f", MemoryMB: 128, arch: ArchARM64, timeoutSeconds: 3, s: s}
	// 10 s at 10 GB: above $0.001 each; eight of them pass the cap.
	for range 8 {
		s.spend(invocationUSD(s.Region, ArchARM64, 10000, 10240))
	}
	assert.Greater(t, s.Spent(), 0.01)
	_, err = f.Invoke(t.Context(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "above the cap")
	assert.Contains(t, err.Error(), EnvMaxUSD)
	assert.InDelta(t, 10*10*0.0000133334+0.2e-6, invocationUSD("us-east-1", ArchARM64, 10000, 10240), 1e-12, "one invocation's bill")
}

func TestRedactARN(t *testing.T) {
	for in, want := range map[string]string{
		"arn:aws:lambda:us-east-1:123456789012:function:x":                           "arn:aws:lambda:us-east-1:<account>:function:x",
		"arn:aws:iam::123456789012:role/claims-1-exec":                               "arn:aws:iam::<account>:role/claims-1-exec",
		"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/t":                        "arn:aws-cn:dynamodb:cn-north-1:<account>:table/t",
		"role arn:aws:iam::123456789012:role/a and arn:aws:iam::210987654321:role/b": "role arn:aws:iam::<account>:role/a and arn:aws:iam::<account>:role/b",
		"arn:aws:lambda:us-east-1:<account>:function:x":                              "arn:aws:lambda:us-east-1:<account>:function:x",
		"request 123456789012 is not an ARN":                                         "request 123456789012 is not an ARN",
	} {
		assert.Equal(t, want, RedactARN(in), "RedactARN(%q)", in)
	}
}

// tail is a Lambda log tail as Invoke's answer carries it, base64.
func tail(lines ...string) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Join(lines, "\n") + "\n"))
}

func TestReportIsReadFromTheTailOrNamedAsMissing(t *testing.T) {
	f := &Function{Name: "claims-0000abcd-f"}
	const id = "8f5e3c1a-0000-4000-8000-000000000001"
	report := "REPORT RequestId: " + id + "\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 20 MB\tInit Duration: 50.00 ms\t"
	r, err := f.report(id, tail("START RequestId: "+id+" Version: $LATEST", "END RequestId: "+id, report))
	require.NoError(t, err)
	assert.Equal(t, 13.0, *r.BilledDuration)
	assert.Equal(t, 128, *r.MemorySizeMB)
	assert.True(t, r.Cold(), "a REPORT with Init Duration is a cold start")

	for name, tc := range map[string]struct{ tail, want string }{
		"missing":            {tail("START RequestId: "+id+" Version: $LATEST", "END RequestId: "+id), "no REPORT"},
		"cut in a field":     {tail("END RequestId: "+id, report[:strings.Index(report, "Billed")+6]), "unreadable REPORT"},
		"cut between fields": {tail("END RequestId: "+id, report[:strings.Index(report, "\tBilled")]), "lacks Billed Duration, Memory Size"},
		"other":              {tail(strings.ReplaceAll(report, id, "other-id")), "no REPORT"},
		"empty":              {"", "no log tail"},
		"garbled":            {"%%%", "not base64"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := f.report(id, tc.tail)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestErrorsNameNoAccountAndKeepTheirType(t *testing.T) {
	cause := &lambdatypes.ResourceNotFoundException{Message: aws.String("Function not found: arn:aws:lambda:us-east-1:" + testAccount + ":function:f")}
	err := redact(fmt.Errorf("live: Invoke f: %w", cause))
	assert.Equal(t, "live: Invoke f: ResourceNotFoundException: Function not found: arn:aws:lambda:us-east-1:<account>:function:f", err.Error())
	var nf *lambdatypes.ResourceNotFoundException
	assert.ErrorAs(t, err, &nf, "the SDK's typed error beneath a redacted one")
	assert.Equal(t, err, redact(err), "redacting twice wraps twice")
	assert.NoError(t, redact(nil))
}
