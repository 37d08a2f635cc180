package functions_test

// The GetItem function in every language gives the one answer the cold-start claims read
// (results/family/getitem): each is built as Lambda takes it (harness/lambda/lambdazip), run by
// the emulator (its managed runtime's stand-in where it has one) with the machine's CPU, against
// dynalite behind TLS, and asked what the claims ask of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/dynalite"
	"github.com/serverless-claims/claims/harness/standin/managedruntime"
	"github.com/serverless-claims/claims/harness/standin/tlsca"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/results/family/getitem"
)

func TestMain(m *testing.M) {
	if err := provision.Ensure(context.Background(), os.Stderr, provision.NeedDynalite, provision.NeedNode24, provision.NeedRust, provision.NeedPython, provision.NeedFunctionChecks); err != nil {
		os.Stderr.WriteString("functions: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// answer is what every GetItem function answers: results' Answer, with the connection's details
// and the warm-up's phases, as functions/getitem's response has them.
type answer struct {
	getitem.Answer
	getitem.Connection
	Warmup *struct {
		getitem.Call
		getitem.Connection
	} `json:"warmup,omitempty"`
}

// stand is the DynamoDB stand-in with the claims' table and item, and the environment a
// function in each language reads it with.
type stand struct {
	db    *dynalite.Server
	trust string
	empty string
}

const (
	table  = "claims"
	region = "us-east-1"
)

func startStand(t *testing.T) *stand {
	t.Helper()
	db := dynalite.Start(t, dynalite.Options{})
	dynalite.Seed(t, db.Client(region, "claims-local", "claims-local-secret"), table, "pk", map[string]string{"pk": "bench", "claim": "T1"})
	trust, err := db.CA.WriteBundle(filepath.Join(t.TempDir(), "trust.pem"), tlsca.SystemBundleFiles)
	require.NoError(t, err)
	return &stand{db: db, trust: trust.Path, empty: t.TempDir()}
}

// env is the environment of a function in l, variant, with more settings.
func (s *stand) env(l lambdazip.Language, variant string, more map[string]string) map[string]string {
	env := map[string]string{
		"CLAIMS_VARIANT": variant, "CLAIMS_TABLE": table, "CLAIMS_KEY": `{"pk":"bench"}`,
		"AWS_ENDPOINT_URL_DYNAMODB": s.db.Endpoint, "AWS_REGION": region,
		"AWS_ACCESS_KEY_ID": "claims-local", "AWS_SECRET_ACCESS_KEY": "claims-local-secret",
	}
	for k, v := range functions.TrustEnv(l, s.trust, s.db.CAFile, s.empty) {
		env[k] = v
	}
	for k, v := range more {
		env[k] = v
	}
	return env
}

// nativeArch is this machine's architecture as Lambda names it.
func nativeArch(t *testing.T) lambdazip.Arch {
	t.Helper()
	switch runtime.GOARCH {
	case "amd64":
		return lambdazip.X8664
	case "arm64":
		return lambdazip.ARM64
	}
	t.Skipf("functions run on x86_64 or arm64 Linux; this machine is %s", runtime.GOARCH)
	return ""
}

// environment starts one execution environment of the GetItem function in l, built with tags,
// with env.
func environment(t *testing.T, l lambdazip.Language, env map[string]string, tags ...string) *lambdalocal.Environment {
	t.Helper()
	pkg, err := functions.GetItem(l)
	require.NoError(t, err)
	p, err := lambdazip.Unzipped(pkg, nativeArch(t), tags...)
	require.NoError(t, err, "building %s", pkg)
	bootstrap, rtEnv, err := managedruntime.Bootstrap(t.Context(), p.Runtime, p.Handler, p.Dir, t.TempDir())
	require.NoError(t, err)
	for k, v := range rtEnv {
		env[k] = v
	}
	return lambdalocal.Start(t, lambdalocal.Options{Bootstrap: bootstrap, Env: env, MemoryMB: 1769})
}

// invoke sends one event; ok says the function answered with its JSON.
func invoke(t *testing.T, e *lambdalocal.Environment) (answer, lambdalocal.Invocation, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	inv, err := e.Invoke(ctx, []byte(`{}`))
	require.NoError(t, err)
	var a answer
	ok := inv.Failure == "" && inv.Status == http.StatusOK && json.Unmarshal(inv.Body, &a) == nil && a.Invocation > 0
	return a, inv, ok
}

// mustAnswer is invoke for an invocation that must be the function's answer.
func mustAnswer(t *testing.T, e *lambdalocal.Environment) answer {
	t.Helper()
	a, inv, ok := invoke(t, e)
	require.True(t, ok, "invocation = status %d, failure %q, body %.500s; want the function's answer", inv.Status, inv.Failure, inv.Body)
	return a
}

// Reuse is looked for in a few calls, or in the first calls of a few environments, not in one.
// A connection goes back to its pool only when the stack gets to it in time: net/http's only if
// its writing goroutine reports within 50 ms of the response's end (maxWriteWaitBeforeConnReuse),
// hyper-util's (Rust) from a task that runs a moment after the body's end and races the next
// call's connect. A busy machine loses either race now and then; a handler that does not keep
// its connection, or does not share the warm-up's, loses it every time.
const (
	callsForReuse   = 5
	warmUpsForReuse = 3
)

// assertKeepsItsConnection checks that the function keeps its connection between calls: a call
// after the first in e goes out on an earlier call's connection, with no handshake. made is the
// calls made so far, in order; more are made, up to callsForReuse in all.
func assertKeepsItsConnection(t *testing.T, e *lambdalocal.Environment, made ...answer) {
	t.Helper()
	var missed []string
	for i := 1; i < callsForReuse; i++ {
		if i == len(made) {
			made = append(made, mustAnswer(t, e))
		}
		if made[i].Reused {
			assert.Zero(t, made[i].TLSMs, "call %d's tlsMs on a kept connection", i+1)
			return
		}
		missed = append(missed, fmt.Sprintf("call %d (the one before pooled = %t)", i+1, made[i-1].Pooled))
		t.Logf("call %d made its own connection (the one before pooled = %t); calling again", i+1, made[i-1].Pooled)
	}
	assert.Failf(t, "no connection kept", "calls after the first on an earlier call's connection = 0/%d; want at least one (%s)", callsForReuse-1, strings.Join(missed, ", "))
}

// assertFirstCallReusesTheWarmUps checks T3's mechanism in l: the handler's first call goes out
// on the warm-up's connection, with no handshake, in one of up to warmUpsForReuse environments
// of the warm variant.
func assertFirstCallReusesTheWarmUps(t *testing.T, s *stand, l lambdazip.Language) {
	t.Helper()
	var missed []string
	for i := range warmUpsForReuse {
		first := mustAnswer(t, environment(t, l, s.env(l, "warm", nil)))
		require.NotNil(t, first.Warmup, "warm-up")
		require.Empty(t, first.Warmup.Error, "warm-up's error")
		require.Greater(t, first.Warmup.TLSMs, 0.0, "warm-up's tlsMs")
		assert.True(t, first.Found)
		if first.Reused {
			assert.Zero(t, first.TLSMs, "first call's tlsMs on the warm-up's connection")
			return
		}
		missed = append(missed, fmt.Sprintf("environment %d (warm-up pooled = %t)", i+1, first.Warmup.Pooled))
		t.Logf("environment %d: the first call made its own connection (warm-up pooled = %t); starting another", i+1, first.Warmup.Pooled)
	}
	assert.Failf(t, "warm-up's connection not reused", "first calls on the warm-up's connection = 0/%d environments; want at least one (%s)", warmUpsForReuse, strings.Join(missed, ", "))
}

// TestEveryGetItemAnswersAlike runs each language's function through what the claims ask of it.
func TestEveryGetItemAnswersAlike(t *testing.T) {
	s := startStand(t)
	for _, l := range lambdazip.Languages {
		t.Run(string(l), func(t *testing.T) {
			// The languages side by side: most of an environment's time is the emulator's and
			// the runtime's start, which overlap; nothing here is timed against a bound tighter
			// than seconds.
			t.Parallel()
			t.Run("cold", func(t *testing.T) {
				e := environment(t, l, s.env(l, "cold", nil))
				first := mustAnswer(t, e)
				assert.Equal(t, 1, first.Invocation, "first invocation's number")
				assert.Equal(t, "cold", first.Variant)
				assert.True(t, first.Found, "found = false; want the item (error %q)", first.Error)
				assert.Empty(t, first.Error)
				assert.False(t, first.Reused, "first call reused = true; want a new connection")
				assert.Equal(t, 1, first.Attempts, "attempts")
				assert.Greater(t, first.ConnectMs, 0.0, "connectMs")
				assert.Greater(t, first.TLSMs, 0.0, "tlsMs")
				assert.Greater(t, first.TLSCPUMs, 0.0, "tlsCpuMs")
				assert.Greater(t, first.TTFBMs, first.TLSMs, "ttfbMs = %v; want more than the handshake it holds (%v)", first.TTFBMs, first.TLSMs)
				assert.GreaterOrEqual(t, first.TotalMs, first.TTFBMs, "totalMs")
				assert.Greater(t, first.InitMs, 0.0, "initMs")
				assert.NotEmpty(t, first.InitFrom, "initFrom")
				assert.Greater(t, first.HandlerMs, 0.0, "handlerMs")
				assert.Greater(t, first.HandlerCPUMs, 0.0, "handlerCpuMs")
				assert.NotEmpty(t, first.TLSVersion, "tlsVersion")
				assert.Nil(t, first.Warmup, "the cold variant has no warm-up")
				if assert.NotNil(t, first.Stack, "stack") {
					assert.Equal(t, string(l), first.Stack.Language)
					for name, v := range map[string]string{"languageVersion": first.Stack.LanguageVersion, "sdk": first.Stack.SDK,
						"sdkVersion": first.Stack.SDKVersion, "tls": first.Stack.TLS, "tlsVersion": first.Stack.TLSVersion, "timed": first.Stack.Timed} {
						assert.NotEmpty(t, v, "stack.%s", name)
					}
					if l == lambdazip.Python {
						// boto3's version as the distribution packages it, which the bundle
						// vendored: dpkg's, asked here apart from the bundle's record.
						want := "python3-boto3 " + dpkgVersion(t, "python3-boto3") + " of "
						assert.Contains(t, first.Stack.SDKVersion, want, "stack.sdkVersion = %q; want Debian's package named (%s)", first.Stack.SDKVersion, want)
					}
				}
				second := mustAnswer(t, e)
				assert.Equal(t, 2, second.Invocation, "second invocation's number")
				assert.Equal(t, first.Pid, second.Pid, "second invocation's pid")
				assert.True(t, second.Found)
				assertKeepsItsConnection(t, e, first, second)
			})
			t.Run("warm", func(t *testing.T) { assertFirstCallReusesTheWarmUps(t, s, l) })
			for _, outage := range []string{"refused", "stalled"} {
				t.Run("warm-up "+outage, func(t *testing.T) {
					e := environment(t, l, s.env(l, "warm", map[string]string{"CLAIMS_WARMUP_OUTAGE": outage, "CLAIMS_WARMUP_TIMEOUT_MS": "300"}))
					first := mustAnswer(t, e)
					if assert.NotNil(t, first.Warmup, "warm-up") {
						assert.NotEmpty(t, first.Warmup.Error, "warm-up's error; want the outage's")
						// The warm-up's own time on the function's clock, the bound and three
						// seconds for a busy machine: a warm-up left unbounded waits on a stall for
						// far longer (aws-sdk-go-v2's TLS handshake timeout alone is 10 s). Init as a
						// whole also holds the process's start and the SDK's loading, which a machine
						// busy building (a runner's first make test) stretches past any such bound.
						assert.Less(t, first.Warmup.TotalMs, 300.0+3000, "warm-up totalMs = %v; want within its bound and three seconds (initMs %v)", first.Warmup.TotalMs, first.InitMs)
					}
					assert.True(t, first.Found, "found = false (error %q); want the handler's GetItem to reach DynamoDB", first.Error)
				})
			}
			t.Run("bad setting", func(t *testing.T) {
				e := environment(t, l, s.env(l, "lukewarm", nil))
				_, inv, ok := invoke(t, e)
				assert.False(t, ok, "CLAIMS_VARIANT=lukewarm answered %s; want Init to fail", inv.Body)
			})
			t.Run("missing item", func(t *testing.T) {
				e := environment(t, l, s.env(l, "cold", map[string]string{"CLAIMS_KEY": `{"pk":"nothing"}`}))
				a := mustAnswer(t, e)
				assert.False(t, a.Found, "found = true; want no item for pk=nothing")
				assert.Empty(t, a.Error)
			})
		})
	}
}

// TestEveryGetItemHasItsBrokenBuilds: each broken build breaks what it says, in every language.
func TestEveryGetItemHasItsBrokenBuilds(t *testing.T) {
	s := startStand(t)
	for _, l := range lambdazip.Languages {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel() // as in TestEveryGetItemAnswersAlike
			t.Run(functions.BrokenTrace, func(t *testing.T) {
				a := mustAnswer(t, environment(t, l, s.env(l, "cold", nil), functions.BrokenTrace))
				assert.True(t, a.Found)
				assert.Zero(t, a.TLSMs+a.ConnectMs, "first call's connect and TLS = %v, %v; want none traced", a.ConnectMs, a.TLSMs)
			})
			t.Run(functions.BrokenWarmClient, func(t *testing.T) {
				a := mustAnswer(t, environment(t, l, s.env(l, "warm", nil), functions.BrokenWarmClient))
				assert.True(t, a.Found)
				if assert.NotNil(t, a.Warmup) {
					assert.Empty(t, a.Warmup.Error)
				}
				assert.False(t, a.Reused, "first call reused = true; want a connection of its own")
				assert.Greater(t, a.TLSMs, 0.0, "first call's tlsMs")
			})
			t.Run(functions.BrokenWarmup, func(t *testing.T) {
				e := environment(t, l, s.env(l, "warm", map[string]string{"CLAIMS_WARMUP_OUTAGE": "refused"}), functions.BrokenWarmup)
				_, inv, ok := invoke(t, e)
				assert.False(t, ok, "a failed warm-up answered %s; want Init to fail", inv.Body)
			})
		})
	}
}

// dpkgVersion is the version of Debian package pkg that dpkg holds installed.
func dpkgVersion(t *testing.T, pkg string) string {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	require.NoError(t, err, "dpkg-query -W %s", pkg)
	require.NotEmpty(t, out, "dpkg-query -W %s: no version", pkg)
	return string(out)
}
