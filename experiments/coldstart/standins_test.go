package coldstart

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/dynalite"
	"github.com/serverless-claims/claims/harness/lambdalocal"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/tlsca"
)

// The function, and the table and item it reads.
const (
	functionPackage = "functions/getitem"
	table           = "claims"
	region          = "us-east-1"
)

// itemKey is the item the function's GetItem reads, as CLAIMS_KEY.
var itemKey = map[string]string{"pk": "bench"}

// Dummy credentials: the stand-in checks that requests are signed in form, not by whom. They are
// not written into results (see lab.recorded).
const (
	dummyKeyID  = "claims-local"
	dummySecret = "claims-local-secret"
)

// stage is the stand-ins of one test: DynamoDB (dynalite behind TLS) with its table and item,
// and the function's bootstrap.
type stage struct {
	db        *dynalite.Server
	bootstrap string
}

// setUp starts dynalite with a key of kind key, creates the table and the item, and builds the
// function, with build tags for a deliberately broken one (the sensitivity tests).
func setUp(t *testing.T, key tlsca.KeyKind, tags ...string) *stage {
	t.Helper()
	bootstrap, err := runtimes.BuildGo(functionPackage, tags...)
	require.NoError(t, err, "building the function")
	db := dynalite.Start(t, dynalite.Options{Key: key})
	seedTable(t, db)
	return &stage{db: db, bootstrap: bootstrap}
}

// seedTable creates the table and puts the item, with the SDK, before any trial.
func seedTable(t *testing.T, db *dynalite.Server) {
	t.Helper()
	client := dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(db.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(dummyKeyID, dummySecret, ""),
		HTTPClient:   &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: db.CA.Pool()}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err, "creating the table")
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk":    &types.AttributeValueMemberS{Value: itemKey["pk"]},
			"claim": &types.AttributeValueMemberS{Value: "T1"},
		},
	})
	require.NoError(t, err, "putting the item")
}

// functionEnv is the function's configuration for variant: what Lambda's console would hold.
func (s *stage) functionEnv(variant string) map[string]string {
	key, _ := json.Marshal(itemKey)
	return map[string]string{
		"CLAIMS_VARIANT":            variant,
		"CLAIMS_TABLE":              table,
		"CLAIMS_KEY":                string(key),
		"CLAIMS_CA_FILE":            s.db.CAFile,
		"AWS_ENDPOINT_URL_DYNAMODB": s.db.Endpoint,
		"AWS_REGION":                region,
		"AWS_ACCESS_KEY_ID":         dummyKeyID,
		"AWS_SECRET_ACCESS_KEY":     dummySecret,
	}
}

// phases is the function's account of one SDK call, on its own connection (functions/getitem).
type phases struct {
	DNSMs     float64 `json:"dnsMs"`
	ConnectMs float64 `json:"connectMs"`
	TLSMs     float64 `json:"tlsMs"`
	TTFBMs    float64 `json:"ttfbMs"`
	Reused    bool    `json:"reused"`
	TotalMs   float64 `json:"totalMs"`
	Attempts  int     `json:"attempts"`
	Curve     string  `json:"curve,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// answer is the function's answer to one invocation.
type answer struct {
	phases
	Found      bool    `json:"found"`
	Variant    string  `json:"variant"`
	Invocation int     `json:"invocation"`
	InitMs     float64 `json:"initMs"`
	InitFrom   string  `json:"initFrom"`
	Warmup     *phases `json:"warmup,omitempty"`
	Pid        int     `json:"pid"`
}

// invoked is one invocation as a result keeps it.
type invoked struct {
	Status     int      `json:"status"`
	Answer     answer   `json:"answer"`
	Body       string   `json:"body,omitempty"`         // the answer as sent, when it is not the function's JSON
	InitMs     *float64 `json:"reportInitMs,omitempty"` // the emulator's Init Duration
	DurationMs float64  `json:"reportDurationMs"`
	ClientMs   float64  `json:"clientMs"`
}

// ok says the function answered: status 200 with its JSON.
func (i invoked) ok() bool { return i.Status == http.StatusOK && i.Body == "" }

// coldStart is one cold start: a fresh execution environment, its first invocation and a second,
// warm one.
type coldStart struct {
	Variant string  `json:"variant"`
	First   invoked `json:"first"`
	Second  invoked `json:"second"`
}

// start starts a fresh execution environment of the function with env, at the article's memory
// size and with no CPU quota (the claims built so far are not about CPU; the result's target says
// so).
func (s *stage) start(t *testing.T, env map[string]string) *lambdalocal.Environment {
	t.Helper()
	return lambdalocal.Start(t, lambdalocal.Options{Bootstrap: s.bootstrap, Env: env, MemoryMB: memoryMB})
}

// startCold runs one cold start of variant.
func (s *stage) startCold(t *testing.T, variant string) coldStart {
	t.Helper()
	e := s.start(t, s.functionEnv(variant))
	c := coldStart{Variant: variant}
	c.First = invoke(t, e)
	c.Second = invoke(t, e)
	require.NoError(t, e.Stop())
	return c
}

// invoke sends one event. An answer that is not the function's JSON (an Init that failed, a
// timeout) is kept as it came, for the checks to judge; only an invoke that gets no answer at all
// fails the test.
func invoke(t *testing.T, e *lambdalocal.Environment) invoked {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inv, err := e.Invoke(ctx, []byte(`{}`))
	require.NoError(t, err)
	out := invoked{Status: inv.Status, InitMs: inv.Report.InitDuration, ClientMs: inv.ClientMs}
	if inv.Failure != "" {
		out.Body = "failed: " + inv.Failure
		return out
	}
	if inv.Report.Duration != nil {
		out.DurationMs = *inv.Report.Duration
	}
	if inv.Status != http.StatusOK || json.Unmarshal(inv.Body, &out.Answer) != nil {
		out.Body = string(inv.Body)
	}
	return out
}
