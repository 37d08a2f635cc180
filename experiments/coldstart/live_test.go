//go:build lambda

package coldstart

// The live platform: the cold-start claims on AWS Lambda, through aws-sdk-go-v2 (harness/aws/live),
// with the claim bodies and decisions of the local run. A function is a Lambda function made for
// the run from this repository's code (harness/lambda/lambdazip), cold-started by a change of its
// configuration and invoked with its log's tail, whose REPORT is the evidence beside the
// function's own timings.
//
// Where the API calls go: to AWS through the SDK's default chain (credentials and region never
// logged or written), to any Lambda-compatible endpoint CLAIMS_LAMBDA_ENDPOINT names, or, with
// CLAIMS_LIVE_STANDIN=1 (what `make test` does), to this repository's stand-ins of Lambda's, IAM's
// and DynamoDB's APIs, started for each test (live_standins_test.go): the same code end to end, with
// the local model of Lambda's CPU behind the API.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
)

// platforms are where the claim tests run: with the lambda build tag, on Lambda, a mode per
// language of the GetItem function, each named by its language.
var platforms = liveModes()

// liveModes are the live platform as a claim test's modes, one per language.
func liveModes() []claimtest.Mode[lambdaPlatform] {
	var modes []claimtest.Mode[lambdaPlatform]
	for _, l := range lambdazip.Languages {
		modes = append(modes, claimtest.Mode[lambdaPlatform]{
			Name:  string(l),
			Start: func(t *testing.T) lambdaPlatform { return startLive(t, claimtest.Settings(t), l) },
		})
	}
	return modes
}

// StandInEnv, set to 1, runs the live mode against this repository's stand-ins.
const standInEnv = "CLAIMS_LIVE_STANDIN"

// unthrottledMB is the memory size of a function that asks to be unthrottled (a control): 3008 MB
// is 1.7 vCPUs on Lambda (memory / 1769 MB), more than the function's one busy thread can use,
// and the most a new account's reduced memory quota allows ("Member must have value less than or
// equal to 3008"), so that the controls run on every account.
const unthrottledMB = 3008

// TestControlIsUnthrottledWithinANewAccountsQuota: the controls' memory size gives more than one
// vCPU (Lambda's memory / 1769 MB, which the stand-in's CPU model follows), so that one busy
// thread is never throttled, and is within a new account's reduced quota.
func TestControlIsUnthrottledWithinANewAccountsQuota(t *testing.T) {
	share, err := lambdalocal.ShareForMemory(unthrottledMB)
	require.NoError(t, err)
	assert.Greater(t, share, 1.0, "the control's CPU share at %d MB = %.2f; want more than one vCPU", unthrottledMB, share)
	assert.LessOrEqual(t, unthrottledMB, newAccountMaxMemoryMB, "the control's memory = %d MB; want at most a new account's quota, %d MB", unthrottledMB, newAccountMaxMemoryMB)
}

// functionTimeoutSeconds is the functions' Lambda timeout: far above any invocation of theirs,
// below the claims' own bound on an invoke (invokeTimeout).
const functionTimeoutSeconds = 30

// The most an invocation of each function is billed, for the estimate: a provided.al2023 cold
// start's Billed Duration includes its Init (custom runtimes were always billed for Init). A cold getitem at 128 MB spends most of a second on its TLS handshake (the
// article's figure); a throttle loop takes its busy time and its Init.
const (
	getitemMaxSeconds  = 3
	throttleMaxSeconds = 4
)

// spent is what the live runs of this test binary have billed so far, so that the cap holds for
// the binary, not for each test.
var spent struct {
	sync.Mutex
	usd float64
}

// livePlatform is the live platform of one test: its session (everything it made is deleted when
// the test ends, and on Ctrl-C), and what it made, for the result.
type livePlatform struct {
	t        *testing.T
	s        *live.Session
	mode     string
	api      string
	plan     []live.PlannedFunction
	estimate live.Estimate
	// standIns are the stand-ins the session's calls go to, or nil.
	standIns *standIns
	// language is the GetItem function's; "" is Go's.
	language lambdazip.Language
	// settings are what the platform runs with (openLive): its plan's cold starts, and the
	// stand-ins' CFS period.
	settings settings.Settings
	// outage is what the next cold starts give the warm-up (T4); "" for DynamoDB itself.
	outage family.Outage
	table  string

	mu        sync.Mutex
	functions []*liveFunction
	invokes   int
}

// startLive opens the test's session with the settings s, after printing what it will make and
// its cost and checking both against what is left of the cap. Without an AWS configuration it
// skips, naming what is missing.
func startLive(t *testing.T, s settings.Settings, l lambdazip.Language) lambdaPlatform {
	t.Helper()
	var standIns *standIns
	if os.Getenv(standInEnv) == "1" {
		standIns = startStandIns(t, s)
	}
	return openLive(t, s, standIns, topName(t), l)
}

// openLive opens t's session as startLive does, with the settings s, on standIns where they are
// not nil (already started, the SDK's configuration pointed at them), with the plan livePlans has
// for planKey on the GetItem function in l at s.
func openLive(t *testing.T, s settings.Settings, standIns *standIns, planKey string, l lambdazip.Language) *livePlatform {
	t.Helper()
	needLinux(t)
	mode, api := results.ModeLive, "AWS Lambda"
	if standIns != nil {
		mode, api = results.ModeLiveStandIn, "this repository's stand-ins: harness/standin/lambdaapi (the emulator and the local CPU model behind Lambda's API), harness/standin/iamstub, dynalite behind TLS"
	} else if os.Getenv(live.EnvLambdaEndpoint) != "" {
		api = "the Lambda-compatible endpoint " + live.EnvLambdaEndpoint + " names"
	}
	c, err := live.ConfigFromEnv()
	require.NoError(t, err, "the live mode's settings")
	awsCfg, err := live.LoadAWS(t.Context(), c)
	if err != nil && mode == results.ModeLive {
		t.Skipf("live mode needs an AWS configuration: %v", err)
	}
	require.NoError(t, err, "the SDK's configuration, pointed at the stand-ins")

	plan, ok := livePlans(withColdStartsFor(s, l), l)[planKey]
	require.True(t, ok, "%s has no entry in livePlans: its cost cannot be estimated before it runs", planKey)
	if c.Ledger == "" {
		// With a ledger (CLAIMS_LIVE_LEDGER) the session subtracts what the whole run billed,
		// this binary's earlier tests included; without one, this binary's tally is the run's.
		spent.Lock()
		c.MaxUSD -= spent.usd
		spent.Unlock()
	}
	if c.MaxUSD <= 0 {
		t.Fatalf("live mode: the runs before %s billed the whole cap (%s): not starting it", t.Name(), live.EnvMaxUSD)
	}
	session, err := live.Open(t.Context(), c, awsCfg)
	require.NoError(t, err)
	p := &livePlatform{t: t, s: session, mode: mode, api: api, plan: plan, standIns: standIns, language: l, settings: s}
	p.estimate = live.EstimateCost(session.Region, c.Arch, plan, dynamoReads(plan))
	t.Cleanup(p.close)
	var admitted strings.Builder
	err = session.Admit(p.estimate, &admitted)
	t.Log(strings.TrimRight(admitted.String(), "\n"))
	require.NoError(t, err, "the estimate of %s", t.Name())
	return p
}

// close deletes what the session made (and, on the stand-ins, checks that they hold nothing
// more), adds its bill to the binary's, and checks the plan: a claim that makes or invokes more
// than its entry in livePlans says was run without its cost being shown first.
func (p *livePlatform) close() {
	t := p.t
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout(t))
	defer cancel()
	assert.NoError(t, p.s.Close(ctx), "deleting what the run made")
	if p.standIns != nil {
		p.standIns.assertNothingLeft(t)
	}
	spent.Lock()
	spent.usd += p.s.Spent()
	spent.Unlock()
	planned := 0
	for _, f := range p.plan {
		planned += f.Invocations
	}
	assert.LessOrEqual(t, len(p.functions), len(p.plan), "functions made = %d; want at most the %d of livePlans", len(p.functions), len(p.plan))
	assert.LessOrEqual(t, p.invokes, planned, "invocations = %d; want at most the %d of livePlans", p.invokes, planned)
	assert.LessOrEqual(t, p.s.Spent(), p.estimate.USD, "billed $%.6f; want at most the estimate $%.6f", p.s.Spent(), p.estimate.USD)
	t.Logf("live run %s: %d functions, %d invocations, billed $%.6f of an estimated $%.6f", p.s.RunID, len(p.functions), p.invokes, p.s.Spent(), p.estimate.USD)
}

// closeTimeout bounds a test's deletions: 5 minutes, and never past its deadline (go test
// -timeout), whose panic would run no cleanup at all; the cold starts stop stopMargin before it.
func closeTimeout(t *testing.T) time.Duration {
	limit := 5 * time.Minute
	if d, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(d)-5*time.Second)
	}
	return max(limit, time.Second)
}

// topName is the test's top-level name, livePlans' key.
func topName(t *testing.T) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return name
}

// liveTestOf is the name of this package's live claim test that decides exactly c's claims, as
// catalog.Tests lists it: livePlans' key, so that no test name is typed again here. It is ""
// where the catalog lists none (TestLivePlansAreTheLiveClaimTests then fails).
func liveTestOf(c claimtest.Claim) string {
	for _, ct := range catalog.Tests() {
		if ct.Package == "coldstart" && ct.Kind == catalog.Both && slices.Equal(ct.Claims, c.IDs) {
			return ct.Name
		}
	}
	return ""
}

// Mode implements claimtest.Target.
func (p *livePlatform) Mode() string { return p.mode }

// Machine implements machineNamer: Lambda's, in its architecture; the stand-ins run the
// functions on this machine.
func (p *livePlatform) Machine() string {
	if p.mode == results.ModeLiveStandIn {
		return runtime.GOARCH + ", " + results.Fingerprint().CPUModel
	}
	return "AWS Lambda " + p.s.Config.Arch
}

// Language implements lambdaPlatform.
func (p *livePlatform) Language() lambdazip.Language {
	if p.language == "" {
		return lambdazip.Go
	}
	return p.language
}

// Settings implements lambdaPlatform.
func (p *livePlatform) Settings() settings.Settings { return p.settings }

// Create implements lambdaPlatform: the function's zip for the run's architecture, its role and,
// where it reads DynamoDB, the table with the item, then the function, Active.
func (p *livePlatform) Create(t *testing.T, c family.Function) function {
	t.Helper()
	if p.standIns != nil && p.standIns.noQuota != nil && !c.Unthrottled {
		t.Skipf("the Lambda stand-in runs %s under its memory size's CPU quota, a cgroup, and none can be made on this machine: %v", c, p.standIns.noQuota)
	}
	arch, err := lambdazip.ParseArch(p.s.Config.Arch)
	require.NoError(t, err)
	var tags []string
	if c.Build.Tags != "" {
		tags = append(tags, c.Build.Tags)
	}
	pkg, err := lambdazip.Build(c.Build.Package, arch, tags...)
	require.NoError(t, err, "packaging %s", c.Build.Package)
	zip, err := pkg.Bytes()
	require.NoError(t, err)
	env := map[string]string{}
	if c.DynamoDB {
		if p.table == "" {
			p.table, err = p.s.Table(t.Context(), map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: itemKey["pk"]},
				"claim": &types.AttributeValueMemberS{Value: "T1"},
			})
			require.NoError(t, err)
		}
		key, _ := json.Marshal(itemKey)
		env["CLAIMS_TABLE"], env["CLAIMS_KEY"] = p.table, string(key)
	}
	maps.Copy(env, functions.LambdaEnv(pkg.Language))
	for k, v := range c.Env {
		env[k] = v
	}
	memory := c.MemoryMB
	if c.Unthrottled {
		memory = unthrottledMB
	}
	p.mu.Lock()
	short := fmt.Sprintf("%s-%d-%d", strings.TrimPrefix(c.Build.Package, "functions/"), memory, len(p.functions)+1)
	p.mu.Unlock()
	fn, err := p.s.CreateFunction(t.Context(), live.FunctionSpec{Name: short, Zip: zip, Runtime: pkg.Runtime, Handler: pkg.Handler,
		MemoryMB: memory, TimeoutSeconds: functionTimeoutSeconds, Env: env})
	require.NoError(t, err)
	f := &liveFunction{p: p, f: fn, cfg: c, pkg: pkg}
	p.mu.Lock()
	p.functions = append(p.functions, f)
	p.mu.Unlock()
	t.Cleanup(func() { assert.NoError(t, f.Delete()) })
	return f
}

// liveFunction is a function on the live platform.
type liveFunction struct {
	p   *livePlatform
	f   *live.Function
	cfg family.Function
	pkg lambdazip.Package
}

// ColdStart implements function: a change of the function's configuration, which retires its
// execution environments, waited for; it carries the platform's outage to the warm-up (T4).
func (f *liveFunction) ColdStart(ctx context.Context) error {
	return f.f.ColdStartWith(ctx, map[string]string{"CLAIMS_WARMUP_OUTAGE": string(f.p.outage)})
}

// Invoke implements function.
func (f *liveFunction) Invoke(ctx context.Context, event []byte) (invocation, error) {
	f.p.mu.Lock()
	f.p.invokes++
	f.p.mu.Unlock()
	inv, err := f.f.Invoke(ctx, event)
	if err != nil {
		return invocation{}, err
	}
	out := invocation{Status: inv.Status, Payload: inv.Payload, Report: inv.Report, ClientMs: inv.ClientMs, Attempts: inv.Attempts}
	if inv.FunctionError != "" {
		// Lambda's answer to a failed function is its error object: keep its message.
		var e struct {
			Type    string `json:"errorType"`
			Message string `json:"errorMessage"`
		}
		_ = json.Unmarshal(inv.Payload, &e)
		out.Error = strings.TrimSuffix(fmt.Sprintf("%s: %s %s", inv.FunctionError, e.Type, e.Message), " ")
	}
	return out, nil
}

// Timeout implements function: every live function's (functionTimeoutSeconds).
func (f *liveFunction) Timeout() time.Duration { return functionTimeoutSeconds * time.Second }

// Delete implements function.
func (f *liveFunction) Delete() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return f.f.Delete(ctx)
}

// BreakDynamoDB implements dynamoOutage: from the next cold start, the warm-up goes to an
// endpoint inside the function's sandbox that refuses or stalls (functions/getitem).
func (p *livePlatform) BreakDynamoDB(how family.Outage) error {
	if how != family.Refused && how != family.Stalled {
		return fmt.Errorf("outage %q; want %q or %q", how, family.Refused, family.Stalled)
	}
	p.outage = how
	return nil
}

// RestoreDynamoDB implements dynamoOutage: the next cold starts' warm-ups go to DynamoDB again.
func (p *livePlatform) RestoreDynamoDB() error {
	p.outage = ""
	return nil
}

// OutageReachesHandler implements dynamoOutage: only the warm-up meets the outage on Lambda.
func (p *livePlatform) OutageReachesHandler() bool { return false }

// liveRecord is the live platform as a result records it (target.platform): where it ran, what
// it made (ARNs without the account id) and what it cost. No credential is ever part of it.
type liveRecord struct {
	API          string               `json:"api"`
	Region       string               `json:"region"`
	Architecture string               `json:"architecture"`
	Runtime      string               `json:"runtime"`
	RunID        string               `json:"runId"`
	Functions    []liveFunctionRecord `json:"functions"`
	Table        string               `json:"table,omitempty"`
	Estimate     live.Estimate        `json:"estimate"`
	BilledUSD    float64              `json:"billedUsd"`
	// CPU says whose CPU model the functions ran under.
	CPU        string `json:"cpu"`
	InitSource string `json:"initSource"`
}

// liveFunctionRecord is one function the run made.
type liveFunctionRecord struct {
	Name          string `json:"name"`
	ARN           string `json:"arn"`
	MemoryMB      int    `json:"memoryMB"`
	Package       string `json:"package"`
	Runtime       string `json:"runtime"`
	Tags          string `json:"tags,omitempty"`
	ZipSHA256     string `json:"zipSha256"`
	TimeoutSecond int    `json:"timeoutSeconds"`
}

// MarshalJSON records the platform as liveRecord.
func (p *livePlatform) MarshalJSON() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := liveRecord{API: p.api, Region: p.s.Region, Architecture: p.s.Config.Arch, Runtime: p.Language().Runtime(), RunID: p.s.RunID,
		Table: p.table, Estimate: p.estimate, BilledUSD: p.s.Spent(),
		CPU:        "Lambda's: memory / 1769 MB of a vCPU",
		InitSource: "the function's own measure (initMs); the REPORT's Init Duration is kept beside it (report.initMs)"}
	if p.mode == results.ModeLiveStandIn {
		r.CPU = fmt.Sprintf("the local model behind the Lambda API stand-in: memory / 1769 MB of one CPU per %v CFS period, Init with at least %g CPU", p.settings.CPUPeriod, initBurstShare)
	}
	for _, f := range p.functions {
		r.Functions = append(r.Functions, liveFunctionRecord{Name: f.f.Name, ARN: live.RedactARN(f.f.ARN), MemoryMB: f.f.MemoryMB,
			Package: f.cfg.Build.Package, Runtime: f.pkg.Runtime, Tags: f.cfg.Build.Tags, ZipSHA256: f.pkg.SHA256, TimeoutSecond: functionTimeoutSeconds})
	}
	return json.Marshal(r)
}

// livePlans is what each claim test makes and invokes on the live platform, from the same
// settings and constants the claims run with: the estimate is shown, and checked against the
// cap, before anything is made, and each test's close checks that it made no more. Each plan is
// keyed by the test that decides its claim (liveTestOf).
func livePlans(s settings.Settings, l lambdazip.Language) map[string][]live.PlannedFunction {
	getitemFn := func(name string, memory, invocations int) live.PlannedFunction {
		return live.PlannedFunction{Name: name, MemoryMB: memory, Invocations: invocations, MaxSecondsEach: getitemMaxSeconds}
	}
	// Each cold start of runColdStart invokes twice, and runPhases makes one function per arm.
	twice := 2 * s.ColdStarts
	t1 := []live.PlannedFunction{
		getitemFn("getitem cold 128 MB", memoryMB, t1ColdStarts*twice),
		getitemFn("getitem cold, unthrottled", unthrottledMB, t1ColdStarts*twice),
	}
	if t1ArticleArm(l) {
		t1 = append(t1, getitemFn("getitem article 128 MB", memoryMB, t1ColdStarts*twice))
	}
	var t5, t8, t9 []live.PlannedFunction
	for _, mb := range scalingSizes {
		t5 = append(t5, getitemFn(fmt.Sprintf("getitem cold %d MB", mb), mb, twice))
	}
	for _, mb := range throttleSizes {
		t8 = append(t8, live.PlannedFunction{Name: fmt.Sprintf("throttle %d MB", mb), MemoryMB: mb, Invocations: throttleInvocations, MaxSecondsEach: throttleMaxSeconds})
	}
	for _, mb := range initBurstSizes {
		t9 = append(t9, getitemFn(fmt.Sprintf("getitem cold %d MB", mb), mb, twice))
	}
	return map[string][]live.PlannedFunction{
		liveTestOf(ownConnectionClaim):   {getitemFn("getitem cold", unthrottledMB, 2*s.Trials)},
		liveTestOf(warmupFailureClaim):   {getitemFn("getitem warm", unthrottledMB, 2*s.Trials)},
		liveTestOf(firstCallClaim):       t1,
		liveTestOf(firstInvocationClaim): {getitemFn("getitem cold 128 MB", memoryMB, s.ColdStarts*(1+warmInvocationsT2))},
		liveTestOf(warmupClaim): {
			getitemFn("getitem cold 128 MB", memoryMB, twice),
			getitemFn("getitem warm 128 MB", memoryMB, twice),
		},
		liveTestOf(scalingClaim):   t5,
		liveTestOf(throttleClaim):  t8,
		liveTestOf(initBurstClaim): t9,
	}
}

// TestLivePlansAreTheLiveClaimTests: livePlans plans the claim tests that catalog.Tests says run
// through the live mode's code, each of them and no other, so that the estimate counts every
// function a live run makes: a live claim test whose claim has no plan fails it, and so does a
// plan whose claim the catalog gives no live test ("").
func TestLivePlansAreTheLiveClaimTests(t *testing.T) {
	var want []string
	for _, ct := range catalog.Tests() {
		if ct.Package == "coldstart" && ct.Kind == catalog.Both {
			want = append(want, ct.Name)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(livePlans(claimtest.Settings(t), lambdazip.Go)))
	assert.Equal(t, want, got, "livePlans' tests = %v; want catalog.Tests of experiments/coldstart of kind both", got)
}

// dynamoReads is the GetItems and ListTables a plan's getitem invocations make: at most one of
// each per invocation.
func dynamoReads(plan []live.PlannedFunction) int {
	n := 0
	for _, f := range plan {
		if strings.HasPrefix(f.Name, "getitem") {
			n += 2 * f.Invocations
		}
	}
	return n
}

// admitLiveRun runs before any test: it prints every live claim test's plan and estimate, and
// refuses the run, before anything is made, when the estimate is above the cap.
func admitLiveRun(s settings.Settings) error {
	c, err := live.ConfigFromEnv()
	if err != nil {
		return err
	}
	// Every language's function for the run's architecture, before anything is made: a
	// language this machine cannot build would fail its tests after others made theirs.
	arch, err := lambdazip.ParseArch(c.Arch)
	if err != nil {
		return err
	}
	var unbuildable []error
	for _, l := range lambdazip.Languages {
		if err := lambdazip.CanBuild(l, arch); err != nil {
			unbuildable = append(unbuildable, fmt.Errorf("live mode: the %s function cannot be built for %s here: %w", l, arch, err))
		}
	}
	if err := errors.Join(unbuildable...); err != nil {
		return err
	}
	region := standInRegion
	if os.Getenv(standInEnv) != "1" {
		// The region the default chain names; no credentials are needed for an estimate.
		awsCfg, err := config.LoadDefaultConfig(context.Background())
		if err != nil || awsCfg.Region == "" {
			return nil // each test skips, saying what is missing
		}
		region = awsCfg.Region
	}
	var all []live.PlannedFunction
	throttle := liveTestOf(throttleClaim) // Go's alone, whatever the language
	for _, l := range lambdazip.Languages {
		// A claim test runs its plan once per language of the GetItem function (platforms),
		// with that language's cold starts; T8's busy loop is Go's alone, a test of its own.
		for test, plan := range livePlans(withColdStartsFor(s, l), l) {
			if test == throttle && l == lambdazip.Go && selected(test) || test != throttle && selected(test, string(l)) {
				all = append(all, plan...)
			}
		}
	}
	e := live.EstimateCost(region, c.Arch, all, dynamoReads(all))
	fmt.Printf("live mode: the live claim tests this run selects would make %d functions:\n", len(all))
	for _, l := range e.Lines {
		fmt.Printf("  %s\n", l)
	}
	fmt.Printf("estimate: $%.4f at most (%s); cap $%.2f (%s)\n", e.USD, e.PriceTable, c.MaxUSD, live.EnvMaxUSD)
	timeout, err := time.ParseDuration(flagValue("test.timeout"))
	if err != nil {
		return fmt.Errorf("live mode: go test's -timeout %q: %w", flagValue("test.timeout"), err)
	}
	for _, l := range plannedTime(s, timeout) {
		fmt.Println(l)
	}
	if e.USD > c.MaxUSD {
		return fmt.Errorf("the estimate $%.4f is above the cap $%.2f: nothing was made; raise %s to run it", e.USD, c.MaxUSD, live.EnvMaxUSD)
	}
	return nil
}
