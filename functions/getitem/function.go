package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The variants, the values CLAIMS_VARIANT takes.
const (
	variantCold = "cold"
	variantWarm = "warm"
)

// defaultWarmupTimeout bounds the warm-up when CLAIMS_WARMUP_TIMEOUT_MS is unset: ten times the
// article's 75 ms warm-up and a tenth of Lambda's 10 s Init limit.
const defaultWarmupTimeout = time.Second

// settings is the function's configuration, from the environment (see the package comment).
type settings struct {
	Variant       string
	Table         string
	Key           map[string]types.AttributeValue
	CAFile        string
	WarmupTimeout time.Duration
	// WarmupOutage sends the warm-up to an endpoint in the sandbox that refuses or stalls
	// (outage.go); "" sends it to DynamoDB.
	WarmupOutage string
}

// loadSettings reads and checks the configuration through getenv (os.Getenv, or a map in tests).
func loadSettings(getenv func(string) string) (settings, error) {
	s := settings{
		Variant:       getenv("CLAIMS_VARIANT"),
		Table:         getenv("CLAIMS_TABLE"),
		CAFile:        getenv("CLAIMS_CA_FILE"),
		WarmupTimeout: defaultWarmupTimeout,
		WarmupOutage:  getenv("CLAIMS_WARMUP_OUTAGE"),
	}
	if s.Variant != variantCold && s.Variant != variantWarm {
		return s, fmt.Errorf("CLAIMS_VARIANT = %q; want %q or %q", s.Variant, variantCold, variantWarm)
	}
	if s.Table == "" {
		return s, errors.New("CLAIMS_TABLE is not set; want the table to read")
	}
	key, err := parseKey(getenv("CLAIMS_KEY"))
	if err != nil {
		return s, err
	}
	s.Key = key
	if v := getenv("CLAIMS_WARMUP_TIMEOUT_MS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("CLAIMS_WARMUP_TIMEOUT_MS = %q; want a positive number of milliseconds", v)
		}
		s.WarmupTimeout = time.Duration(n) * time.Millisecond
	}
	if o := s.WarmupOutage; o != "" && o != outageRefused && o != outageStalled {
		return s, fmt.Errorf("CLAIMS_WARMUP_OUTAGE = %q; want %q, %q or unset", o, outageRefused, outageStalled)
	}
	return s, nil
}

// parseKey turns CLAIMS_KEY, a JSON object such as {"pk":"bench","sk":"item-0"}, into a GetItem
// key: a string is an S attribute, a number an N (kept as written, as DynamoDB wants it).
func parseKey(v string) (map[string]types.AttributeValue, error) {
	if v == "" {
		return nil, errors.New(`CLAIMS_KEY is not set; want the item's key as JSON, {"pk":"bench"}`)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("CLAIMS_KEY = %q: %v; want a JSON object, {\"pk\":\"bench\"}", v, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("CLAIMS_KEY = %q; want at least one attribute", v)
	}
	key := make(map[string]types.AttributeValue, len(raw))
	for name, val := range raw {
		switch val := val.(type) {
		case string:
			key[name] = &types.AttributeValueMemberS{Value: val}
		case json.Number:
			key[name] = &types.AttributeValueMemberN{Value: val.String()}
		default:
			return nil, fmt.Errorf("CLAIMS_KEY = %q: attribute %q is %T; want a string or a number", v, name, val)
		}
	}
	return key, nil
}

// newClient builds the DynamoDB client the way a function's Init does: the SDK's default
// configuration (region, credentials and AWS_ENDPOINT_URL_DYNAMODB from the environment) with
// the SDK's own HTTP client, changed only to trust CLAIMS_CA_FILE when it is set. Nothing goes on
// the network here.
func newClient(ctx context.Context, s settings) (*dynamodb.Client, error) {
	hc := awshttp.NewBuildableClient()
	if s.CAFile != "" {
		pool, err := loadCAs(s.CAFile)
		if err != nil {
			return nil, err
		}
		// Only the given CAs: the stand-in's certificate must verify against them alone, and
		// loading the system's roots too would add their cost to the handshake being timed.
		hc = hc.WithTransportOptions(func(tr *http.Transport) { tr.TLSClientConfig.RootCAs = pool })
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("loading the SDK's configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no region: set AWS_REGION")
	}
	return dynamodb.NewFromConfig(cfg), nil
}

// loadCAs reads a PEM file of certificates into a pool.
func loadCAs(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CLAIMS_CA_FILE: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CLAIMS_CA_FILE = %q: no PEM certificate in it", path)
	}
	return pool, nil
}

// function is the initialised function: what Init built, and what the handler reports.
type function struct {
	variant string
	table   string
	key     map[string]types.AttributeValue
	client  *dynamodb.Client
	// warmup is the warm-up's outcome; nil for the cold variant.
	warmup *warmupCall
	init   initMeasure
	pid    int
	calls  atomic.Int64
}

// callResult is one SDK call's phases, and its error if it failed.
type callResult struct {
	Phases
	Error string `json:"error,omitempty"`
}

// response is the handler's answer. The GetItem's phases are at the top level (dnsMs, connectMs,
// tlsMs, ttfbMs, reused, totalMs, ...), the warm-up's under "warmup".
type response struct {
	callResult
	// Found says GetItem returned an item.
	Found bool `json:"found"`
	// Variant is CLAIMS_VARIANT.
	Variant string `json:"variant"`
	// Invocation counts this process's invocations, from 1: 1 is the cold start's.
	Invocation int64 `json:"invocation"`
	// InitMs, InitFrom and InitGoMs are the function's own measure of its Init (initMeasure).
	InitMs   float64 `json:"initMs"`
	InitFrom string  `json:"initFrom"`
	InitGoMs float64 `json:"initGoMs"`
	// HandlerMs is the function's own measure of this invocation, from the handler's entry to
	// its answer: what Lambda's Duration covers. (The emulator runs Init inside the first
	// invoke, so its first Duration holds Init too.)
	HandlerMs float64 `json:"handlerMs"`
	// HandlerCPUMs is the CPU time the process was charged over the same span (processCPU).
	HandlerCPUMs float64 `json:"handlerCpuMs"`
	// Warmup is the warm variant's warm-up; absent for cold.
	Warmup *callResult `json:"warmup,omitempty"`
	// Pid is the process's id: two answers with the same pid came from one environment.
	Pid int `json:"pid"`
}

// initialize is the function's Init: the client, and for the warm variant the warm-up.
func initialize(ctx context.Context, s settings) (*function, error) {
	client, err := newClient(ctx, s)
	if err != nil {
		return nil, err
	}
	f := &function{variant: s.Variant, table: s.Table, key: s.Key, client: client, pid: os.Getpid()}
	if s.Variant == variantWarm {
		warmupOn := client
		if s.WarmupOutage != "" {
			endpoint, err := outageEndpoint(s.WarmupOutage)
			if err != nil {
				return nil, err
			}
			warmupOn = outageClient(client, endpoint)
		}
		f.warmup = warmUp(ctx, warmupOn, s.WarmupTimeout)
	}
	return f, nil
}

// warmupCall is the warm-up: its tracer, read when the handler answers so that a hook that fires
// late is still seen (WriteError), and its error.
type warmupCall struct {
	tr  *tracer
	err string
}

// result is the warm-up as the handler reports it; nil for no warm-up.
func (w *warmupCall) result() *callResult {
	if w == nil {
		return nil
	}
	return &callResult{Phases: w.tr.phases(), Error: w.err}
}

// warmUp makes the article's warm-up call, ListTables with Limit 1, which needs no table and
// leaves the SDK's connection in its pool for the handler. Its error is returned as a result,
// not an error: the caller must not fail Init over it (claim T4), and the timeout keeps a dead
// endpoint from eating Init's 10 seconds (the SDK would otherwise retry, and wait up to 10 s on
// a TLS handshake that never answers).
func warmUp(ctx context.Context, client *dynamodb.Client, timeout time.Duration) *warmupCall {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, tr := withTrace(ctx)
	_, err := warmupClient(client).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	tr.finish()
	w := &warmupCall{tr: tr}
	if err != nil {
		w.err = err.Error()
	}
	return w
}

// setInit records the Init measure, taken just before lambda.Start.
func (f *function) setInit(m initMeasure) { f.init = m }

// handle is the Lambda handler: one GetItem, timed. The event is ignored. A failed GetItem is
// answered, with its phases and its error in "error", rather than failed: the phases of a call
// that failed are evidence too, and a Lambda error would carry only the message.
func (f *function) handle(ctx context.Context, _ json.RawMessage) (response, error) {
	entered, enteredCPU := time.Now(), processCPU()
	n := f.calls.Add(1)
	tctx, tr := withTrace(ctx)
	out, err := f.client.GetItem(tctx, &dynamodb.GetItemInput{TableName: &f.table, Key: f.key})
	tr.finish()
	r := response{
		callResult: callResult{Phases: tr.phases()},
		Variant:    f.variant,
		Invocation: n,
		InitMs:     f.init.Ms,
		InitFrom:   f.init.From,
		InitGoMs:   f.init.GoMs,
		Warmup:     f.warmup.result(),
		Pid:        f.pid,
	}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Found = len(out.Item) > 0
	}
	r.HandlerMs = ms(time.Since(entered))
	r.HandlerCPUMs = ms(processCPU() - enteredCPU)
	return r, nil
}
