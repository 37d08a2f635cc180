// Package throttle is functions/throttle's answer to an invocation, as the function sends it and
// T8's results keep it (results/family's coldstart.throttle): the function answers with these
// types and the experiments and the report read them, so the answer is declared once. It imports
// nothing, to keep the function's binary what it was.
package throttle

// Span is a stretch of a busy loop, in ms from its start.
type Span struct {
	StartMs float64 `json:"startMs"`
	EndMs   float64 `json:"endMs"`
}

// Loop is what one busy loop saw, and where it ran: functions/throttle's answer.
type Loop struct {
	// WallMs is the loop's length, from its first clock read to its last.
	WallMs float64 `json:"wallMs" jsonschema:"minimum=0"`
	// RunMs is the time the loop ran: WallMs less the stalls.
	RunMs float64 `json:"runMs" jsonschema:"minimum=0"`
	// GapMs is the shortest gap that counted as a stall.
	GapMs float64 `json:"gapMs" jsonschema:"minimum=0"`
	// Runs and Stalls alternate, starting and ending with a run.
	Runs   []Span `json:"runs" jsonschema:"nullable"`
	Stalls []Span `json:"stalls" jsonschema:"nullable"`
	// ThreadCPUMs is the CPU time the kernel charged the loop's thread over the loop, and
	// ProcessCPUMs the whole process's (the Go runtime's other threads too).
	ThreadCPUMs  float64 `json:"threadCpuMs" jsonschema:"minimum=0"`
	ProcessCPUMs float64 `json:"processCpuMs" jsonschema:"minimum=0"`
	// Invocation counts the process's invocations, from 1.
	Invocation int `json:"invocation" jsonschema:"minimum=0"`
	// Pid is the process's id: two answers with the same pid came from one environment.
	Pid int `json:"pid" jsonschema:"minimum=0"`
	// NumCPU is the CPUs the function's process may run on (runtime.NumCPU): what the guest
	// shows, not what the quota gives.
	NumCPU int `json:"numCpu" jsonschema:"minimum=0"`
	// MemoryMB is AWS_LAMBDA_FUNCTION_MEMORY_SIZE, 0 when unset.
	MemoryMB int `json:"memoryMB" jsonschema:"minimum=0"`
}
