//go:build lambda

package eventloop

// The Web Functions claims (W6-W9, W12): how a Lambda Web Function's endpoint routes requests
// across its execution environments, and what that does to a /ping sent while a /cpu spins. They
// need more than one environment, so they run only with the lambda build tag: against deployed
// Web Functions (webendpoints: `make live-web-deploy`, or CLAIMS_WEB_*_URL), or, with
// CLAIMS_LIVE_STANDIN=1 (what `make test` does), against harness/standin/webrouter, a stand-in endpoint
// with probe processes as its environments. Its results say mode local-router and go under
// results/local-router: they prove the measuring and deciding, never Lambda's routing.
//
// Which environment answered is read from the platform's lambda-web-logstream header; the
// probe's own envId cross-checks it (W9), and only answers of one environment, by both, are
// compared on that environment's clock.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/standin/webrouter"
	"github.com/serverless-claims/claims/harness/workload/probe"
	"github.com/serverless-claims/claims/harness/workload/target"
	"github.com/serverless-claims/claims/results/family"
)

// standInEnv, set to 1, runs the Web Functions claims against the local router.
const standInEnv = "CLAIMS_LIVE_STANDIN"

// The stand-in endpoint's static test keys and region: the router checks every signature against
// them, as Lambda checks a request against IAM.
const (
	standInKeyID  = "AKIDCLAIMSWEBROUTER0"
	standInSecret = "claims-web-router-test-secret-not-a-credential"
	standInRegion = "us-east-1"
)

// standInOmitLogstreamEvery is how often the local router leaves lambda-web-logstream off an
// answer in the claims' runs: Lambda documents the header as present only sometimes ("When
// present", web-functions-troubleshooting), so the claims must hold without it on some answers.
const standInOmitLogstreamEvery = 3

// webPlatform gives a routing claim its Web Function endpoints.
type webPlatform interface {
	// endpoint returns the Web Function of runtime (node or go) whose environments take at most
	// conc requests each (0: the platform's default).
	endpoint(t *testing.T, runtime string, conc int) *web
}

// webFunctions are the modes (claimtest.Run) of the Web Functions of each of runtimes on the
// platform p, each named by its runtime and at the platform's default maxConcurrencyPerEnvironment.
func webFunctions(p webPlatform, runtimes ...string) []claimtest.Mode[*web] {
	modes := make([]claimtest.Mode[*web], len(runtimes))
	for i, rt := range runtimes {
		modes[i] = claimtest.Mode[*web]{Name: rt, Start: func(t *testing.T) *web { return p.endpoint(t, rt, 0) }}
	}
	return modes
}

// function is the Web Function that w is an endpoint of, as its result records it: its runtime,
// and on the local router what the router does (Router; nil on AWS).
func function(t testing.TB, w *web) family.WebFunction {
	t.Helper()
	f, ok := w.about.(family.WebFunction)
	require.True(t, ok, "target = %T; want a Web Function's endpoint (%T)", w.about, f)
	return f
}

// platform is where the routing claims run: the local router with CLAIMS_LIVE_STANDIN=1, else
// the deployed endpoints; without either the test skips, naming what is missing.
func platform(t *testing.T) webPlatform {
	t.Helper()
	if os.Getenv(standInEnv) == "1" {
		return localRouter{policy: webrouter.LeastBusy, omitLogstreamEvery: standInOmitLogstreamEvery}
	}
	p, missing, err := deployed(t.Context())
	if missing != "" {
		t.Skip(missing)
	}
	require.NoError(t, err)
	return p
}

// deployed is the platform of the deployed endpoints, or what is missing to reach them (no
// endpoints; no AWS configuration to sign with, where an endpoint takes only signed requests).
func deployed(ctx context.Context) (p liveWeb, missing string, err error) {
	d, err := webendpoints.Load()
	if errors.Is(err, webendpoints.ErrNoEndpoints) {
		return liveWeb{}, fmt.Sprintf("the Web Functions claims need deployed endpoints: %v (or CLAIMS_LIVE_STANDIN=1 for the local router)", err), nil
	}
	if err != nil {
		return liveWeb{}, "", fmt.Errorf("reading the Web Function endpoints: %w", err)
	}
	if !signsAny(d) {
		// An ApplicationManaged endpoint takes unsigned requests: nothing of AWS is needed.
		return liveWeb{d: d}, "", nil
	}
	c, err := live.ConfigFromEnv()
	if err != nil {
		return liveWeb{}, "", fmt.Errorf("the live mode's settings: %w", err)
	}
	awsCfg, err := live.LoadAWS(ctx, c)
	if err != nil {
		return liveWeb{}, fmt.Sprintf("the Web Functions claims on AWS need an AWS configuration to sign with: %v", err), nil
	}
	return liveWeb{d: d, creds: awsCfg.Credentials, region: awsCfg.Region}, "", nil
}

// signsAny reports whether any endpoint of d takes only SigV4-signed requests (IamAuth).
func signsAny(d webendpoints.Deployment) bool {
	return slices.ContainsFunc(d.Endpoints, func(e webendpoints.Endpoint) bool { return e.Auth != webendpoints.AuthPublic })
}

// localRouter is the stand-in platform: two probe processes behind harness/standin/webrouter, which
// throttles a request no environment has a slot for.
type localRouter struct {
	policy webrouter.Policy
	// cpuBusyLimit and omitLogstreamEvery are webrouter.Config's CPUBusyLimit and
	// OmitLogstreamEvery: Lambda's lower limit under high CPU, and answers without a logstream.
	cpuBusyLimit           int
	omitLogstreamEvery     int
	ignoreConcurrencyLimit bool
	swapLogstreams         bool
	// youngLimit and matureAfter are webrouter.Config's YoungLimit and MatureAfter: a new
	// endpoint's low limit, growing with the requests it serves (youngLimit is capped at the
	// endpoint's setting).
	youngLimit, matureAfter int
	// environments is the endpoint's maxEnvironments (0: the article's), of which
	// initialEnvironments (webrouter.Config's InitialEnvironments, 0: all) take requests from the
	// start, the others as the running ones fill.
	environments, initialEnvironments int
	node                              func(t *testing.T) *probe.Probe // nil: the built-in Node probe
	broken                            string                          // what this platform breaks on purpose
}

// environments is the article's maxEnvironments, the minimum Lambda allows.
const environments = webendpoints.MaxEnvironments

func (l localRouter) endpoint(t *testing.T, runtime string, conc int) *web {
	t.Helper()
	n := cmp.Or(l.environments, environments)
	young := min(l.youngLimit, cmp.Or(conc, webrouter.DefaultMaxConcurrency))
	rc := webrouter.Config{
		Policy: l.policy, MaxConcurrencyPerEnvironment: conc, CPUBusyLimit: l.busyLimit(conc), OmitLogstreamEvery: l.omitLogstreamEvery,
		IgnoreConcurrencyLimit: l.ignoreConcurrencyLimit, SwapLogstreams: l.swapLogstreams,
		YoungLimit: young, MatureAfter: l.matureAfter, InitialEnvironments: l.initialEnvironments,
		Keys: sigv4check.Keys{standInKeyID: standInSecret}, Region: standInRegion,
	}
	about := family.WebFunction{
		Runtime: runtime, Endpoint: "local router", Auth: webendpoints.AuthIAM, MaxEnvironments: n,
		MaxConcurrencyPerEnvironment: cmp.Or(conc, webrouter.DefaultMaxConcurrency),
		Router: &family.Router{
			Policy: string(l.policy), CPUBusyLimit: l.busyLimit(conc), OmitLogstreamEvery: l.omitLogstreamEvery,
			IgnoreConcurrencyLimit: l.ignoreConcurrencyLimit, SwapLogstreams: l.swapLogstreams,
			YoungLimit: young, MatureAfter: l.matureAfter, InitialEnvironments: l.initialEnvironments,
		},
	}
	var first *probe.Probe
	for range n {
		p := l.start(t, runtime)
		if first == nil {
			first = p
		}
		rc.Environments = append(rc.Environments, webrouter.Environment{Addr: p.Ready.Addr, Logstream: webrouter.NewLogstream()})
		about.Probes = append(about.Probes, p.Info)
	}
	r, err := webrouter.Start(rc)
	require.NoError(t, err, "starting the local router")
	t.Cleanup(func() { _ = r.Close() })
	tgt, err := target.NewWeb(r.URL(), target.WebOptions{
		Credentials: credentials.NewStaticCredentialsProvider(standInKeyID, standInSecret, ""),
		Region:      standInRegion, RootCAs: r.RootCAs(),
	})
	require.NoError(t, err)
	t.Cleanup(tgt.Close)
	return &web{endpoints: tgt, mode: results.ModeLocalRouter, about: about, env: environmentOf(first), broken: l.broken}
}

// busyLimit is cpuBusyLimit for an endpoint of conc slots: the dynamic limit never exceeds
// maxConcurrencyPerEnvironment.
func (l localRouter) busyLimit(conc int) int {
	return min(l.cpuBusyLimit, cmp.Or(conc, webrouter.DefaultMaxConcurrency))
}

// start starts one environment's probe.
func (l localRouter) start(t *testing.T, runtime string) *probe.Probe {
	t.Helper()
	switch {
	case runtime == webendpoints.Go:
		return startGo(t, goPreemptive)
	case l.node != nil:
		return l.node(t)
	default:
		return startNode(t)
	}
}

// liveWeb is the deployed platform.
type liveWeb struct {
	d      webendpoints.Deployment
	creds  aws.CredentialsProvider
	region string
}

func (l liveWeb) endpoint(t *testing.T, runtime string, conc int) *web {
	t.Helper()
	name := runtime
	if conc == 1 && runtime == webendpoints.Go {
		name = webendpoints.GoConc1
	} else if conc != 0 {
		t.Fatalf("no deployed %s endpoint with maxConcurrencyPerEnvironment %d (the deploy makes 1 for Go, and the default)", runtime, conc)
	}
	e, ok := l.d.Endpoint(name)
	if !ok {
		t.Skipf("no %q endpoint in %s: set %s or deploy with `make live-web-deploy`", name, l.d.Source, webendpoints.URLEnv[name])
	}
	o := target.WebOptions{}
	if e.Auth != webendpoints.AuthPublic {
		o.Credentials, o.Region = l.creds, cmp.Or(e.Region, l.region)
	}
	tgt, err := target.NewWeb(e.URL, o)
	require.NoError(t, err)
	t.Cleanup(tgt.Close)
	env := results.Fingerprint()
	about := family.WebFunction{
		Runtime: runtime, Endpoint: cmp.Or(e.Function, e.Name), Region: o.Region, Auth: e.Auth,
		MaxEnvironments: e.MaxEnvironments, MaxConcurrencyPerEnvironment: e.MaxConcurrencyPerEnvironment,
	}
	return &web{endpoints: tgt, mode: results.ModeLive, about: about, env: env}
}
