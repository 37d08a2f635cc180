// Package lambdaapi is a loopback stand-in of AWS Lambda's control plane and Invoke, for the
// operations the live mode uses, in Lambda's REST-JSON wire format: the SDK's lambda client,
// its endpoint pointed here, runs unchanged against it. Every request's SigV4 signature is
// checked (harness/standin/sigv4check) and errors are answered as Lambda answers them, so the SDK decodes
// them into its typed errors.
//
// Nothing here returns canned verdicts: CreateFunction unpacks the zip, and each function runs
// under the Runtime Interface Emulator with its memory size's CPU quota (harness/lambda/lambdalocal).
// Like experiments/coldstart's local platform, the server runs at most one execution
// environment at a time (an idle Lambda environment is frozen and takes no CPU), and starts it
// when a create or an update completes, so that the emulator's own start-up is no part of the
// next invoke, which is a cold start. Another function's start or invoke ends the running
// environment, so that each function's next invoke after another's is a cold start too; with
// Options.KeepEnvironmentsOnUpdate it is frozen instead (freeze.go) and thawed for its
// function's next invoke, as each function keeps its own environment on Lambda. Its REPORT
// carries the harness's figures, not the emulator's: Init Duration from the runtime's start to
// its first request for an event, Duration the handler's time on the event, Max Memory Used the
// environment's peak memory (harness/lambda/lambdalocal's TakeInit, Handled and PeakMemory),
// and it bills as Lambda bills a custom runtime: Init with the first Duration on a cold start.
//
// Options and faults model what Lambda, or a Lambda-compatible platform, does that the live
// code must survive: an account's reduced memory quota (Options.MaxMemoryMB), a configuration
// update that leaves the environment running (Options.KeepEnvironmentsOnUpdate,
// UpdateKeepsEnvironment), an invoke that ran and still answers 5xx (InvokeFailsAfterRun), and
// KMS refusing a new role's grant (KMSGrant).
//
// By concern: lambdaapi.go holds Options, Server and Start; http.go the wire (signature, routing,
// Lambda's errors); control.go the control-plane operations and their state; environments.go
// and freeze.go starting, freezing and ending execution environments; invoke.go Invoke and its
// REPORT (written by harness/lambda/lambdareport); faults.go the faults Inject queues.
package lambdaapi

import (
	"context"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
)

// Options say what the stand-in accepts and how it runs functions.
type Options struct {
	// Keys are the accepted access keys; required.
	Keys sigv4check.Keys
	// AccountID and Region name the stand-in's account and region in ARNs and in the signature's
	// scope; defaults sigv4check.DefaultAccountID and us-east-1.
	AccountID, Region string
	// FunctionEnv is added to every function's environment, as Lambda adds its own variables
	// (AWS_REGION, the role's AWS_ACCESS_KEY_ID/SECRET/SESSION_TOKEN); here also what the
	// function needs to reach the other stand-ins (AWS_ENDPOINT_URL_DYNAMODB, SSL_CERT_FILE...).
	FunctionEnv map[string]string
	// RuntimeEnv is added to the environment of every function of a runtime (a CreateFunction
	// Runtime): what the machine's stand-in of that runtime needs to trust the stand-ins, where
	// it reads roots other than SSL_CERT_FILE's (NODE_EXTRA_CA_CERTS, AWS_CA_BUNDLE). Lambda's
	// runtimes trust AWS's endpoints without it.
	RuntimeEnv map[string]map[string]string
	// RoleAssumable says whether Lambda may assume the role ARN now (nil: any role ARN of the
	// account). Lets the IAM stand-in model a role that is not yet usable after creation.
	RoleAssumable func(arn string) error
	// Quota runs each environment under its memory size's CPU quota (harness/sys/cgroup); false
	// where no cgroup can be made.
	Quota bool
	// Period is the quota's CFS period; zero means cgroup.DefaultPeriod.
	Period time.Duration
	// InitShare is Init's burst in CPUs, with Quota: the environment gets max(InitShare, the
	// memory size's share) during Init.
	InitShare float64
	// KeepEnvironmentsOnUpdate makes every UpdateFunctionConfiguration complete without retiring
	// the running execution environment: the next Invoke is served warm by the same process,
	// with no Init Duration, which Lambda does not do (its updated function gets new
	// environments). It models a Lambda-compatible platform that a forced cold start cannot
	// trust; UpdateKeepsEnvironment does the same for some updates only. With it, an
	// environment displaced by another function's is frozen (its processes stopped, so it takes
	// no CPU) rather than ended, and thawed for its own function's next invoke, which it serves
	// warm: each function keeps its environment, as on such a platform, even when functions are
	// invoked in turn.
	KeepEnvironmentsOnUpdate bool
	// MaxMemoryMB is the account's memory quota: a MemorySize above it is refused as Lambda
	// refuses it for an account with a reduced quota (400 ValidationException, "'MemorySize'
	// value failed to satisfy constraint: Member must have value less than or equal to N").
	// 0 means Lambda's documented maximum, MaxMemoryDefaultMB; new accounts have been seen at 3008.
	MaxMemoryMB int
}

// MaxMemoryDefaultMB is Lambda's documented largest MemorySize, the quota when
// Options.MaxMemoryMB is 0.
const MaxMemoryDefaultMB = 10240

// minMemoryMB is Lambda's smallest MemorySize.
const minMemoryMB = 128

// Server is a running stand-in.
type Server struct {
	t      *scope
	o      Options
	url    string
	srv    *http.Server
	ctx    context.Context
	period time.Duration
	wg     sync.WaitGroup // background starts

	mu     sync.Mutex // guards fns and faults, and each function's configuration
	fns    map[string]*function
	faults []Fault

	// envMu orders everything that starts, uses, freezes or ends an environment, so that one
	// runs at a time and invokes are serialized.
	envMu   sync.Mutex
	running *function                              // the function whose environment runs (not frozen); guarded by envMu
	live    map[*lambdalocal.Environment]*function // started and not yet ended, frozen ones too; guarded by envMu
}

// function is one function: its configuration as Lambda returns it, its code, and its
// environment when one runs.
type function struct {
	name      string
	cfg       configuration // guarded by Server.mu
	tags      map[string]string
	taskRoot  string // the zip, unzipped
	created   time.Time
	busyUntil time.Time                // an injected Conflict's end; guarded by Server.mu
	gen       int                      // counts configuration changes, so a stale start does not mark one done; guarded by Server.mu
	env       *lambdalocal.Environment // guarded by Server.envMu
	// frozen are the processes of env stopped while another function's environment runs
	// (Options.KeepEnvironmentsOnUpdate), the emulator first; nil while env runs. Guarded by
	// Server.envMu.
	frozen  []int
	deleted bool // guarded by Server.mu
}

// configuration is Lambda's FunctionConfiguration, as far as the stand-in keeps it.
type configuration struct {
	FunctionName     string
	FunctionArn      string
	Runtime          string
	Role             string
	Handler          string
	CodeSize         int64
	CodeSha256       string
	Description      string
	Timeout          int
	MemorySize       int
	LastModified     string
	Version          string
	Environment      *environment `json:",omitempty"`
	State            string
	StateReason      string `json:",omitempty"`
	StateReasonCode  string `json:",omitempty"`
	LastUpdateStatus string
	PackageType      string
	Architectures    []string
	RevisionId       string
}

// environment is a function's Environment: its variables.
type environment struct {
	Variables map[string]string
}

// Start starts the stand-in on loopback; it and every environment it started stop at t's end.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	lambdalocal.NeedLinux(t)
	if len(o.Keys) == 0 {
		t.Fatalf("lambdaapi: Options.Keys is empty; want at least one access key")
	}
	if o.AccountID == "" {
		o.AccountID = sigv4check.DefaultAccountID
	}
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.InitShare < 0 || (o.InitShare > 0 && !o.Quota) {
		t.Fatalf("lambdaapi: InitShare = %g; want 0, or more than 0 with Quota", o.InitShare)
	}
	if o.MaxMemoryMB != 0 && (o.MaxMemoryMB < minMemoryMB || o.MaxMemoryMB > MaxMemoryDefaultMB) {
		t.Fatalf("lambdaapi: MaxMemoryMB = %d; want 0 (Lambda's %d) or %d to %d", o.MaxMemoryMB, MaxMemoryDefaultMB, minMemoryMB, MaxMemoryDefaultMB)
	}
	dir, err := os.MkdirTemp("", "lambdaapi-")
	if err != nil {
		t.Fatalf("lambdaapi: %v", err)
	}
	s := &Server{t: &scope{TB: t, dir: dir}, o: o, ctx: t.Context(), period: o.Period, fns: map[string]*function{}, live: map[*lambdalocal.Environment]*function{}}
	if s.period <= 0 {
		s.period = cgroup.DefaultPeriod
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = os.RemoveAll(dir)
	}
	if err != nil {
		t.Fatalf("lambdaapi: %v", err)
	}
	s.url = "http://" + l.Addr().String()
	s.srv = &http.Server{Handler: s}
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() {
		_ = s.srv.Close()
		s.wg.Wait()
		s.envMu.Lock()
		s.endAll()
		s.envMu.Unlock()
		s.t.end()
	})
	return s
}

// scope is the test as the server's environments see it: what they register with Cleanup, and
// their temporary folders, end with the server, after its background starts have finished,
// rather than in the test's cleanup order, which could remove a cgroup under a start.
type scope struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	dir      string
}

// Cleanup registers f to run when the server ends, last registered first.
func (c *scope) Cleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanups = append(c.cleanups, f)
}

// TempDir makes a new folder that is removed when the server ends.
func (c *scope) TempDir() string {
	d, err := os.MkdirTemp(c.dir, "")
	if err != nil {
		c.Fatalf("lambdaapi: %v", err)
	}
	return d
}

// end runs the registered cleanups and removes the folders.
func (c *scope) end() {
	for {
		c.mu.Lock()
		if len(c.cleanups) == 0 {
			c.mu.Unlock()
			break
		}
		f := c.cleanups[len(c.cleanups)-1]
		c.cleanups = c.cleanups[:len(c.cleanups)-1]
		c.mu.Unlock()
		f()
	}
	if err := os.RemoveAll(c.dir); err != nil {
		c.Errorf("lambdaapi: %v", err)
	}
}

// URL is the stand-in's endpoint, http://127.0.0.1:port, for the client's BaseEndpoint.
func (s *Server) URL() string { return s.url }

// Functions are the names of the existing functions, sorted.
func (s *Server) Functions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.fns))
}

// Environments is how many execution environments (emulator processes) exist now: started and
// not yet ended, frozen ones included. Never more than one runs; without
// Options.KeepEnvironmentsOnUpdate there is no frozen one either.
func (s *Server) Environments() int {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	return len(s.live)
}
