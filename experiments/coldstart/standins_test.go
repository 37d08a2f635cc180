package coldstart

// The local platform: a function under the Runtime Interface Emulator (harness/lambda/lambdalocal), one
// emulator process per execution environment, with the model of Lambda's CPU (a memory size's
// CFS quota and Init's burst, harness/sys/cgroup), reading DynamoDB from dynalite behind TLS
// (harness/standin/dynalite) through a trust bundle made at run time.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/dynalite"
	"github.com/serverless-claims/claims/harness/standin/managedruntime"
	"github.com/serverless-claims/claims/harness/standin/tlsca"
	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
)

// localModes are the local platform as a claim test's modes, one per language of the GetItem
// function, each named by its language.
func localModes() []claimtest.Mode[lambdaPlatform] {
	var modes []claimtest.Mode[lambdaPlatform]
	for _, l := range lambdazip.Languages {
		modes = append(modes, claimtest.Mode[lambdaPlatform]{
			Name: string(l),
			Start: func(t *testing.T) lambdaPlatform {
				return startLocal(t, claimtest.Settings(t), localOptions{language: l})
			},
		})
	}
	return modes
}

// localOptions say which function the local platform runs, and change its CPU model, for the
// sensitivity tests.
type localOptions struct {
	// language is the GetItem function's; "" is Go's.
	language lambdazip.Language
	// noQuota gives every function the machine's CPU, whatever its memory size.
	noQuota bool
	// period is the quota's CFS period; zero means the settings' (CLAIMS_CPU_PERIOD_MS).
	period time.Duration
	// broken says what the options break, for a sensitivity result; "" for Lambda's model.
	broken string
}

// The table and item the function reads, and where.
const (
	table  = "claims"
	region = "us-east-1"
)

// itemKey is the item the function's GetItem reads, as CLAIMS_KEY.
var itemKey = map[string]string{"pk": "bench"}

// Dummy credentials: the stand-in checks that requests are signed in form, not by whom. They are
// not written into results.
const (
	dummyKeyID  = "claims-local"
	dummySecret = "claims-local-secret"
)

// initBurstShare is the CPU Init runs with (harness/lambda/lambdalocal's initburst.go says why): one
// whole CPU. Lambda does not publish the burst's size; one CPU is 1,769 MB's share, so a function
// of that size runs its Init and its invocations alike.
const initBurstShare = 1.0

// local is the local platform of one test. It runs one execution environment at a time: a cold
// start of any of its functions ends the environment that ran before, so that an idle one takes
// nothing from the one measured.
type local struct {
	t    *testing.T
	opts localOptions
	// settings are what the platform runs with (startLocal): their CPUPeriod is the quota's
	// CFS period.
	settings settings.Settings
	// db is DynamoDB, started by the first function that reads it; trust and certDir are what
	// the function verifies it against.
	db      *dynalite.Server
	trust   tlsca.Bundle
	certDir string
	// running is the function whose environment runs, or nil.
	running *localFunction
}

// needLinux skips t where the cold-start claims cannot run: every platform runs the functions'
// Linux builds (under the Lambda emulator and a cgroup's CPU quota here, on Lambda live, whose
// packages are built with Linux's toolchains).
func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("needs Linux: the cold-start claims run the functions' Linux builds under the Lambda emulator (aws-lambda-rie) and a cgroup's CPU quota; this is %s: run them on Linux", runtime.GOOS)
	}
}

// startLocal makes the local platform of t, running with s: its quota's CFS period is s's
// CPUPeriod, unless o sets one of its own.
func startLocal(t *testing.T, s settings.Settings, o localOptions) *local {
	t.Helper()
	needLinux(t)
	if o.language == "" {
		o.language = lambdazip.Go
	}
	if o.period != 0 {
		s.CPUPeriod = o.period
	}
	return &local{t: t, opts: o, settings: s}
}

// Mode implements claimtest.Target.
func (p *local) Mode() string { return "local" }

// Language implements lambdaPlatform.
func (p *local) Language() lambdazip.Language { return p.opts.language }

// Settings implements lambdaPlatform.
func (p *local) Settings() settings.Settings { return p.settings }

// Broken implements brokenPlatform.
func (p *local) Broken() string { return p.opts.broken }

// dynamo starts DynamoDB, creates the table and the item and writes the trust bundle, once.
func (p *local) dynamo() *dynalite.Server {
	if p.db != nil {
		return p.db
	}
	t := p.t
	t.Helper()
	db := dynalite.Start(t, dynalite.Options{Key: tlsca.DefaultKeyKind})
	seedTable(t, db)
	trust, err := db.CA.WriteBundle(filepath.Join(t.TempDir(), "trust.pem"), tlsca.SystemBundleFiles)
	require.NoError(t, err, "writing the trust bundle")
	p.db, p.trust, p.certDir = db, trust, t.TempDir()
	return db
}

// dynamoClient is an SDK client of the DynamoDB stand-in, trusting its CA, for the tests' own
// calls.
func dynamoClient(db *dynalite.Server) *dynamodb.Client {
	return db.Client(region, dummyKeyID, dummySecret)
}

// seedTable creates the table and puts the item, with the SDK, before any trial.
func seedTable(t *testing.T, db *dynalite.Server) {
	t.Helper()
	dynalite.Seed(t, dynamoClient(db), table, "pk", map[string]string{"pk": itemKey["pk"], "claim": "T1"})
}

// dynamoEnv is what a function in l that reads DynamoDB gets beside its own settings: what
// Lambda's console would hold, and the trust bundle. The function is given no CA of its own
// (CLAIMS_CA_FILE): it verifies DynamoDB against the system's roots as on Lambda, loading them
// where its runtime does (Go inside its first handshake), and functions.TrustEnv makes the
// stand-in's CA one of those roots (tlsca.CA.WriteBundle) the way l's runtime reads them, with
// nothing else loaded.
func (p *local) dynamoEnv(l lambdazip.Language) map[string]string {
	db := p.dynamo()
	key, _ := json.Marshal(itemKey)
	env := map[string]string{
		"CLAIMS_TABLE":              table,
		"CLAIMS_KEY":                string(key),
		"AWS_ENDPOINT_URL_DYNAMODB": db.Endpoint,
		"AWS_REGION":                region,
		"AWS_ACCESS_KEY_ID":         dummyKeyID,
		"AWS_SECRET_ACCESS_KEY":     dummySecret,
	}
	maps.Copy(env, functions.TrustEnv(l, p.trust.Path, db.CAFile, p.certDir))
	return env
}

// quota says whether c runs under its memory size's quota here.
func (p *local) quota(c family.Function) bool { return !c.Unthrottled && !p.opts.noQuota }

// Create implements lambdaPlatform: it builds the function and wires its environment; each
// execution environment starts at a cold start (or at the first Invoke).
func (p *local) Create(t *testing.T, c family.Function) function {
	t.Helper()
	if p.quota(c) {
		if _, err := cgroup.Available(); err != nil {
			t.Skipf("no cgroup with a CPU quota can be made on this machine, and %s needs its memory size's CPU share: %v", c, err)
		}
	}
	var tags []string
	if c.Build.Tags != "" {
		tags = append(tags, c.Build.Tags)
	}
	env := map[string]string{}
	if c.DynamoDB {
		env = p.dynamoEnv(c.Build.Language)
	}
	var bootstrap string
	var err error
	if c.Build.Language == lambdazip.Go {
		bootstrap, err = build.Go(c.Build.Package, tags...)
		require.NoError(t, err, "building %s", c.Build.Package)
	} else {
		// Built as Lambda takes it, for this machine, and run where it lies, by its managed
		// runtime's stand-in where it has one.
		pkg, err := lambdazip.Unzipped(c.Build.Package, nativeArch(t), tags...)
		require.NoError(t, err, "building %s", c.Build.Package)
		var rtEnv map[string]string
		bootstrap, rtEnv, err = managedruntime.Bootstrap(t.Context(), pkg.Runtime, pkg.Handler, pkg.Dir, t.TempDir())
		require.NoError(t, err, "the %s runtime of %s", pkg.Runtime, c.Build.Package)
		maps.Copy(env, rtEnv)
	}
	maps.Copy(env, c.Env)
	f := &localFunction{t: t, p: p, cfg: c, bootstrap: bootstrap, vars: env}
	t.Cleanup(func() { _ = f.Delete() })
	return f
}

// nativeArch is this machine's architecture as Lambda names it: the local platform runs what it
// builds here.
func nativeArch(t *testing.T) lambdazip.Arch {
	t.Helper()
	a, err := nativeLambdaArch()
	if err != nil {
		t.Skip(err)
	}
	return a
}

// nativeLambdaArch is nativeArch, or why there is none.
func nativeLambdaArch() (lambdazip.Arch, error) {
	a, ok := map[string]lambdazip.Arch{"amd64": lambdazip.X8664, "arm64": lambdazip.ARM64}[runtime.GOARCH]
	if !ok {
		return "", fmt.Errorf("the local platform runs functions built for x86_64 or arm64 Linux; this machine is %s", runtime.GOARCH)
	}
	return a, nil
}

// end ends the running environment, if any.
func (p *local) end() {
	if f := p.running; f != nil {
		require.NoError(p.t, f.e.Stop(), "ending the execution environment")
		f.e, p.running = nil, nil
	}
}

// localFunction is a function on the local platform.
type localFunction struct {
	t         *testing.T
	p         *local
	cfg       family.Function
	bootstrap string
	vars      map[string]string // the function's environment
	// e is the running execution environment, or nil.
	e *lambdalocal.Environment
}

// ColdStart implements function: it ends the platform's running environment and starts a new
// one, with the memory size's quota and Init's burst, or the machine's CPU in a cgroup of every
// CPU with the largest weight, as a quota's group has, so that a control competes with other
// work on the machine as the arms under a quota do.
//
// It returns one CFS period after the emulator listens: the emulator's own start-up is no part of
// a Lambda cold start, and would otherwise spend the first period's quota before Init begins.
func (f *localFunction) ColdStart(ctx context.Context) error {
	f.p.end()
	o := lambdalocal.Options{Bootstrap: f.bootstrap, Env: f.vars, MemoryMB: f.cfg.MemoryMB, Period: f.p.settings.CPUPeriod, Timeout: f.Timeout()}
	if f.p.quota(f.cfg) {
		o.Quota, o.InitShare = true, initBurstShare
	} else if _, err := cgroup.Available(); err == nil {
		o.Priority = true
	}
	f.e = lambdalocal.Start(f.t, o)
	f.p.running = f
	select {
	case <-time.After(f.p.settings.CPUPeriod):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// functionTimeout is the timeout of the platform's functions: its settings', else the emulator's
// default.
func (p *local) functionTimeout() time.Duration {
	return cmp.Or(p.settings.FunctionTimeout, lambdalocal.DefaultTimeout)
}

// Timeout implements function: the platform's (settings.FunctionTimeoutEnv).
func (f *localFunction) Timeout() time.Duration { return f.p.functionTimeout() }

// Invoke implements function; without a running environment it starts one first, as Lambda does.
func (f *localFunction) Invoke(ctx context.Context, event []byte) (invocation, error) {
	if f.e == nil {
		if err := f.ColdStart(ctx); err != nil {
			return invocation{}, err
		}
	}
	inv, err := f.e.Invoke(ctx, event)
	if err != nil {
		return invocation{}, err
	}
	// The emulator is invoked once per invoke: nothing retries.
	return invocation{Status: inv.Status, Payload: inv.Body, Error: inv.Failure, Report: billedAsLambda(inv.Report), ClientMs: inv.ClientMs, Attempts: 1}, nil
}

// billedAsLambda is r with the Billed Duration Lambda gives a provided.al2023 function for r's
// figures: the emulator bills Duration alone even on a cold start, and a result's billedMs must
// mean the same on every platform. A REPORT without Duration is kept as it is.
func billedAsLambda(r lambdareport.Report) lambdareport.Report {
	if ms, ok := r.BilledAsLambda(); ok {
		r.BilledDuration = &ms
	}
	return r
}

// Delete implements function.
func (f *localFunction) Delete() error {
	if f.p.running != f {
		return nil
	}
	err := f.e.Stop()
	f.e, f.p.running = nil, nil
	return err
}

// Throttling implements throttleCounter: what the kernel counted for the running environment's
// cgroup (v1 counts the wait in ns, v2 in µs); nil without one.
func (f *localFunction) Throttling() (*family.Throttling, error) {
	if f.e == nil || f.e.Group == nil {
		return nil, nil
	}
	st, err := f.e.Group.CPUStat()
	if err != nil {
		return nil, err
	}
	th := &family.Throttling{Periods: st["nr_periods"], Throttled: st["nr_throttled"]}
	if ns, ok := st["throttled_time"]; ok {
		th.WaitedMs = float64(ns) / 1e6
	} else {
		th.WaitedMs = float64(st["throttled_usec"]) / 1e3
	}
	return th, nil
}

// BreakDynamoDB implements dynamoOutage.
func (p *local) BreakDynamoDB(how family.Outage) error {
	switch how {
	case family.Refused:
		p.dynamo().Down()
		return nil
	case family.Stalled:
		return p.dynamo().Stall()
	}
	return fmt.Errorf("outage %q; want %q or %q", how, family.Refused, family.Stalled)
}

// RestoreDynamoDB implements dynamoOutage.
func (p *local) RestoreDynamoDB() error { return p.dynamo().Up() }

// OutageReachesHandler implements dynamoOutage: the stand-in is down for every call.
func (p *local) OutageReachesHandler() bool { return true }

// DynamoDBHandshakes implements handshakeCounter.
func (p *local) DynamoDBHandshakes() int { return p.dynamo().Handshakes() }

// localRecord is the local platform as a result records it (target.platform).
type localRecord struct {
	Emulator string `json:"emulator"`
	CPU      struct {
		// Model says how the CPU shares were made, in a sentence.
		Model    string  `json:"model"`
		PeriodMs float64 `json:"periodMs"`
		// Quota is false where a sensitivity test gave every function the machine's CPU.
		Quota         bool    `json:"quota"`
		InitBurstCPUs float64 `json:"initBurstCpus"`
		Cgroup        string  `json:"cgroup"`
	} `json:"cpu"`
	// DynamoDB is the stand-in, where a function read it.
	DynamoDB *localDynamo `json:"dynamodb,omitempty"`
	// InitSource says which measure of Init the claims read.
	InitSource string `json:"initSource"`
	// FunctionTimeoutS is the functions' timeout (settings.FunctionTimeoutEnv).
	FunctionTimeoutS int `json:"functionTimeoutS"`
}

// localDynamo is the DynamoDB stand-in as a result records it: the credentials are dummies and
// not recorded, the trust bundle as what it holds.
type localDynamo struct {
	Server         string            `json:"server"`
	Endpoint       string            `json:"endpoint"`
	CertificateKey tlsca.KeyKind     `json:"certificateKey"`
	Trust          tlsca.Bundle      `json:"trust"`
	Table          string            `json:"table"`
	Key            map[string]string `json:"key"`
	Region         string            `json:"region"`
}

// MarshalJSON records the platform as localRecord.
func (p *local) MarshalJSON() ([]byte, error) {
	var r localRecord
	r.Emulator = "aws-lambda-rie (go.mod tool)"
	where, err := cgroup.Available()
	r.CPU.Cgroup = where
	machine := "the machine's CPU"
	if err != nil {
		r.CPU.Cgroup = "none: " + err.Error()
	} else {
		machine = fmt.Sprintf("the machine's CPU, in a cgroup (%s) of every CPU with the largest weight, as a quota's group has", where)
	}
	r.CPU.PeriodMs = float64(p.settings.CPUPeriod) / float64(time.Millisecond)
	r.CPU.Quota = !p.opts.noQuota
	r.CPU.Model = "no quota: " + machine
	if r.CPU.Quota {
		r.CPU.InitBurstCPUs = initBurstShare
		r.CPU.Model = fmt.Sprintf("memory / 1769 MB of one CPU per %v CFS period (cgroup %s), for the emulator and the function together; Init runs with %g CPU until the runtime first asks for an event; an unthrottled function: %s",
			p.settings.CPUPeriod, where, initBurstShare, machine)
	}
	if p.db != nil {
		r.DynamoDB = &localDynamo{"dynalite " + p.db.Version + " behind TLS", p.db.Endpoint, p.db.Key, p.trust, table, itemKey, region}
	}
	// The emulator's Init Duration ends when the runtime first asks for an event, before work a
	// runtime does lazily; the function's own measure is the Init evidence.
	r.InitSource = "the function's own measure (initMs); the emulator's Init Duration is kept beside it (report.initMs)"
	r.FunctionTimeoutS = int(p.functionTimeout() / time.Second)
	return json.Marshal(r)
}

func TestTheLocalPlatformBillsAsLambdaBillsACustomRuntime(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	// The emulator's cold REPORT: Billed Duration is its Duration rounded up, Init left out.
	cold := billedAsLambda(lambdareport.Report{InitDuration: ms(95.12), Duration: ms(12.34), BilledDuration: ms(13)})
	assert.Equal(t, 108.0, *cold.BilledDuration, "Billed Duration of a cold start = %v ms; want ceil(Init 95.12 + Duration 12.34)", *cold.BilledDuration)
	warm := billedAsLambda(lambdareport.Report{Duration: ms(1.2), BilledDuration: ms(2)})
	assert.Equal(t, 2.0, *warm.BilledDuration, "Billed Duration of a warm invocation = %v ms; want ceil(Duration 1.2)", *warm.BilledDuration)
}
