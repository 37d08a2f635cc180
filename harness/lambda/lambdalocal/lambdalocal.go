// Package lambdalocal runs a Lambda function locally the way Lambda runs it: its bootstrap under
// the official Runtime Interface Emulator (RIE, a tool directive in go.mod, built once per test
// binary), optionally inside a cgroup whose CPU quota is the share of a vCPU that the function's
// memory size gets on Lambda (harness/sys/cgroup), with Init's burst of CPU (initburst.go).
//
// One Environment is one execution environment: RIE initialises the function on the first
// invoke and never again, so every cold start is a fresh Environment. What the emulator cannot
// show, and results must say: its REPORT line puts Init Duration first and fakes the memory
// figures (Max Memory Used is Memory Size), and its Init Duration is a few hundredths of a
// millisecond whatever the runtime does: it times only its hand-off of Init to its sandbox,
// which returns before the runtime has run, and its cold Duration, whose clock starts right
// after, holds the whole Init (InitHandler and printEndReports in the emulator's
// internal/lambda/rie/handlers.go). The harness's own figures stand in for them, with
// Options.MeasureInit or InitShare: Environment.TakeInit, from the runtime's start to its first
// request for an event, and Environment.Handled, the handler's time on one event (initspan.go);
// and Environment.PeakMemory, the memory the environment's processes used at their peak
// (memorypeak.go). Work a runtime does lazily on the first invoke still lands in the first
// Duration, as on Lambda; the function's own measure of its Init stays the evidence the claims
// read.
package lambdalocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/loopback"
	"github.com/serverless-claims/claims/harness/sys/proc"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// EmulatorPackage is the emulator's command, required by go.mod's tool directive.
const EmulatorPackage = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"

// DefaultTimeout is a function's timeout (AWS_LAMBDA_FUNCTION_TIMEOUT, which the emulator applies to
// Init and to each invoke) where Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// invocationsPath is where RIE takes invokes, as Lambda's Invoke API names it.
const invocationsPath = "/2015-03-31/functions/function/invocations"

// Options say how to run the function.
type Options struct {
	// Bootstrap is the function's executable.
	Bootstrap string
	// Env is the function's configuration; nothing else reaches it but PATH and HOME.
	Env map[string]string
	// MemoryMB is the function's memory size, 128 to 10240; it sets
	// AWS_LAMBDA_FUNCTION_MEMORY_SIZE and, with Quota, the CPU share.
	MemoryMB int
	// Quota runs the emulator and the function in a cgroup with MemoryMB's CPU share.
	Quota bool
	// Period is the quota's CFS period; zero means cgroup.DefaultPeriod.
	Period time.Duration
	// Priority, without Quota, runs the emulator and the function in a cgroup whose quota is
	// every CPU this process may use, so never throttled, and whose weight is the largest, as a
	// quota's group has: an environment with the machine's CPU then competes with other work on
	// the machine as the environments under a quota do, and a comparison of the two stays fair
	// on a busy machine.
	Priority bool
	// InitShare, with Quota, is the CPU share Init runs with, in CPUs (1 is one whole CPU);
	// MemoryMB's share applies from the runtime's first request for an event, when Init is over
	// (initburst.go says why and how). Zero means no burst: MemoryMB's share from the start.
	InitShare float64
	// MeasureInit runs the runtime behind the harness's wrapper bootstrap and Runtime API proxy,
	// as InitShare does, so that TakeInit can say how long Init took; without it (and without
	// InitShare) the runtime is the emulator's child directly, and TakeInit has nothing to say.
	// It costs the runtime's start the run of a shell that execs it, and each request of the
	// runtime a hop through a loopback proxy.
	MeasureInit bool
	// Timeout is the function's timeout, in whole seconds from 1 s to settings.MaxFunctionTimeout,
	// as Lambda takes it; zero means DefaultTimeout. The emulator ends an invoke that outlasts it (and, in
	// the emulator of go.mod, cannot take the next invoke after: it panics, and the caller sees
	// EOF), so a machine much slower than the one the default was set for (an emulated CPU)
	// needs a longer one. It is no part of any claim.
	Timeout time.Duration
}

// Environment is one started execution environment.
type Environment struct {
	// Addr is the emulator's invoke address.
	Addr string
	// Group is the cgroup the environment runs in, or nil without a quota.
	Group *cgroup.Group
	// runtime is the proxy that ends the Init burst and stamps the end of Init; nil without
	// InitShare and MeasureInit.
	runtime *runtimeProxy
	// span is the runtime's Init as the wrapper and the proxy stamp it.
	span   initSpan
	proc   *proc.Process
	client *http.Client
	seq    atomic.Int64
	peak   memoryPeak
}

// Invocation is one invoke's outcome.
type Invocation struct {
	RequestID string
	Status    int
	Body      []byte
	// ClientMs is the invoke's round trip as the caller saw it.
	ClientMs float64
	// Report is the emulator's REPORT line for this invoke, its figures as printed. The
	// emulator bills nothing: its Billed Duration is the Duration rounded up even on a cold
	// start (printEndReports in aws/aws-lambda-runtime-interface-emulator), where Lambda bills a
	// custom runtime's Init too; Report.BilledAsLambda gives Lambda's rule from these figures.
	// Its Init Duration, cold Duration and Max Memory Used are not Lambda's (see the package
	// doc); TakeInit, Handled and PeakMemory are the harness's measures of them.
	Report lambdareport.Report
	// Failure is the emulator's error line for this invoke when it failed it (an Init that
	// failed, a runtime that exited); there is no REPORT then, and Status is 0 when the emulator
	// held the request without answering, as it does after a failed Init.
	Failure string
}

var started atomic.Int64

// NeedLinux skips t where no execution environment can start: the emulator (aws-lambda-rie) and
// the functions it runs are Linux programs, and the CPU quota is a Linux cgroup's.
func NeedLinux(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("needs Linux: the Lambda emulator (aws-lambda-rie) and the functions it runs are Linux programs, under a cgroup's CPU quota; this is %s: run it on Linux", runtime.GOOS)
	}
}

// Start starts a fresh execution environment and stops it when the test ends. A bad setting (a
// memory size out of range, a quota the kernel refuses) fails the test at once, naming it.
func Start(t testing.TB, o Options) *Environment {
	t.Helper()
	NeedLinux(t)
	e, err := Launch(t, o)
	if err != nil {
		t.Fatalf("lambdalocal: %v", err)
	}
	return e
}

// Launch is Start returning its failure instead of failing the test, for a caller that must not
// call t.Fatalf, such as a stand-in's HTTP handler goroutine. What it started before failing is
// ended by then or at t's end.
func Launch(t testing.TB, o Options) (*Environment, error) {
	t.Helper()
	if _, err := ShareForMemory(o.MemoryMB); err != nil {
		return nil, err
	}
	rie, err := build.Go(EmulatorPackage)
	if err != nil {
		return nil, fmt.Errorf("building the emulator: %w", err)
	}
	addrs, err := loopback.FreeAddrs(2)
	if err != nil {
		return nil, err
	}
	apiAddr, invokeAddr := addrs[0], addrs[1]
	timeout, err := o.timeout()
	if err != nil {
		return nil, err
	}
	env := map[string]string{
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(o.MemoryMB),
		"AWS_LAMBDA_FUNCTION_NAME":        "claims-function",
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(int(timeout / time.Second)),
		"LOG_LEVEL":                       "info",
	}
	maps.Copy(env, o.Env)
	if o.InitShare < 0 || (o.InitShare > 0 && !o.Quota) {
		return nil, fmt.Errorf("InitShare = %g; want 0, or more than 0 with Quota", o.InitShare)
	}
	bootstrap := o.Bootstrap
	e := &Environment{Addr: invokeAddr, client: &http.Client{}}
	if o.Priority && o.Quota {
		return nil, errors.New("Priority with Quota; want one of them: a quota's group has the priority already")
	}
	if o.Priority {
		g, err := cgroup.New(t, fmt.Sprintf("lambda-%dmb-%d", o.MemoryMB, started.Add(1)), cgroup.Quota{Share: float64(runtime.NumCPU()), Period: o.Period})
		if err != nil {
			return nil, err
		}
		e.Group = g
	}
	var initEnded func() error // the burst's end, with InitShare
	if o.Quota {
		share, err := ShareForMemory(o.MemoryMB)
		if err != nil {
			return nil, err
		}
		q := cgroup.Quota{Share: share, Period: o.Period}
		if o.InitShare > 0 {
			q.Share = o.InitShare
		}
		g, err := cgroup.New(t, fmt.Sprintf("lambda-%dmb-%d", o.MemoryMB, started.Add(1)), q)
		if err != nil {
			return nil, err
		}
		e.Group = g
		if o.InitShare > 0 {
			initEnded = func() error { return g.SetShare(share) }
		}
	}
	if o.InitShare > 0 || o.MeasureInit {
		dir := t.TempDir()
		sig, err := watchStarts(t, dir, &e.span)
		if err != nil {
			return nil, e.removeGroup(fmt.Errorf("the runtime's start signal: %w", err))
		}
		if e.runtime, err = startRuntimeProxy(t, apiAddr, &e.span, initEnded); err != nil {
			return nil, e.removeGroup(fmt.Errorf("the Runtime API proxy: %w", err))
		}
		if bootstrap, err = writeWrapper(dir, o.Bootstrap, e.runtime.addr, sig); err != nil {
			return nil, e.removeGroup(fmt.Errorf("the bootstrap wrapper: %w", err))
		}
	}
	path, args := rie, []string{
		"--runtime-api-address", apiAddr,
		"--runtime-interface-emulator-address", invokeAddr,
		bootstrap,
	}
	if e.Group != nil {
		g := e.Group
		// The shell joins the group first, then becomes the emulator: the emulator and the
		// function it starts are born inside it, and not one instruction runs outside.
		path, args = "/bin/sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`, g.Path() + "/cgroup.procs", rie}, args...)
	}
	p, err := proc.Launch(t, proc.Spec{
		Name: "lambda emulator",
		Path: path,
		Args: args,
		Env:  proc.CleanEnv(proc.Vars(env)...),
		Dir:  t.TempDir(),
		// The emulator logs to stderr and says nothing once it listens: waitListening decides.
	})
	if err != nil {
		return nil, e.removeGroup(err)
	}
	e.proc = p
	if err := waitListening(invokeAddr, 30*time.Second); err != nil {
		return nil, errors.Join(fmt.Errorf("the emulator %w", err), e.Stop())
	}
	return e, nil
}

// timeout is o.Timeout, or DefaultTimeout where it is zero; an error names a timeout Lambda
// would not take.
func (o Options) timeout() (time.Duration, error) {
	if o.Timeout == 0 {
		return DefaultTimeout, nil
	}
	if o.Timeout < time.Second || o.Timeout > settings.MaxFunctionTimeout || o.Timeout%time.Second != 0 {
		return 0, fmt.Errorf("Timeout = %v; want whole seconds from 1s to %v", o.Timeout, settings.MaxFunctionTimeout)
	}
	return o.Timeout, nil
}

// removeGroup removes the environment's cgroup, if it has one, after err ended its start.
func (e *Environment) removeGroup(err error) error {
	if e.Group != nil {
		err = errors.Join(err, e.Group.Remove())
	}
	return err
}

// waitListening polls addr until something accepts, because the emulator says nothing once it
// listens.
func waitListening(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("did not listen on %s within %v: %w", addr, limit, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Invoke sends one event and returns the answer with the emulator's REPORT for it.
func (e *Environment) Invoke(ctx context.Context, payload []byte) (Invocation, error) {
	id := fmt.Sprintf("claims-%d-%d", e.proc.Pid(), e.seq.Add(1))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+e.Addr+invocationsPath, bytes.NewReader(payload))
	if err != nil {
		return Invocation{}, err
	}
	// The emulator takes the request ID from this header, so the REPORT can be matched.
	req.Header.Set("X-Amzn-RequestId", id)
	start := time.Now()
	type reply struct {
		resp *http.Response
		err  error
	}
	replies := make(chan reply, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		resp, err := e.client.Do(req.WithContext(ctx))
		replies <- reply{resp, err}
	}()
	var r reply
	for waiting := true; waiting; {
		select {
		case r = <-replies:
			waiting = false
		case <-time.After(20 * time.Millisecond):
			if line := e.failure(id); line != "" {
				// The emulator gave up on this invoke; give its answer a moment, then stop waiting.
				select {
				case r = <-replies:
				case <-time.After(200 * time.Millisecond):
					cancel()
					return Invocation{RequestID: id, Failure: line, ClientMs: float64(time.Since(start)) / float64(time.Millisecond)}, nil
				}
				waiting = false
			}
		}
	}
	if r.err != nil {
		return Invocation{RequestID: id}, fmt.Errorf("invoke %s: %w", id, r.err)
	}
	body, err := io.ReadAll(r.resp.Body)
	r.resp.Body.Close()
	inv := Invocation{RequestID: id, Status: r.resp.StatusCode, Body: body, ClientMs: float64(time.Since(start)) / float64(time.Millisecond)}
	if err != nil {
		return inv, fmt.Errorf("invoke %s: reading the answer: %w", id, err)
	}
	inv.Report, inv.Failure, err = e.report(ctx, id)
	if e.runtime != nil {
		// The function answered, so its runtime asked for an event first, and the Init burst
		// ended then, unless Init failed; a share that could not be set is no measurement.
		if ended, qerr := e.runtime.state(); ended && qerr != nil {
			return inv, fmt.Errorf("invoke %s: setting the memory size's share when Init ended: %w", id, qerr)
		}
	}
	return inv, err
}

// InitEnded says whether the runtime has asked for an event, which ends the Init burst; it is
// false without one (Options.InitShare).
func (e *Environment) InitEnded() bool {
	if e.runtime == nil {
		return false
	}
	ended, _ := e.runtime.state()
	return ended
}

// TakeInit is the Init of the environment's runtime, from its start to its first request for an
// event, the first time it is asked after that Init ended: an invoke that gets ok is the one
// whose REPORT carries Init Duration on Lambda (its environment's first), and a later one gets
// false until the emulator starts the runtime again. Without Options.MeasureInit or InitShare it
// is always false, and so it is while Init has not ended (an Init that failed or is running
// still).
func (e *Environment) TakeInit() (time.Duration, bool) { return e.span.take() }

// Handled is the time the function's handler spent on invocation id, from the event's delivery
// to the runtime to the runtime's post of its response or error, as the Runtime API proxy saw
// them: the Duration Lambda prints, which the emulator's cold REPORT overstates by the whole Init.
// It is false without Options.MeasureInit or InitShare, where the runtime posted no outcome (it
// exited, it timed out), and after the first call for id.
func (e *Environment) Handled(id string) (time.Duration, bool) { return e.span.handled(id) }

// failure is the emulator's error line for request id, if it logged one.
func (e *Environment) failure(id string) string {
	for _, line := range strings.Split(e.proc.Log(), "\n") {
		if strings.Contains(line, "[ERROR]") && strings.Contains(line, "InvokeID="+id) {
			return strings.TrimPrefix(line, "stderr: ")
		}
	}
	return ""
}

// report finds the REPORT for request id in the emulator's output, or the error line of an
// invoke the emulator failed, which gets no REPORT. The emulator prints either before it writes
// the answer, but the line may still be on its way through the pipe.
func (e *Environment) report(ctx context.Context, id string) (lambdareport.Report, string, error) {
	for {
		for _, line := range strings.Split(e.proc.Log(), "\n") {
			text, ok := strings.CutPrefix(line, "stdout: ")
			if !ok || !strings.HasPrefix(text, "REPORT ") || !strings.Contains(text, id) {
				continue
			}
			r, err := lambdareport.Parse(text)
			return r, "", err
		}
		if line := e.failure(id); line != "" {
			return lambdareport.Report{}, line, nil
		}
		select {
		case <-ctx.Done():
			return lambdareport.Report{}, "", fmt.Errorf("no REPORT for %s in the emulator's output: %w", id, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop ends the environment now, and removes its cgroup (both also happen when the test ends),
// so that a test of many cold starts holds one group at a time.
func (e *Environment) Stop() error {
	err := e.proc.Stop()
	if e.Group != nil {
		err = errors.Join(err, e.Group.Remove())
	}
	return err
}
