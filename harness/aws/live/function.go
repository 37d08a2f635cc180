package live

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
)

// EnvColdStart is the variable ColdStart changes to make Lambda start a new execution environment.
const EnvColdStart = "CLAIMS_COLD_START"

// Runtime is a function's runtime where its spec names none: a bootstrap (Go's, Rust's) on
// Amazon Linux 2023.
const Runtime = types.RuntimeProvidedal2023

// functionWait bounds each wait for a function to become Active or finish an update.
const functionWait = 5 * time.Minute

// conflictRetries is how many times ColdStart waits out an update in progress and tries again.
const conflictRetries = 5

// FunctionSpec says how to make a function.
type FunctionSpec struct {
	// Name is the short name: the function is claims-<run>-<Name>.
	Name string
	// Zip is the deployment package (harness/lambda/lambdazip): an executable bootstrap for
	// provided.al2023, the handler's module and what it imports for a managed runtime.
	Zip []byte
	// Runtime and Handler are CreateFunction's; "" means Runtime and "bootstrap".
	Runtime string
	Handler string
	// Arch is ArchARM64 or ArchX8664; empty means the session's Config.Arch.
	Arch           string
	MemoryMB       int
	TimeoutSeconds int
	Env            map[string]string
}

// Function is a function the session made.
type Function struct {
	// Name is the full name, claims-<run>-<short name>.
	Name string
	// ARN is the function's ARN as Lambda answered it, account id included: show it through
	// RedactARN.
	ARN            string
	MemoryMB       int
	arch           string
	timeoutSeconds int
	env            map[string]string
	colds          int
	s              *Session
	undo           *undo
}

// isLambdaNotFound reports whether err is Lambda's ResourceNotFoundException.
func isLambdaNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// CreateFunction makes the function (its runtime and handler, by default provided.al2023 and
// bootstrap; the run's tags) and
// waits until it is Active. It is registered for deletion the moment it exists. What a new role
// meets while IAM makes it usable is retried for up to a minute: a role Lambda cannot assume
// yet, and the KMS grant for the environment variables that KMS refuses for a role it does not
// know yet (createRetryable). A memory size above the account's quota is an error naming the
// quota. A function that fails to become Active is deleted, and the error says why it failed.
func (s *Session) CreateFunction(ctx context.Context, spec FunctionSpec) (*Function, error) {
	name, err := s.name(spec.Name)
	if err != nil {
		return nil, err
	}
	done, err := s.mayMake("function " + name)
	if err != nil {
		return nil, err
	}
	defer done()
	arch := spec.Arch
	if arch == "" {
		arch = s.Config.Arch
	}
	if arch != ArchARM64 && arch != ArchX8664 {
		return nil, fmt.Errorf("live: function %s: architecture %q: want %s or %s", name, arch, ArchARM64, ArchX8664)
	}
	role, err := s.Role(ctx)
	if err != nil {
		return nil, err
	}
	f := &Function{Name: name, MemoryMB: spec.MemoryMB, arch: arch, timeoutSeconds: spec.TimeoutSeconds, env: maps.Clone(spec.Env), s: s}
	if f.env == nil {
		f.env = map[string]string{}
	}
	runtime, handler := types.Runtime(spec.Runtime), spec.Handler
	if runtime == "" {
		runtime = Runtime
	}
	if handler == "" {
		handler = "bootstrap"
	}
	in := &lambda.CreateFunctionInput{
		FunctionName:  aws.String(name),
		Runtime:       runtime,
		Handler:       aws.String(handler),
		Role:          aws.String(role),
		Code:          &types.FunctionCode{ZipFile: spec.Zip},
		MemorySize:    aws.Int32(int32(spec.MemoryMB)),
		Timeout:       aws.Int32(int32(spec.TimeoutSeconds)),
		Architectures: []types.Architecture{types.Architecture(arch)},
		Environment:   &types.Environment{Variables: maps.Clone(f.env)},
		Tags:          s.tags(),
	}
	deadline := time.Now().Add(s.roleWait)
	delay := s.waitMin
	for {
		out, err := s.Lambda.CreateFunction(ctx, in)
		if err == nil {
			f.ARN = aws.ToString(out.FunctionArn)
			break
		}
		if q, ok := memoryQuota(err); ok {
			return nil, redact(fmt.Errorf("live: CreateFunction %s: MemorySize %d MB is above this account's Lambda memory quota of %s: "+
				"new accounts have a reduced quota (3008 MB has been seen); ask AWS Support to raise the account's maximum function memory, or run where it allows %d MB: %w",
				name, spec.MemoryMB, q, spec.MemoryMB, err))
		}
		waitFor, retry := createRetryable(err)
		if !retry || time.Now().After(deadline) {
			return nil, redact(fmt.Errorf("live: CreateFunction %s: %w", name, err))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("live: CreateFunction %s: waiting for %s: %w", name, waitFor, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, s.waitMax)
	}
	f.undo = s.made("function "+name, func(ctx context.Context) error {
		_, err := s.Lambda.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String(name)})
		return ignoreNotFound(err)
	})
	done()
	// Made before the first invocation, so that Lambda logs into a group whose events expire:
	// the one Lambda makes has no retention and outlives the run.
	if err := PrepareLogGroup(ctx, s.Logs, FunctionLogGroup(name)); err != nil {
		return nil, err
	}
	err = lambda.NewFunctionActiveV2Waiter(s.Lambda, func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = s.waitMin, s.waitMax
	}).Wait(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(name)}, functionWait)
	if err != nil {
		err = fmt.Errorf("live: waiting for function %s to become Active: %w%s", name, err, f.stateReason(ctx))
		if derr := f.Delete(ctx); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, redact(err)
	}
	return f, nil
}

// createRetryable says whether a CreateFunction error is one a new role meets until IAM has
// made it usable everywhere, and what is waited for: Lambda cannot assume the role yet, or KMS
// does not yet know the role as the principal of the grant Lambda makes for the environment
// variables ("the KMS key is invalid for CreateGrant", hashicorp/terraform-provider-aws#4633;
// aws/chalice#1069 retries both).
func createRetryable(err error) (waitFor string, ok bool) {
	var bad *types.InvalidParameterValueException
	if !errors.As(err, &bad) {
		return "", false
	}
	switch msg := aws.ToString(bad.Message); {
	case strings.Contains(msg, "cannot be assumed"):
		return "the role to become assumable", true
	case strings.Contains(msg, "invalid for CreateGrant"):
		return "KMS to accept the new role in the environment variables' grant", true
	}
	return "", false
}

// quotaLimit is the largest size in Lambda's refusal of a memory size above the account's quota:
// "'MemorySize' value failed to satisfy constraint: Member must have value less than or equal
// to 3008" (a ValidationException, as users report it, e.g. alexcasalboni/aws-lambda-power-tuning#181).
var quotaLimit = regexp.MustCompile(`MemorySize.*less than or equal to (\d+)`)

// memoryQuota says whether err is Lambda refusing a memory size above the account's quota, and
// the quota as "N MB" ("unknown size" where the message gives no number).
func memoryQuota(err error) (string, bool) {
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" || !strings.Contains(api.ErrorMessage(), "MemorySize") {
		return "", false
	}
	if m := quotaLimit.FindStringSubmatch(api.ErrorMessage()); m != nil {
		return m[1] + " MB", true
	}
	return "unknown size", true
}

// stateReason is why Lambda says the function is in its state, for an error; "" when it cannot say.
func (f *Function) stateReason(ctx context.Context) string {
	c, err := f.s.Lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(f.Name)})
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (State %s, %s: %s; LastUpdateStatus %s, %s: %s)", c.State, c.StateReasonCode, aws.ToString(c.StateReason),
		c.LastUpdateStatus, c.LastUpdateStatusReasonCode, aws.ToString(c.LastUpdateStatusReason))
}

// updated waits until the function's last update is done.
func (f *Function) updated(ctx context.Context) error {
	return lambda.NewFunctionUpdatedV2Waiter(f.s.Lambda, func(o *lambda.FunctionUpdatedV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = f.s.waitMin, f.s.waitMax
	}).Wait(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(f.Name)}, functionWait)
}

// ColdStart makes the next invocation a cold start: it sets CLAIMS_COLD_START to a new number
// in the function's environment, keeping the rest, which makes Lambda retire the function's
// execution environments, and waits until the update is done. An update already in progress
// (ResourceConflictException) is waited out and the change tried again, a few times.
func (f *Function) ColdStart(ctx context.Context) error { return f.ColdStartWith(ctx, nil) }

// ColdStartWith is ColdStart that also sets the variables of set in the function's environment,
// removing those set to "": a setting of the new execution environments only, as on Lambda.
func (f *Function) ColdStartWith(ctx context.Context, set map[string]string) error {
	f.colds++
	env := maps.Clone(f.env)
	for k, v := range set {
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	env[EnvColdStart] = strconv.Itoa(f.colds)
	in := &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(f.Name), Environment: &types.Environment{Variables: env}}
	for attempt := 0; ; attempt++ {
		_, err := f.s.Lambda.UpdateFunctionConfiguration(ctx, in)
		var conflict *types.ResourceConflictException
		if errors.As(err, &conflict) && attempt < conflictRetries {
			if err := f.updated(ctx); err != nil {
				return redact(fmt.Errorf("live: function %s: waiting out an update in progress: %w", f.Name, err))
			}
			continue
		}
		if err != nil {
			return redact(fmt.Errorf("live: UpdateFunctionConfiguration %s: %w", f.Name, err))
		}
		break
	}
	f.env = env
	if err := f.updated(ctx); err != nil {
		return redact(fmt.Errorf("live: waiting for function %s's update: %w%s", f.Name, err, f.stateReason(ctx)))
	}
	return nil
}

// Invocation is one invoke's answer.
type Invocation struct {
	// Status is the HTTP status Lambda answered, 200 for a function that ran, failed or not.
	Status  int
	Payload []byte
	// FunctionError is X-Amz-Function-Error ("Unhandled" for a crash or a timeout); "" on success.
	FunctionError string
	// Report is the invocation's REPORT, from the log tail.
	Report    lambdareport.Report
	RequestID string
	// ClientMs is the call's time as the client saw it, network included.
	ClientMs float64
	// Attempts is how many requests the SDK's retryer sent for this Invoke. More than one means
	// an earlier attempt failed in transit or with a 5xx, after which the function may have run
	// (and been billed) without an answer: this answer may then come from a warm environment.
	Attempts int
}

// attemptCounter counts the attempts of one call: a Finalize step after the retryer's own
// (aws/retry's Attempt, ID "Retry", which loops over the steps after it once per attempt).
type attemptCounter struct{ n int }

// ID implements middleware.FinalizeMiddleware.
func (c *attemptCounter) ID() string { return "claimsAttemptCounter" }

// HandleFinalize implements middleware.FinalizeMiddleware.
func (c *attemptCounter) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	c.n++
	return next.HandleFinalize(ctx, in)
}

// countAttempts adds c to one call's stack.
func countAttempts(c *attemptCounter) func(*lambda.Options) {
	return func(o *lambda.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Insert(c, "Retry", middleware.After)
		})
	}
}

// Invoke invokes the function synchronously with its log tail and reads the invocation's REPORT
// from the tail. A function that failed or timed out is an Invocation with FunctionError; a
// missing or unreadable REPORT is an error naming the function and the request. Each REPORT's
// billed duration is added to the session's tally, and an invoke that would start once the tally
// has passed the cap is refused. Attempts says how many requests the SDK sent; each attempt that
// got no answer may have run the function, and is tallied at its longest (the timeout).
func (f *Function) Invoke(ctx context.Context, payload []byte) (Invocation, error) {
	if err := f.s.mayInvoke(f.Name); err != nil {
		return Invocation{}, err
	}
	var attempts attemptCounter
	start := time.Now()
	out, err := f.s.Lambda.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(f.Name),
		InvocationType: types.InvocationTypeRequestResponse,
		LogType:        types.LogTypeTail,
		Payload:        payload,
	}, countAttempts(&attempts))
	clientMs := float64(time.Since(start).Microseconds()) / 1000
	longest := invocationUSD(f.s.Region, f.arch, float64(f.timeoutSeconds)*1000, f.MemoryMB)
	if err != nil {
		// Each attempt may have run: each is tallied at its longest.
		f.s.spend(float64(max(attempts.n, 1)) * longest)
		return Invocation{Attempts: attempts.n}, redact(fmt.Errorf("live: Invoke %s (%d attempts): %w", f.Name, attempts.n, err))
	}
	if attempts.n > 1 {
		f.s.spend(float64(attempts.n-1) * longest)
	}
	inv := Invocation{
		Status: int(out.StatusCode), Payload: out.Payload, FunctionError: aws.ToString(out.FunctionError), ClientMs: clientMs,
		Attempts: attempts.n,
	}
	inv.RequestID, _ = awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	r, err := f.report(inv.RequestID, aws.ToString(out.LogResult))
	if err != nil {
		f.s.spend(longest)
		return inv, redact(fmt.Errorf("live: Invoke %s, request %s: %w", f.Name, inv.RequestID, err))
	}
	inv.Report = r
	// Billed Duration is the whole bill: a provided.al2023 cold start's includes its Init (custom
	// runtimes were always billed for Init), so Init is not added again.
	f.s.spend(invocationUSD(f.s.Region, f.arch, *r.BilledDuration, *r.MemorySizeMB))
	return inv, nil
}

// report reads request id's REPORT from a base64 log tail, and requires the figures a
// measurement and the tally need: a tail cut in the middle of the REPORT is an error, not a
// REPORT without a bill.
func (f *Function) report(requestID, tail string) (lambdareport.Report, error) {
	if tail == "" {
		return lambdareport.Report{}, errors.New("the answer carries no log tail (X-Amz-Log-Result)")
	}
	log, err := base64.StdEncoding.DecodeString(tail)
	if err != nil {
		return lambdareport.Report{}, fmt.Errorf("the log tail is not base64: %w", err)
	}
	reports, err := lambdareport.Find(string(log))
	if err != nil {
		return lambdareport.Report{}, fmt.Errorf("unreadable REPORT in the log tail: %w", err)
	}
	var found []lambdareport.Report
	for _, r := range reports {
		if requestID == "" || r.RequestID == requestID {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return lambdareport.Report{}, fmt.Errorf("no REPORT for the request in the log tail (%d REPORTs of other requests)", len(reports))
	}
	r := found[len(found)-1]
	var missing []string
	if r.Duration == nil {
		missing = append(missing, "Duration")
	}
	if r.BilledDuration == nil {
		missing = append(missing, "Billed Duration")
	}
	if r.MemorySizeMB == nil {
		missing = append(missing, "Memory Size")
	}
	if len(missing) > 0 {
		return lambdareport.Report{}, fmt.Errorf("the REPORT lacks %s (the log tail may be cut): %q", strings.Join(missing, ", "), lastLine(string(log)))
	}
	return r, nil
}

// lastLine is the last non-empty line of log, for an error.
func lastLine(log string) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	return lines[len(lines)-1]
}

// Delete deletes the function now rather than at Close; a function already gone is no error.
func (f *Function) Delete(ctx context.Context) error {
	_, err := f.s.Lambda.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String(f.Name)})
	if err = ignoreNotFound(err); err != nil {
		return redact(fmt.Errorf("live: DeleteFunction %s: %w", f.Name, err))
	}
	if f.undo != nil {
		f.s.forget(f.undo)
	}
	return nil
}
