package coldstart

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/build"
	"github.com/serverless-claims/claims/harness/cgroup"
	"github.com/serverless-claims/claims/harness/dynalite"
	"github.com/serverless-claims/claims/harness/lambdalocal"
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
// the function's bootstrap, and the trust bundle the function verifies DynamoDB against.
type stage struct {
	db        *dynalite.Server
	bootstrap string
	trust     tlsca.Bundle
	// certDir is an empty directory for SSL_CERT_DIR, so that the function loads the bundle
	// and nothing else (unset, Go would also read every file in /etc/ssl/certs).
	certDir string
	// period is the CPU quota's CFS period: CLAIMS_CPU_PERIOD_MS, or another where a
	// sensitivity test changes the model.
	period time.Duration
	// laterInvocations is how many more warm invocations each cold start gets after its
	// second, each one period after the last.
	laterInvocations int
}

// setUp starts dynalite with a key of kind key, creates the table and the item, writes the trust
// bundle, and builds the function, with build tags for a deliberately broken one (the
// sensitivity tests).
func setUp(t *testing.T, key tlsca.KeyKind, tags ...string) *stage {
	t.Helper()
	bootstrap, err := build.Go(functionPackage, tags...)
	require.NoError(t, err, "building the function")
	db := dynalite.Start(t, dynalite.Options{Key: key})
	seedTable(t, db)
	trust, err := db.CA.WriteBundle(filepath.Join(t.TempDir(), "trust.pem"), tlsca.SystemBundleFiles)
	require.NoError(t, err, "writing the trust bundle")
	return &stage{db: db, bootstrap: bootstrap, trust: trust, certDir: t.TempDir(), period: cfg.CPUPeriod}
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

// functionEnv is the function's configuration for variant: what Lambda's console would hold,
// and the trust bundle. The function is given no CA of its own (CLAIMS_CA_FILE): it verifies
// DynamoDB against the system's roots as on Lambda, loading them inside its first handshake, and
// SSL_CERT_FILE makes the stand-in's CA one of those roots (tlsca.CA.WriteBundle).
func (s *stage) functionEnv(variant string) map[string]string {
	key, _ := json.Marshal(itemKey)
	return map[string]string{
		"CLAIMS_VARIANT":            variant,
		"CLAIMS_TABLE":              table,
		"CLAIMS_KEY":                string(key),
		"SSL_CERT_FILE":             s.trust.Path,
		"SSL_CERT_DIR":              s.certDir,
		"AWS_ENDPOINT_URL_DYNAMODB": s.db.Endpoint,
		"AWS_REGION":                region,
		"AWS_ACCESS_KEY_ID":         dummyKeyID,
		"AWS_SECRET_ACCESS_KEY":     dummySecret,
	}
}

// phases is the function's account of one SDK call, on its own connection (functions/getitem).
type phases struct {
	DNSMs        float64 `json:"dnsMs"`
	DNSCPUMs     float64 `json:"dnsCpuMs"`
	ConnectMs    float64 `json:"connectMs"`
	ConnectCPUMs float64 `json:"connectCpuMs"`
	TLSMs        float64 `json:"tlsMs"`
	TLSCPUMs     float64 `json:"tlsCpuMs"`
	TTFBMs       float64 `json:"ttfbMs"`
	Reused       bool    `json:"reused"`
	Pooled       bool    `json:"pooled"`
	TotalMs      float64 `json:"totalMs"`
	Attempts     int     `json:"attempts"`
	Curve        string  `json:"curve,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// answer is the function's answer to one invocation.
type answer struct {
	phases
	Found      bool    `json:"found"`
	Variant    string  `json:"variant"`
	Invocation int     `json:"invocation"`
	InitMs     float64 `json:"initMs"`
	InitFrom   string  `json:"initFrom"`
	InitGoMs   float64 `json:"initGoMs"`
	Warmup     *phases `json:"warmup,omitempty"`
	Pid        int     `json:"pid"`
	HandlerMs  float64 `json:"handlerMs"`
	// HandlerCPUMs is the CPU the function's process was charged over its handler.
	HandlerCPUMs float64 `json:"handlerCpuMs"`
}

// setupMs is the first call's network set-up: DNS, TCP and TLS.
func (p phases) setupMs() float64 { return p.DNSMs + p.ConnectMs + p.TLSMs }

// setupCPUMs is the CPU the process was charged over the same phases.
func (p phases) setupCPUMs() float64 { return p.DNSCPUMs + p.ConnectCPUMs + p.TLSCPUMs }

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

// share is the CPU an execution environment gets: with Quota, its memory size's share of one
// CPU (memory / 1,769 MB) under a CFS quota, Init first running with one whole CPU where
// InitBurst says so; without Quota, the machine's, and the memory size only sets
// AWS_LAMBDA_FUNCTION_MEMORY_SIZE.
type share struct {
	MemoryMB  int  `json:"memoryMB"`
	Quota     bool `json:"quota"`
	InitBurst bool `json:"initBurst"`
}

// initBurstShare is the CPU Init runs with where a share has InitBurst (harness/lambdalocal's
// initburst.go says why): one whole CPU. Lambda does not publish the burst's size; one CPU is
// 1,769 MB's share, so a function of that size runs its Init and its invocations alike.
const initBurstShare = 1.0

// String names the share as tables print it: "128 MB", "128 MB, no Init burst" or "128 MB, no
// quota".
func (sh share) String() string {
	switch {
	case !sh.Quota:
		return fmt.Sprintf("%d MB, no quota", sh.MemoryMB)
	case !sh.InitBurst:
		return fmt.Sprintf("%d MB, no Init burst", sh.MemoryMB)
	}
	return fmt.Sprintf("%d MB", sh.MemoryMB)
}

// sized is memoryMB's share as Lambda gives it: the quota, and Init's burst.
func sized(memoryMB int) share { return share{MemoryMB: memoryMB, Quota: true, InitBurst: true} }

// The article's function's share, and the same size with the machine's CPU: the control.
var (
	articleShare = sized(memoryMB)
	noQuota      = share{MemoryMB: memoryMB}
)

// needQuota skips t where no cgroup with a CPU quota can be made, saying what is missing.
func needQuota(t *testing.T) {
	t.Helper()
	if _, err := cgroup.Available(); err != nil {
		t.Skipf("no cgroup with a CPU quota can be made on this machine, and this claim is about a memory size's CPU share: %v", err)
	}
}

// throttling is what the kernel counted for one environment's cgroup: periods in which it ran,
// periods in which it was throttled, and the time it waited.
type throttling struct {
	Periods   int64   `json:"periods"`
	Throttled int64   `json:"throttled"`
	WaitedMs  float64 `json:"waitedMs"`
}

// readThrottling reads g's cpu.stat (v1 counts the wait in ns, v2 in µs).
func readThrottling(g *cgroup.Group) (*throttling, error) {
	st, err := g.CPUStat()
	if err != nil {
		return nil, err
	}
	th := &throttling{Periods: st["nr_periods"], Throttled: st["nr_throttled"]}
	if ns, ok := st["throttled_time"]; ok {
		th.WaitedMs = float64(ns) / 1e6
	} else {
		th.WaitedMs = float64(st["throttled_usec"]) / 1e3
	}
	return th, nil
}

// coldStart is one cold start: a fresh execution environment, its first invocation and a second,
// warm one.
type coldStart struct {
	Variant string  `json:"variant"`
	Share   share   `json:"share"`
	First   invoked `json:"first"`
	Second  invoked `json:"second"`
	// Later are the warm invocations after the second, where a test asks for them.
	Later []invoked `json:"later,omitempty"`
	// Throttling is the kernel's count for the whole cold start; nil without a quota.
	Throttling *throttling `json:"throttling,omitempty"`
}

// start starts a fresh execution environment of the function with env and the CPU share sh.
func (s *stage) start(t *testing.T, env map[string]string, sh share) *lambdalocal.Environment {
	t.Helper()
	o := lambdalocal.Options{Bootstrap: s.bootstrap, Env: env, MemoryMB: sh.MemoryMB, Quota: sh.Quota, Period: s.period}
	// The machine's CPU, with the priority a quota's group has where a cgroup can be made, so
	// that a control competes with other work on the machine as the arms under a quota do.
	if _, err := cgroup.Available(); err == nil && !sh.Quota {
		o.Priority = true
	}
	if sh.InitBurst {
		o.InitShare = initBurstShare
	}
	return lambdalocal.Start(t, o)
}

// startCold runs one cold start of variant with the CPU share sh.
//
// Each invocation comes one CFS period after what went before it. Before the first: the
// emulator's own start-up is no part of a Lambda cold start, and would otherwise spend the
// first period's quota before the function's Init begins. Before the second: a warm invocation
// is a later request, not one on the heels of the first, which would inherit the first's
// throttling.
func (s *stage) startCold(t *testing.T, variant string, sh share) coldStart {
	t.Helper()
	e := s.start(t, s.functionEnv(variant), sh)
	c := coldStart{Variant: variant, Share: sh}
	time.Sleep(s.period)
	c.First = invoke(t, e)
	time.Sleep(s.period)
	c.Second = invoke(t, e)
	for range s.laterInvocations {
		time.Sleep(s.period)
		c.Later = append(c.Later, invoke(t, e))
	}
	c.Throttling = stop(t, e)
	return c
}

// stop stops e, and returns what the kernel counted for its cgroup first (nil without one).
func stop(t *testing.T, e *lambdalocal.Environment) *throttling {
	t.Helper()
	var th *throttling
	if e.Group != nil {
		var err error
		th, err = readThrottling(e.Group)
		require.NoError(t, err, "reading the cgroup's throttling")
	}
	require.NoError(t, e.Stop())
	return th
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
