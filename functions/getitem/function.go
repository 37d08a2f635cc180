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
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/serverless-claims/claims/results/family/getitem"
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

// response is the handler's answer, results/family/getitem's Answer: the GetItem's call at the top
// level (dnsMs, connectMs, tlsMs, ttfbMs, reused, totalMs, ..., error), found, variant, the
// invocation's number from 1, the function's own measure of its Init (initMs, initFrom,
// initGoMs), pid, handlerMs and handlerCpuMs. The function adds what the calls' connections
// negotiated (getitem.Connection), which results leave out: the GetItem's at the top, and the
// warm-up's with it under "warmup" (absent for the cold variant), which hides Answer's Warmup.
type response struct {
	getitem.Answer
	getitem.Connection
	Warmup *Phases `json:"warmup,omitempty"`
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
func (w *warmupCall) result() *Phases {
	if w == nil {
		return nil
	}
	p := w.tr.phases()
	p.Error = w.err
	return &p
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
	p := tr.phases()
	r := response{
		Answer: getitem.Answer{
			Call:       p.Call,
			Variant:    f.variant,
			Invocation: int(n),
			InitMs:     f.init.Ms,
			InitFrom:   f.init.From,
			InitGoMs:   f.init.GoMs,
			Pid:        f.pid,
		},
		Connection: p.Connection,
		Warmup:     f.warmup.result(),
	}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Found = len(out.Item) > 0
	}
	r.HandlerMs = ms(time.Since(entered))
	r.HandlerCPUMs = ms(processCPU() - enteredCPU)
	r.Stack = stackOnce()
	return r, nil
}

// stackOnce names the function's stack, read once from the binary's build information, after
// the first call was timed.
var stackOnce = sync.OnceValue(func() *getitem.Stack {
	s := &getitem.Stack{Language: "go", LanguageVersion: runtime.Version(),
		SDK: dynamoModule, SDKVersion: "unknown", TLS: "crypto/tls", TLSVersion: runtime.Version(),
		Timed: "net/http/httptrace hooks on the request the SDK sends: DNSStart/Done, ConnectStart/Done, TLSHandshakeStart/Done, GotFirstResponseByte"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == dynamoModule {
				s.SDKVersion = m.Version
			}
		}
	}
	return s
})

// dynamoModule is the SDK's DynamoDB client's module, whose version the stack names.
const dynamoModule = "github.com/aws/aws-sdk-go-v2/service/dynamodb"
