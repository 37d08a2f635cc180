package lambdaapi

import (
	"slices"
	"strconv"
	"time"
)

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
