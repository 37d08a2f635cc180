package lambdaapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
)

// tailLimit is how much of an invocation's log Invoke's LogType Tail returns, as Lambda does.
const tailLimit = 4096

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
	// The REPORT's Init and memory are the harness's, not the emulator's (see report), read
	// before a timeout or a failure ends the environment.
	initMs, maxUsedMB := s.measured(f, name)

	var durationMs float64
	var status string
	var body []byte
	var functionError, logged string
	switch {
	case timedOut:
		s.endRunning() // Lambda ends an environment whose invoke timed out
		durationMs, status = float64(limit)/float64(time.Millisecond), "timeout"
		msg := fmt.Sprintf("%s %s Task timed out after %.2f seconds", time.Now().UTC().Format(time.RFC3339Nano), id, limit.Seconds())
		body, _ = json.Marshal(map[string]string{"errorMessage": msg})
		functionError, logged = "Unhandled", msg+"\n"
	case inv.Failure != "":
		s.endRunning() // the runtime is gone; the next invoke starts a fresh environment
		durationMs, status = float64(time.Since(start))/float64(time.Millisecond), "error"
		body, _ = json.Marshal(map[string]string{"errorType": "Runtime.ExitError", "errorMessage": inv.Failure})
		functionError = "Unhandled"
	default:
		// The handler's time as the harness saw it: the emulator's cold Duration holds the Init
		// besides, which the REPORT now bills separately.
		if d, ok := f.env.Handled(inv.RequestID); ok {
			durationMs = float64(d) / float64(time.Millisecond)
		} else if inv.Report.Duration != nil {
			durationMs = *inv.Report.Duration
		} else {
			durationMs = inv.ClientMs
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

	line := lambdareport.Format(report(id, durationMs, initMs, cfg.MemorySize, maxUsedMB, status))
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

// measured is what the harness measured of f's environment for the invoke that just ran, in the
// REPORT's units: the Init it modelled, from the runtime's start to its first request for an
// event, where this invoke is the first since an Init ended (a cold start; nil otherwise, and
// nil where Init did not end, as in a failed Init), and the memory the environment used at its
// peak so far, in MB (nil where it could not be measured, which is logged: no figure is made up).
// Call with envMu held, before the environment is ended.
func (s *Server) measured(f *function, name string) (initMs *float64, maxUsedMB *int) {
	if d, ok := f.env.TakeInit(); ok {
		ms := float64(d) / float64(time.Millisecond)
		initMs = &ms
	}
	m, err := f.env.PeakMemory()
	if err != nil {
		s.t.Logf("lambdaapi: %s's REPORT has no Max Memory Used: measuring its environment's memory: %v", name, err)
		return initMs, nil
	}
	mb := m.MB()
	return initMs, &mb
}

// report is one invoke's REPORT as Lambda prints it for a custom runtime (provided.*, the only
// runtimes this stand-in runs), from the harness's figures, never the emulator's (whose Init
// Duration stops before the runtime starts and whose Max Memory Used is Memory Size): initMs is
// the Init the harness modelled, nil on a warm invoke, and maxUsedMB the environment's peak
// memory, nil where it could not be measured, when the line leaves Max Memory Used out. Lambda
// bills its Init with its first invoke, so a cold start bills ceil(Init Duration + Duration) and
// a warm invoke ceil(Duration), in whole milliseconds (lambdareport.Report.BilledAsLambda).
func report(id string, durationMs float64, initMs *float64, memoryMB int, maxUsedMB *int, status string) lambdareport.Report {
	r := lambdareport.Report{RequestID: id, Duration: &durationMs, InitDuration: initMs, MemorySizeMB: &memoryMB, MaxMemoryUsedMB: maxUsedMB, Status: status}
	billed, _ := r.BilledAsLambda()
	r.BilledDuration = &billed
	return r
}
