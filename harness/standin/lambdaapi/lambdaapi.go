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
// bills as Lambda bills a custom runtime: Init with the first Duration on a cold start.
//
// Options and faults model what Lambda, or a Lambda-compatible platform, does that the live
// code must survive: an account's reduced memory quota (Options.MaxMemoryMB), a configuration
// update that leaves the environment running (Options.KeepEnvironmentsOnUpdate,
// UpdateKeepsEnvironment), an invoke that ran and still answers 5xx (InvokeFailsAfterRun), and
// KMS refusing a new role's grant (KMSGrant).
package lambdaapi

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
	// scope; defaults 123456789012 and us-east-1.
	AccountID, Region string
	// FunctionEnv is added to every function's environment, as Lambda adds its own variables
	// (AWS_REGION, the role's AWS_ACCESS_KEY_ID/SECRET/SESSION_TOKEN); here also what the
	// function needs to reach the other stand-ins (AWS_ENDPOINT_URL_DYNAMODB, SSL_CERT_FILE...).
	FunctionEnv map[string]string
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

// FaultKind is a failure Inject makes the server answer with.
type FaultKind int

// The faults, each as Lambda shows it to a client.
const (
	// Conflict: UpdateFunctionConfiguration gets ResourceConflictException ("An update is in
	// progress"), and the function's LastUpdateStatus shows InProgress for a short while, so that
	// the FunctionUpdatedV2 waiter can wait it out.
	Conflict FaultKind = iota + 1
	// Throttle: any operation gets 429 TooManyRequestsException with Retry-After.
	Throttle
	// InvokeTimeout: the invoke runs past the function's Timeout; the environment is ended and
	// the answer is Lambda's: 200, X-Amz-Function-Error: Unhandled, "Task timed out after N
	// seconds", a REPORT with Status: timeout.
	InvokeTimeout
	// FunctionError: the invoke answers X-Amz-Function-Error: Unhandled with an errorMessage
	// naming the fault.
	FunctionError
	// TruncatedReport: the invoke's log tail is cut in the middle of the REPORT line.
	TruncatedReport
	// MissingReport: the invoke's log tail carries no REPORT.
	MissingReport
	// CreateFails: CreateFunction creates the function, but it goes to State Failed with a
	// StateReasonCode; it exists until deleted.
	CreateFails
	// UpdateKeepsEnvironment: UpdateFunctionConfiguration completes but does not retire the
	// running execution environment, so the next Invoke is warm, served by the same process
	// (Options.KeepEnvironmentsOnUpdate for every update).
	UpdateKeepsEnvironment
	// InvokeFailsAfterRun: the invoke runs the function in its environment (a cold one pays
	// its Init, and the function's own count of invocations goes on), and then the answer is
	// 500 ServiceException, which the SDK's standard retryer retries: the retried attempt is
	// served warm by the same environment.
	InvokeFailsAfterRun
	// KMSGrant: a CreateFunction with environment variables gets 400
	// InvalidParameterValueException "Lambda was unable to configure access to your environment
	// variables because the KMS key is invalid for CreateGrant. ...", as Lambda answers while a
	// new role has not reached KMS, and nothing is created. A create without variables does not
	// meet it (Lambda makes the grant for the variables), and the fault stays queued.
	KMSGrant
)

var faultNames = map[FaultKind]string{
	Conflict: "Conflict", Throttle: "Throttle", InvokeTimeout: "InvokeTimeout", FunctionError: "FunctionError",
	TruncatedReport: "TruncatedReport", MissingReport: "MissingReport", CreateFails: "CreateFails",
	UpdateKeepsEnvironment: "UpdateKeepsEnvironment", InvokeFailsAfterRun: "InvokeFailsAfterRun", KMSGrant: "KMSGrant",
}

// String names the fault as its constant does.
func (k FaultKind) String() string {
	if n, ok := faultNames[k]; ok {
		return n
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// Fault is one queued failure.
type Fault struct {
	Kind FaultKind
	// Function is the function it applies to; "" any.
	Function string
	// Count is how many calls it hits; 0 means 1.
	Count int
}

// conflictFor is how long an injected Conflict shows the update as in progress.
const conflictFor = 300 * time.Millisecond

// tailLimit is how much of an invocation's log Invoke's LogType Tail returns, as Lambda does.
const tailLimit = 4096

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
	bootstrap string
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
	if len(o.Keys) == 0 {
		t.Fatalf("lambdaapi: Options.Keys is empty; want at least one access key")
	}
	if o.AccountID == "" {
		o.AccountID = "123456789012"
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

// Inject queues a fault; the calls it applies to meet it in order.
func (s *Server) Inject(f Fault) {
	if f.Count <= 0 {
		f.Count = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
}

// takeFault uses up one call of the first queued fault of kind k for function name.
func (s *Server) takeFault(k FaultKind, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.faults {
		f := &s.faults[i]
		if f.Kind != k || (f.Function != "" && f.Function != name) {
			continue
		}
		if f.Count--; f.Count == 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		return true
	}
	return false
}

// apiError is an error answered as Lambda answers it.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.typ + ": " + e.msg }

func errf(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, msg: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *apiError {
	return errf(http.StatusBadRequest, "InvalidParameterValueException", format, args...)
}

// writeError answers e as Lambda does: the type in X-Amzn-ErrorType, and a JSON body.
func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("X-Amzn-ErrorType", e.typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"Type": "User", "message": e.msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

var (
	functionPath = regexp.MustCompile(`^/2015-03-31/functions/([^/]+)(/configuration|/invocations)?/?$`)
	tagsPath     = regexp.MustCompile(`^/2017-03-31/tags/(.+)$`)
)

// ServeHTTP checks the request's signature and runs the operation it names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID()
	w.Header().Set("X-Amzn-RequestId", id)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "InvalidRequestContentException", "reading the body: %v", err))
		return
	}
	if e := s.authorize(r, body); e != nil {
		writeError(w, e)
		return
	}
	if e := s.route(w, r, body, id); e != nil {
		writeError(w, e)
	}
}

// authorize checks the signature and its scope.
func (s *Server) authorize(r *http.Request, body []byte) *apiError {
	scope, err := s.o.Keys.Verify(r, body)
	switch {
	case errors.Is(err, sigv4check.ErrUnsigned):
		return errf(http.StatusForbidden, "MissingAuthenticationTokenException", "Missing Authentication Token (%v)", err)
	case errors.Is(err, sigv4check.ErrUnknownKey):
		return errf(http.StatusForbidden, "UnrecognizedClientException", "The security token included in the request is invalid.")
	case err != nil:
		return errf(http.StatusForbidden, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. (%v)", err)
	case scope.Service != "lambda" || scope.Region != s.o.Region:
		return errf(http.StatusForbidden, "InvalidSignatureException", "Credential should be scoped to a valid region and service lambda in %s, not %s/%s", s.o.Region, scope.Region, scope.Service)
	}
	return nil
}

// route runs the operation the method and path name.
func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte, id string) *apiError {
	path := r.URL.Path
	var name string
	if m := functionPath.FindStringSubmatch(path); m != nil {
		name = functionName(m[1])
	} else if m := tagsPath.FindStringSubmatch(path); m != nil {
		name = functionName(m[1])
	}
	if s.takeFault(Throttle, name) {
		w.Header().Set("Retry-After", "1")
		return errf(http.StatusTooManyRequests, "TooManyRequestsException", "Rate Exceeded.")
	}
	switch {
	case r.Method == http.MethodPost && strings.TrimSuffix(path, "/") == "/2015-03-31/functions":
		return s.create(w, body)
	case r.Method == http.MethodGet && strings.TrimSuffix(path, "/") == "/2015-03-31/functions":
		return s.list(w, r)
	case strings.HasPrefix(path, "/2017-03-31/tags/") && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		return s.tagsOf(w, r, name, body)
	}
	m := functionPath.FindStringSubmatch(path)
	if m == nil {
		return errf(http.StatusNotFound, "UnknownOperationException", "%s %s is no operation of this stand-in", r.Method, path)
	}
	switch op := r.Method + " " + m[2]; op {
	case "GET ":
		return s.get(w, name, true)
	case "GET /configuration":
		return s.get(w, name, false)
	case "PUT /configuration":
		return s.update(w, name, body)
	case "POST /invocations":
		return s.invoke(w, r, name, body, id)
	case "DELETE ":
		return s.delete(w, name)
	default:
		return errf(http.StatusNotFound, "UnknownOperationException", "%s %s is no operation of this stand-in", r.Method, path)
	}
}

// functionName is the name in a function name, partial ARN or ARN.
func functionName(s string) string {
	if _, after, ok := strings.Cut(s, ":function:"); ok {
		s = after
	} else if _, after, ok := strings.Cut(s, "function:"); ok {
		s = after
	}
	name, _, _ := strings.Cut(s, ":") // a qualifier
	return name
}

// requestID is a new request id in Lambda's UUID form.
func requestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (s *Server) arn(name string) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", s.o.Region, s.o.AccountID, name)
}

// lookup is the function named name, or ResourceNotFoundException naming it.
func (s *Server) lookup(name string) (*function, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fns[name]
	if !ok {
		return nil, errf(http.StatusNotFound, "ResourceNotFoundException", "Function not found: %s", s.arn(name))
	}
	return f, nil
}

// createInput is CreateFunction's body, as far as the stand-in reads it.
type createInput struct {
	FunctionName  string
	Runtime       string
	Role          string
	Handler       string
	MemorySize    *int
	Timeout       *int
	Architectures []string
	Environment   *environment
	Tags          map[string]string
	PackageType   string
	Code          struct{ ZipFile []byte }
}

var (
	namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	rolePattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$`)
)

// machineArch is the architecture, as Lambda names it, this machine runs.
func machineArch() string {
	if runtime.GOARCH == "arm64" {
		return "arm64"
	}
	return "x86_64"
}

func (s *Server) create(w http.ResponseWriter, body []byte) *apiError {
	var in createInput
	if err := json.Unmarshal(body, &in); err != nil {
		return invalid("the request body is not a CreateFunction input: %v", err)
	}
	if !namePattern.MatchString(in.FunctionName) {
		return invalid("FunctionName %q: want 1 to 64 letters, digits, '-' or '_'", in.FunctionName)
	}
	if in.PackageType != "" && in.PackageType != "Zip" {
		return invalid("PackageType %q: this stand-in runs Zip functions only", in.PackageType)
	}
	if in.Runtime != "provided.al2023" && in.Runtime != "provided.al2" {
		return invalid("Runtime %q: this stand-in runs provided.al2023 and provided.al2 only", in.Runtime)
	}
	if in.Handler == "" {
		return invalid("Handler: required")
	}
	cfg := configuration{
		FunctionName: in.FunctionName, FunctionArn: s.arn(in.FunctionName), Runtime: in.Runtime, Role: in.Role,
		Handler: in.Handler, Timeout: 3, MemorySize: 128, Version: "$LATEST", PackageType: "Zip",
		Architectures: []string{"x86_64"}, State: "Pending", LastUpdateStatus: "Successful",
	}
	if e := s.configure(&cfg, in.Role, in.MemorySize, in.Timeout, in.Environment); e != nil {
		return e
	}
	if len(in.Architectures) > 1 {
		return invalid("Architectures %v: at most one", in.Architectures)
	}
	if len(in.Architectures) == 1 {
		cfg.Architectures = in.Architectures
	}
	if a := cfg.Architectures[0]; a != "x86_64" && a != "arm64" {
		return invalid("Architectures: %q is no architecture; want arm64 or x86_64", a)
	} else if a != machineArch() {
		return invalid("Architectures: %s cannot run on this machine, which runs %s", a, machineArch())
	}
	if len(in.Code.ZipFile) == 0 {
		return invalid("Code.ZipFile: required (this stand-in takes no S3 code or image)")
	}
	sum := sha256.Sum256(in.Code.ZipFile)
	cfg.CodeSha256, cfg.CodeSize = base64.StdEncoding.EncodeToString(sum[:]), int64(len(in.Code.ZipFile))

	s.mu.Lock()
	if _, dup := s.fns[in.FunctionName]; dup {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException", "Function already exist: %s", in.FunctionName)
	}
	s.mu.Unlock()
	if cfg.Environment != nil && len(cfg.Environment.Variables) > 0 && s.takeFault(KMSGrant, in.FunctionName) {
		return invalid("%s", kmsGrantMessage(cfg.Role))
	}
	dir, err := os.MkdirTemp(s.t.dir, "code-")
	if err != nil {
		return errf(http.StatusInternalServerError, "ServiceException", "%v", err)
	}
	bootstrap, err := unpack(dir, in.Code.ZipFile)
	if err != nil {
		return invalid("Code.ZipFile: %v", err)
	}
	fails := s.takeFault(CreateFails, in.FunctionName)

	s.mu.Lock()
	if _, dup := s.fns[in.FunctionName]; dup {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException", "Function already exist: %s", in.FunctionName)
	}
	f := &function{name: in.FunctionName, cfg: cfg, tags: maps.Clone(in.Tags), bootstrap: bootstrap, created: time.Now()}
	if f.tags == nil {
		f.tags = map[string]string{}
	}
	f.touch()
	s.fns[in.FunctionName] = f
	out := f.cfg
	gen := f.gen
	s.mu.Unlock()

	if fails {
		s.later(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			f.cfg.State, f.cfg.StateReasonCode = "Failed", "InternalError"
			f.cfg.StateReason = "injected fault CreateFails: the function could not be set up"
		})
	} else {
		s.later(func() { s.prepare(f, gen, false) })
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// kmsGrantMessage is the message Lambda answers a CreateFunction with when it cannot make the
// KMS grant for the function's environment variables, in the form users report it (e.g.
// hashicorp/terraform-provider-aws#4633): the principal KMS does not know yet is the new role.
func kmsGrantMessage(role string) string {
	return "Lambda was unable to configure access to your environment variables because the KMS key is invalid for CreateGrant. " +
		"Please check your KMS key settings. KMS Exception: InvalidArnException KMS Message: ARN does not refer to a valid principal: " + role
}

// memoryQuota is the largest MemorySize the account may set.
func (s *Server) memoryQuota() int {
	if s.o.MaxMemoryMB > 0 {
		return s.o.MaxMemoryMB
	}
	return MaxMemoryDefaultMB
}

// configure checks and sets the settings CreateFunction and UpdateFunctionConfiguration share.
func (s *Server) configure(cfg *configuration, role string, memory, timeout *int, env *environment) *apiError {
	if role != "" || cfg.Role == "" {
		if !rolePattern.MatchString(role) {
			return invalid("Role %q: not a role ARN", role)
		}
		if s.o.RoleAssumable != nil {
			if err := s.o.RoleAssumable(role); err != nil {
				return invalid("The role defined for the function cannot be assumed by Lambda.")
			}
		} else if !strings.Contains(role, "::"+s.o.AccountID+":role/") {
			return invalid("The role defined for the function cannot be assumed by Lambda.")
		}
		cfg.Role = role
	}
	if memory != nil {
		// Lambda answers a size outside its range, or above the account's quota, with a
		// constraint error, not an InvalidParameterValueException.
		if q := s.memoryQuota(); *memory > q {
			return errf(http.StatusBadRequest, "ValidationException",
				"'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to %d", q)
		}
		if *memory < minMemoryMB {
			return errf(http.StatusBadRequest, "ValidationException",
				"'MemorySize' value failed to satisfy constraint: Member must have value greater than or equal to %d", minMemoryMB)
		}
		if _, err := lambdalocal.ShareForMemory(*memory); err != nil {
			return invalid("MemorySize %d: want 128 to 10240 MB", *memory)
		}
		cfg.MemorySize = *memory
	}
	if timeout != nil {
		if *timeout < 1 || *timeout > 900 {
			return invalid("Timeout %d: want 1 to 900 seconds", *timeout)
		}
		cfg.Timeout = *timeout
	}
	if env != nil {
		for k := range env.Variables {
			if reserved[k] {
				return invalid("Environment.Variables: %s is a reserved key", k)
			}
		}
		cfg.Environment = &environment{Variables: maps.Clone(env.Variables)}
	}
	return nil
}

// reserved are variables Lambda sets and a function may not.
var reserved = map[string]bool{
	"AWS_REGION": true, "AWS_DEFAULT_REGION": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true,
	"AWS_SESSION_TOKEN": true, "AWS_LAMBDA_FUNCTION_NAME": true, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": true,
	"AWS_LAMBDA_FUNCTION_VERSION": true, "AWS_LAMBDA_RUNTIME_API": true, "_HANDLER": true,
}

// touch marks a configuration change.
func (f *function) touch() {
	f.gen++
	f.cfg.LastModified = time.Now().UTC().Format("2006-01-02T15:04:05.000-0700")
	f.cfg.RevisionId = requestID()
}

// settle ends an injected Conflict's update once its time has passed. Call with Server.mu held.
func (f *function) settle() {
	if !f.busyUntil.IsZero() && time.Now().After(f.busyUntil) {
		f.cfg.LastUpdateStatus, f.busyUntil = "Successful", time.Time{}
	}
}

// unpack writes the zip's bootstrap into dir and returns its path.
func unpack(dir string, data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("not a zip: %v", err)
	}
	var found string
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/") {
			continue
		}
		clean := filepath.Clean(zf.Name)
		if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
			return "", fmt.Errorf("entry %q leaves the function's folder", zf.Name)
		}
		dst := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		rc, err := zf.Open()
		if err != nil {
			return "", fmt.Errorf("entry %q: %v", zf.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", fmt.Errorf("entry %q: %v", zf.Name, err)
		}
		if err := os.WriteFile(dst, b, zf.Mode().Perm()|0o400); err != nil {
			return "", err
		}
		if clean == "bootstrap" {
			if zf.Mode().Perm()&0o111 == 0 {
				return "", fmt.Errorf("bootstrap has mode %v; want it executable", zf.Mode().Perm())
			}
			found = dst
		}
	}
	if found == "" {
		return "", errors.New("no bootstrap at the zip's top level; provided.al2023 runs one")
	}
	return found, nil
}

// later runs f in the background, unless the test is over.
func (s *Server) later(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.ctx.Err() == nil {
			f()
		}
	}()
}

// prepare starts f's environment for configuration gen and then marks the create or update
// done, as Lambda does once the function is ready; a start that fails marks it failed. With
// keep, an environment of f that runs already goes on serving (the update does not retire it).
func (s *Server) prepare(f *function, gen int, keep bool) {
	s.envMu.Lock()
	var err error
	if !keep || f.env == nil {
		err = s.startEnv(f) // a kept environment stays as it is, running or frozen
	}
	s.envMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.gen != gen || f.deleted {
		return // changed again meanwhile: the later change marks itself
	}
	if f.cfg.State == "Pending" {
		f.cfg.State = "Active"
		if err != nil {
			f.cfg.State, f.cfg.StateReasonCode, f.cfg.StateReason = "Failed", "InternalError", err.Error()
		}
		return
	}
	f.cfg.LastUpdateStatus = "Successful"
	if err != nil {
		f.cfg.LastUpdateStatus = "Failed"
	}
}

// startEnv ends f's environment, if it has one, makes room (displace) and starts a fresh one
// for f, returning one CFS period after the emulator listens. Call with envMu held.
func (s *Server) startEnv(f *function) error {
	s.endEnv(f)
	s.displace()
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("the stand-in is stopping: %w", err)
	}
	s.mu.Lock()
	cfg, deleted := f.cfg, f.deleted
	s.mu.Unlock()
	if deleted {
		return errors.New("the function was deleted")
	}
	env := map[string]string{}
	if cfg.Environment != nil {
		maps.Copy(env, cfg.Environment.Variables)
	}
	maps.Copy(env, s.o.FunctionEnv)
	maps.Copy(env, map[string]string{
		"AWS_REGION":                      s.o.Region,
		"AWS_DEFAULT_REGION":              s.o.Region,
		"AWS_LAMBDA_FUNCTION_NAME":        cfg.FunctionName,
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(cfg.MemorySize),
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(cfg.Timeout),
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + cfg.FunctionName,
		"AWS_EXECUTION_ENV":               "AWS_Lambda_" + cfg.Runtime,
		"_HANDLER":                        cfg.Handler,
	})
	o := lambdalocal.Options{Bootstrap: f.bootstrap, Env: env, MemoryMB: cfg.MemorySize, Quota: s.o.Quota, Period: s.period}
	if s.o.Quota && s.o.InitShare > 0 {
		share, err := lambdalocal.ShareForMemory(cfg.MemorySize)
		if err != nil {
			return err
		}
		o.InitShare = math.Max(s.o.InitShare, share)
	}
	e, err := lambdalocal.Launch(s.t, o)
	if err != nil {
		return err
	}
	f.env, s.running, s.live[e] = e, f, f
	// The emulator's start-up spent part of this period's quota; Init starts on a fresh one.
	select {
	case <-time.After(s.period):
	case <-s.ctx.Done():
	}
	return nil
}

// endRunning ends the running environment, if any. Call with envMu held.
func (s *Server) endRunning() {
	if s.running != nil {
		s.endEnv(s.running)
	}
	s.running = nil
}

// endEnv ends f's environment, running or frozen, if it has one: a frozen one is thawed first,
// so that the emulator gets its SIGTERM and ends its runtime as it always does (a stopped
// process is delivered no signal but SIGKILL until it is continued). Call with envMu held.
func (s *Server) endEnv(f *function) {
	if s.running == f {
		s.running = nil
	}
	if f.env == nil {
		return
	}
	s.thaw(f)
	delete(s.live, f.env)
	if err := f.env.Stop(); err != nil {
		s.t.Logf("lambdaapi: ending %s's environment: %v", f.name, err)
	}
	f.env = nil
}

// endAll ends every environment, running and frozen. Call with envMu held.
func (s *Server) endAll() {
	for _, f := range s.live {
		s.endEnv(f)
	}
}

// displace makes room for another function's environment: the running one is ended, as Lambda
// ends no environment but this stand-in runs one at a time, or, with
// Options.KeepEnvironmentsOnUpdate, frozen, as Lambda freezes an idle environment, so that its
// function's next invoke is served by it, warm, as a platform whose environments outlive
// updates serves each function from its own. Call with envMu held.
func (s *Server) displace() {
	f := s.running
	if f == nil {
		return
	}
	if !s.o.KeepEnvironmentsOnUpdate || f.env == nil {
		s.endRunning()
		return
	}
	if err := s.freeze(f); err != nil {
		s.t.Logf("lambdaapi: freezing %s's environment: %v; ending it", f.name, err)
		s.endRunning()
		return
	}
	s.running = nil
}

// activate makes f's environment the running one: a frozen one is thawed, after the running
// one is displaced; without one, a fresh one starts (a cold start). Call with envMu held.
func (s *Server) activate(f *function) error {
	switch {
	case s.running == f && f.env != nil:
		return nil
	case f.env != nil && f.frozen != nil:
		s.displace()
		s.thaw(f)
		s.running = f
		return nil
	default:
		return s.startEnv(f)
	}
}

// getOutput is GetFunction's answer.
type getOutput struct {
	Configuration configuration
	Code          struct{ RepositoryType, Location string }
	Tags          map[string]string
}

func (s *Server) get(w http.ResponseWriter, name string, whole bool) *apiError {
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	s.mu.Lock()
	f.settle()
	out := getOutput{Configuration: f.cfg, Tags: maps.Clone(f.tags)}
	s.mu.Unlock()
	if !whole {
		writeJSON(w, http.StatusOK, out.Configuration)
		return nil
	}
	out.Code.RepositoryType, out.Code.Location = "S3", s.url+"/code/"+name
	writeJSON(w, http.StatusOK, out)
	return nil
}

// updateInput is UpdateFunctionConfiguration's body, as far as the stand-in reads it.
type updateInput struct {
	Role        string
	MemorySize  *int
	Timeout     *int
	Environment *environment
	Handler     string
}

func (s *Server) update(w http.ResponseWriter, name string, body []byte) *apiError {
	var in updateInput
	if err := json.Unmarshal(body, &in); err != nil {
		return invalid("the request body is not an UpdateFunctionConfiguration input: %v", err)
	}
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	conflict := func() *apiError {
		return errf(http.StatusConflict, "ResourceConflictException",
			"The operation cannot be performed at this time. An update is in progress for resource: %s", s.arn(name))
	}
	if s.takeFault(Conflict, name) {
		s.mu.Lock()
		if f.cfg.LastUpdateStatus != "InProgress" {
			f.cfg.LastUpdateStatus, f.busyUntil = "InProgress", time.Now().Add(conflictFor)
		}
		s.mu.Unlock()
		return conflict()
	}
	s.mu.Lock()
	f.settle()
	if f.cfg.State != "Active" {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException",
			"The operation cannot be performed at this time. The function is currently in the following state: %s", f.cfg.State)
	}
	if f.cfg.LastUpdateStatus == "InProgress" {
		s.mu.Unlock()
		return conflict()
	}
	cfg := f.cfg
	if e := s.configure(&cfg, in.Role, in.MemorySize, in.Timeout, in.Environment); e != nil {
		s.mu.Unlock()
		return e
	}
	if in.Handler != "" {
		cfg.Handler = in.Handler
	}
	f.cfg = cfg
	f.cfg.LastUpdateStatus = "InProgress"
	f.touch()
	out, gen := f.cfg, f.gen
	s.mu.Unlock()
	keep := s.o.KeepEnvironmentsOnUpdate || s.takeFault(UpdateKeepsEnvironment, name)
	s.later(func() { s.prepare(f, gen, keep) })
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) delete(w http.ResponseWriter, name string) *apiError {
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	s.mu.Lock()
	delete(s.fns, name)
	f.deleted = true
	s.mu.Unlock()
	s.envMu.Lock()
	s.endEnv(f) // running or frozen
	s.envMu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) *apiError {
	q := r.URL.Query()
	max := 50
	if v := q.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return invalid("MaxItems %q: want 1 to 10000", v)
		}
		max = n
	}
	names := s.Functions()
	start := 0
	if m := q.Get("Marker"); m != "" {
		b, err := base64.RawURLEncoding.DecodeString(m)
		if err != nil {
			return invalid("Marker %q: not a marker this stand-in gave", m)
		}
		// The marker is the last name returned; names after it follow, whatever was deleted since.
		start, _ = slices.BinarySearch(names, string(b)+"\x00")
	}
	out := struct {
		Functions  []configuration
		NextMarker *string `json:",omitempty"`
	}{Functions: []configuration{}}
	end := min(start+max, len(names))
	s.mu.Lock()
	for _, n := range names[start:end] {
		if f, ok := s.fns[n]; ok {
			out.Functions = append(out.Functions, f.cfg)
		}
	}
	s.mu.Unlock()
	if end < len(names) {
		m := base64.RawURLEncoding.EncodeToString([]byte(names[end-1]))
		out.NextMarker = &m
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) tagsOf(w http.ResponseWriter, r *http.Request, name string, body []byte) *apiError {
	arn := strings.TrimPrefix(r.URL.Path, "/2017-03-31/tags/")
	if arn != s.arn(name) {
		return invalid("Resource %q: want a function ARN of this account and region", arn)
	}
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	if r.Method == http.MethodGet {
		s.mu.Lock()
		tags := maps.Clone(f.tags)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]map[string]string{"Tags": tags})
		return nil
	}
	var in struct{ Tags map[string]string }
	if err := json.Unmarshal(body, &in); err != nil || len(in.Tags) == 0 {
		return invalid("Tags: want at least one tag")
	}
	s.mu.Lock()
	maps.Copy(f.tags, in.Tags)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// invoke runs one RequestResponse invoke in f's environment, starting one first when none runs
// (a cold start, as after another function's environment ran), and answers as Lambda does.
func (s *Server) invoke(w http.ResponseWriter, r *http.Request, name string, payload []byte, id string) *apiError {
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	if t := r.Header.Get("X-Amz-Invocation-Type"); t != "" && t != "RequestResponse" {
		return invalid("InvocationType %q: this stand-in runs RequestResponse only", t)
	}
	s.mu.Lock()
	cfg := f.cfg
	s.mu.Unlock()
	if cfg.State != "Active" {
		return errf(http.StatusConflict, "ResourceConflictException",
			"The operation cannot be performed at this time. The function is currently in the following state: %s", cfg.State)
	}
	timeoutFault := s.takeFault(InvokeTimeout, name)
	errorFault := s.takeFault(FunctionError, name)
	truncate := s.takeFault(TruncatedReport, name)
	missing := s.takeFault(MissingReport, name)
	failAfter := s.takeFault(InvokeFailsAfterRun, name)

	s.envMu.Lock()
	defer s.envMu.Unlock()
	if err := s.activate(f); err != nil {
		return errf(http.StatusInternalServerError, "ServiceException", "starting an execution environment for %s: %v", name, err)
	}
	limit := time.Duration(cfg.Timeout) * time.Second
	ctx, cancel := context.WithTimeout(r.Context(), limit)
	defer cancel()
	start := time.Now()
	inv, err := f.env.Invoke(ctx, payload)
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	if timeoutFault && !timedOut {
		// The function runs on past its Timeout: its answer comes too late to count.
		select {
		case <-ctx.Done():
		case <-r.Context().Done():
		}
		timedOut = true
	}
	if err != nil && !timedOut {
		s.endRunning()
		return errf(http.StatusInternalServerError, "ServiceException", "invoking %s: %v", name, err)
	}

	rep := report{id: id, memoryMB: cfg.MemorySize, maxUsedMB: cfg.MemorySize}
	if inv.Report.InitDuration != nil {
		rep.initMs = inv.Report.InitDuration
	}
	if inv.Report.MaxMemoryUsedMB != nil {
		rep.maxUsedMB = *inv.Report.MaxMemoryUsedMB
	}
	var body []byte
	var functionError, logged string
	switch {
	case timedOut:
		s.endRunning() // Lambda ends an environment whose invoke timed out
		rep.durationMs, rep.status = float64(limit)/float64(time.Millisecond), "timeout"
		msg := fmt.Sprintf("%s %s Task timed out after %.2f seconds", time.Now().UTC().Format(time.RFC3339Nano), id, limit.Seconds())
		body, _ = json.Marshal(map[string]string{"errorMessage": msg})
		functionError, logged = "Unhandled", msg+"\n"
	case inv.Failure != "":
		s.endRunning() // the runtime is gone; the next invoke starts a fresh environment
		rep.durationMs, rep.status = float64(time.Since(start))/float64(time.Millisecond), "error"
		body, _ = json.Marshal(map[string]string{"errorType": "Runtime.ExitError", "errorMessage": inv.Failure})
		functionError = "Unhandled"
	default:
		if inv.Report.Duration != nil {
			rep.durationMs = *inv.Report.Duration
		} else {
			rep.durationMs = inv.ClientMs
		}
		body = inv.Body
		if handlerError(body) {
			functionError = "Unhandled"
		}
	}
	if errorFault {
		body, _ = json.Marshal(map[string]string{"errorType": "InjectedFault", "errorMessage": "injected fault FunctionError in " + name})
		functionError = "Unhandled"
	}
	if failAfter {
		// The function ran; the caller sees only Lambda's internal error, which its SDK retries.
		return errf(http.StatusInternalServerError, "ServiceException", "The Lambda service encountered an internal error.")
	}

	line := rep.String()
	switch {
	case missing:
		line = ""
	case truncate:
		line = line[:len(line)/2]
	default:
		line += "\n"
	}
	tail := logTail(id, logged, line)
	if strings.EqualFold(r.Header.Get("X-Amz-Log-Type"), "Tail") {
		w.Header().Set("X-Amz-Log-Result", base64.StdEncoding.EncodeToString([]byte(tail)))
	}
	if functionError != "" {
		w.Header().Set("X-Amz-Function-Error", functionError)
	}
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// billedMs is the REPORT's Billed Duration: Lambda bills a custom runtime's (provided.*, the
// only runtimes this stand-in runs) Init with its first invoke, so a cold start bills
// ceil(Init Duration + Duration) and a warm invoke ceil(Duration), in whole milliseconds.
func (r report) billedMs() int64 {
	// From the figures as printed, so that a reader can add them up to the same bill.
	hundredths := math.Round(r.durationMs * 100)
	if r.initMs != nil {
		hundredths += math.Round(*r.initMs * 100)
	}
	return int64(math.Ceil(hundredths / 100))
}

// logTail is the invocation's execution log as Invoke's LogType Tail returns it: START, what
// was logged, END and the REPORT line, cut to its last tailLimit bytes, as Lambda returns the
// last 4 KB.
func logTail(id, logged, report string) string {
	tail := "START RequestId: " + id + " Version: $LATEST\n" + logged + "END RequestId: " + id + "\n" + report
	if len(tail) > tailLimit {
		tail = tail[len(tail)-tailLimit:]
	}
	return tail
}

// handlerError says whether the function's answer is the error a runtime reports for a handler
// that failed, which the emulator passes on as a plain 200.
func handlerError(body []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, msg := m["errorMessage"]
	_, typ := m["errorType"]
	return msg && typ && len(m) <= 3
}

// report is one invoke's REPORT line in Lambda's classic form.
type report struct {
	id                  string
	durationMs          float64
	initMs              *float64
	memoryMB, maxUsedMB int
	status              string
}

// String prints the REPORT as Lambda does, its fields in Lambda's order, each ending in a tab.
func (r report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "REPORT RequestId: %s\tDuration: %.2f ms\tBilled Duration: %d ms\tMemory Size: %d MB\tMax Memory Used: %d MB\t",
		r.id, r.durationMs, r.billedMs(), r.memoryMB, r.maxUsedMB)
	if r.initMs != nil {
		fmt.Fprintf(&b, "Init Duration: %.2f ms\t", *r.initMs)
	}
	if r.status != "" {
		fmt.Fprintf(&b, "Status: %s\t", r.status)
	}
	return b.String()
}
