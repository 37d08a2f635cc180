package coldstart

// What the claims T1 to T6 read of functions/getitem, on any platform: its answer, an invocation
// as a result keeps it, and a cold start (a new execution environment, its first invocation and
// warm ones).

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memoryMB is the memory size the article's function had.
const memoryMB = 128

// The article's two functions, as CLAIMS_VARIANT: cold (Init builds the client) and warm (Init
// also makes one ListTables, to leave a connection for the handler).
const (
	cold = "cold"
	warm = "warm"
)

// getitemConfig is the article's function: variant at memory MB, with the machine's CPU where
// unthrottled, built from b.
func getitemConfig(b functionCode, variant string, memory int, unthrottled bool) functionConfig {
	return functionConfig{Build: b, MemoryMB: memory, Unthrottled: unthrottled, DynamoDB: true, Env: map[string]string{"CLAIMS_VARIANT": variant}}
}

// phases is the function's account of one SDK call, on its own connection (functions/getitem).
type phases struct {
	DNSMs        float64 `json:"dnsMs"`
	DNSCPUMs     float64 `json:"dnsCpuMs"`
	ConnectMs    float64 `json:"connectMs"`
	ConnectCPUMs float64 `json:"connectCpuMs"`
	TLSMs        float64 `json:"tlsMs"`
	TLSCPUMs     float64 `json:"tlsCpuMs"`
	TTFBMs       float64 `json:"ttfbMs"`
	Reused       bool    `json:"reused"`
	Pooled       bool    `json:"pooled"`
	TotalMs      float64 `json:"totalMs"`
	Attempts     int     `json:"attempts"`
	Curve        string  `json:"curve,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// answer is the function's answer to one invocation.
type answer struct {
	phases
	Found      bool    `json:"found"`
	Variant    string  `json:"variant"`
	Invocation int     `json:"invocation"`
	InitMs     float64 `json:"initMs"`
	InitFrom   string  `json:"initFrom"`
	InitGoMs   float64 `json:"initGoMs"`
	Warmup     *phases `json:"warmup,omitempty"`
	Pid        int     `json:"pid"`
	HandlerMs  float64 `json:"handlerMs"`
	// HandlerCPUMs is the CPU the function's process was charged over its handler.
	HandlerCPUMs float64 `json:"handlerCpuMs"`
}

// setupMs is the first call's network set-up: DNS, TCP and TLS.
func (p phases) setupMs() float64 { return p.DNSMs + p.ConnectMs + p.TLSMs }

// setupCPUMs is the CPU the process was charged over the same phases.
func (p phases) setupCPUMs() float64 { return p.DNSCPUMs + p.ConnectCPUMs + p.TLSCPUMs }

// invoked is one invocation as a result keeps it.
type invoked struct {
	Status int `json:"status"`
	// Error is the platform's word that the function failed (an Init that failed, a crash).
	Error  string `json:"error,omitempty"`
	Answer answer `json:"answer"`
	// Body is the answer as sent, when it is not the function's JSON.
	Body     string  `json:"body,omitempty"`
	Report   report  `json:"report"`
	ClientMs float64 `json:"clientMs"`
}

// report is an invocation's REPORT as a result keeps it: what the line carried, nil where it
// carried nothing (Init only on a cold start).
type report struct {
	InitMs          *float64 `json:"initMs,omitempty"`
	DurationMs      *float64 `json:"durationMs,omitempty"`
	BilledMs        *float64 `json:"billedMs,omitempty"`
	MemorySizeMB    *int     `json:"memorySizeMB,omitempty"`
	MaxMemoryUsedMB *int     `json:"maxMemoryUsedMB,omitempty"`
	Status          string   `json:"status,omitempty"` // "timeout", "error"; "" for success
}

// ok says the function answered: status 200 with its JSON.
func (i invoked) ok() bool { return i.Status == http.StatusOK && i.Error == "" && i.Body == "" }

// reportDurationMs is the REPORT's Duration, 0 where it had none.
func (i invoked) reportDurationMs() float64 {
	if i.Report.DurationMs == nil {
		return 0
	}
	return *i.Report.DurationMs
}

// invokeTimeout bounds one invocation of getitem: far above the SDK's retries of a stalled call.
const invokeTimeout = 60 * time.Second

// invoke sends f one event. An answer that is not the function's JSON (an Init that failed, a
// timeout) is kept as it came, for the checks to judge; only an invoke that gets no answer at all
// fails the test.
func invoke(t *testing.T, f function) invoked {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), invokeTimeout)
	defer cancel()
	inv, err := f.Invoke(ctx, []byte(`{}`))
	require.NoError(t, err)
	r := inv.Report
	out := invoked{Status: inv.Status, Error: inv.Error, ClientMs: inv.ClientMs, Report: report{
		InitMs: r.InitDuration, DurationMs: r.Duration, BilledMs: r.BilledDuration,
		MemorySizeMB: r.MemorySizeMB, MaxMemoryUsedMB: r.MaxMemoryUsedMB, Status: r.Status,
	}}
	if inv.Error != "" {
		return out
	}
	if inv.Status != http.StatusOK || json.Unmarshal(inv.Payload, &out.Answer) != nil {
		out.Body = string(inv.Payload)
	}
	return out
}

// throttling is what the platform counted for one environment's CPU: periods in which it ran,
// periods in which it was throttled, and the time it waited.
type throttling struct {
	Periods   int64   `json:"periods"`
	Throttled int64   `json:"throttled"`
	WaitedMs  float64 `json:"waitedMs"`
}

// throttlingOf is what f's platform counted for its running environment, nil where it counts
// nothing.
func throttlingOf(t *testing.T, f function) *throttling {
	t.Helper()
	tc, ok := f.(throttleCounter)
	if !ok {
		return nil
	}
	th, err := tc.Throttling()
	require.NoError(t, err, "reading the environment's throttling")
	return th
}

// coldStart is one cold start: a fresh execution environment, its first invocation and a second,
// warm one.
type coldStart struct {
	// Arm names the function it ran, as the result's parameters list them.
	Arm    string  `json:"arm"`
	First  invoked `json:"first"`
	Second invoked `json:"second"`
	// Later are the warm invocations after the second, where a test asks for them.
	Later []invoked `json:"later,omitempty"`
	// Throttling is the platform's count for the whole cold start; nil where it has none.
	Throttling *throttling `json:"throttling,omitempty"`
}

// pause lets one CFS period pass between invocations: a warm invocation is a later request, not
// one on the heels of the first, which would inherit the first's throttling.
func pause() { time.Sleep(cfg.CPUPeriod) }

// runColdStart runs one cold start of f, the arm named arm: its first invocation, a second and
// later more, each one period after the last.
func runColdStart(t *testing.T, f function, arm string, later int) coldStart {
	t.Helper()
	require.NoError(t, f.ColdStart(t.Context()), "cold-starting %s", arm)
	c := coldStart{Arm: arm}
	c.First = invoke(t, f)
	pause()
	c.Second = invoke(t, f)
	for range later {
		pause()
		c.Later = append(c.Later, invoke(t, f))
	}
	c.Throttling = throttlingOf(t, f)
	return c
}
