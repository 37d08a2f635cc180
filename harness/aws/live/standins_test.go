package live

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/dynalite"
	"github.com/serverless-claims/claims/harness/standin/iamstub"
	"github.com/serverless-claims/claims/harness/standin/lambdaapi"
	"github.com/serverless-claims/claims/harness/standin/logsstub"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// standins are the local services a live run talks to in the tests, each on loopback speaking
// its AWS wire API: Lambda (harness/standin/lambdaapi, running each zip under the emulator), IAM
// (harness/standin/iamstub, which tells Lambda which roles it may assume) and DynamoDB (dynalite behind
// TLS).
type standins struct {
	db     *dynalite.Server
	iam    *iamstub.Server
	lambda *lambdaapi.Server
	logs   *logsstub.Server
	cfg    Config
	aws    aws.Config
}

// testRole is a role of the user's (CLAIMS_LAMBDA_ROLE_ARN), which the Lambda stand-in accepts
// without asking IAM's.
const testRole = "arn:aws:iam::" + testAccount + ":role/claims-test-exec"

// startStandins starts the stand-ins and loads the SDK's configuration for them through LoadAWS,
// as a live run would with AWS_ENDPOINT_URL_<SERVICE> and CLAIMS_LAMBDA_ENDPOINT set. c's Arch
// is this machine's, the only one the Lambda stand-in runs. A role IAM made is assumable by
// Lambda only propagation after its creation, as on AWS.
func startStandins(t *testing.T, c Config, propagation time.Duration) *standins {
	t.Helper()
	keys := sigv4check.Keys{testKeyID: testSecret}
	db := dynalite.Start(t, dynalite.Options{})
	iamS := iamstub.Start(t, iamstub.Options{Keys: keys, PropagationDelay: propagation})
	logs := logsstub.Start(t, logsstub.Options{Keys: keys, Region: testRegion})
	roleAssumable := iamS.Assumable
	if c.RoleARN != "" {
		roleAssumable = nil // the user's role, which IAM's stand-in does not hold
	}
	lam := lambdaapi.Start(t, lambdaapi.Options{
		Keys:          keys,
		RoleAssumable: roleAssumable,
		// What Lambda gives a function (its region, the role's keys), and the way to DynamoDB.
		FunctionEnv: map[string]string{
			"AWS_REGION":                testRegion,
			"AWS_ACCESS_KEY_ID":         testKeyID,
			"AWS_SECRET_ACCESS_KEY":     testSecret,
			"AWS_ENDPOINT_URL_DYNAMODB": db.Endpoint,
			"CLAIMS_CA_FILE":            db.CAFile,
		},
	})
	c.Arch = machineArch()
	c.LambdaEndpoint = lam.URL()
	if c.MaxUSD == 0 {
		c.MaxUSD = DefaultMaxUSD
	}
	return &standins{db: db, iam: iamS, lambda: lam, logs: logs, cfg: c,
		aws: standinAWS(t, c, map[string]string{"DYNAMODB": db.Endpoint, "IAM": iamS.URL(), "CLOUDWATCH_LOGS": logs.URL()}, db.CA.Pool())}
}

// getitemSpec is the cold-start claims' function reading the run's table.
func getitemSpec(t *testing.T, table, name string, memoryMB int) FunctionSpec {
	t.Helper()
	arch, err := lambdazip.ParseArch(machineArch())
	require.NoError(t, err)
	pkg, err := lambdazip.Build("functions/getitem", arch)
	require.NoError(t, err, "building functions/getitem")
	zip, err := pkg.Bytes()
	require.NoError(t, err)
	key, err := json.Marshal(map[string]string{"pk": "bench"})
	require.NoError(t, err)
	return FunctionSpec{Name: name, Zip: zip, MemoryMB: memoryMB, TimeoutSeconds: 3,
		Env: map[string]string{"CLAIMS_VARIANT": "cold", "CLAIMS_TABLE": table, "CLAIMS_KEY": string(key)}}
}

// answer is what getitem answers, as far as the tests read it.
type answer struct {
	Found      bool   `json:"found"`
	Error      string `json:"error"`
	Invocation int64  `json:"invocation"`
	Pid        int    `json:"pid"`
}

func decode(t *testing.T, inv Invocation) answer {
	t.Helper()
	var a answer
	require.NoError(t, json.Unmarshal(inv.Payload, &a), "getitem's answer: %s", inv.Payload)
	return a
}

// tablesNamed lists the tables whose names start with prefix.
func tablesNamed(t *testing.T, s *Session, prefix string) []string {
	t.Helper()
	out, err := s.DynamoDB.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	var names []string
	for _, n := range out.TableNames {
		if len(n) >= len(prefix) && n[:len(prefix)] == prefix {
			names = append(names, n)
		}
	}
	return names
}

// functionTags are the Lambda tags of f.
func functionTags(t *testing.T, s *Session, f *Function) map[string]string {
	t.Helper()
	out, err := s.Lambda.ListTags(t.Context(), &lambda.ListTagsInput{Resource: aws.String(f.ARN)})
	require.NoError(t, err)
	return out.Tags
}

// machineArch is this machine's architecture as Lambda names it.
func machineArch() string {
	if runtime.GOARCH == "arm64" {
		return ArchARM64
	}
	return ArchX8664
}
