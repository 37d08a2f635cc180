package family

// The coldstart.throttle family (T8): functions/throttle's busy loops at each memory size, and
// the CPU model's prediction for each.

import (
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/results/family/throttle"
)

// ThrottleParameters are coldstart.throttle's (T8).
type ThrottleParameters struct {
	BusyMs int64 `json:"busyMs" jsonschema:"minimum=1"`
	// Cut is where the time left ran no loop at all (Planned: the memory sizes); nil where
	// every size ran.
	Cut               *Cut    `json:"cut,omitempty"`
	Invocations       int     `json:"invocations" jsonschema:"minimum=1"`
	MemorySizesMB     []int   `json:"memorySizesMB" jsonschema:"minimum=128,minItems=1"`
	PublishedPeriodMs float64 `json:"publishedPeriodMs" jsonschema:"exclusiveMinimum=0"`
}

// ThrottleSummary is coldstart.throttle's figures, with its printed table.
type ThrottleSummary struct {
	BySize []SizeFigures `json:"bySize"`
	Table  string        `json:"table"`
}

// SizeFigures are one memory size's figures.
type SizeFigures struct {
	MemoryMB int `json:"memoryMB" jsonschema:"minimum=128"`
	// ExpectedShare is M/1,769 of one CPU, at most 1.
	ExpectedShare float64 `json:"expectedShare" jsonschema:"minimum=0"`
	// Share is the function's share, the one decided: the CPU the kernel charged the function's
	// process over the loops, over their wall time.
	Share float64 `json:"share" jsonschema:"minimum=0"`
	// LoopShare is the loops' run time over their wall time, and ThreadShare the kernel's
	// charge to the loop's thread over the same: the part of the function's share the loop got.
	LoopShare   float64 `json:"loopShare" jsonschema:"minimum=0"`
	ThreadShare float64 `json:"threadShare" jsonschema:"minimum=0"`
	// Grids are the coarsest grid each loop's stall ends fall on.
	Grids []stats.GridFit `json:"grids" jsonschema:"nullable"`
	// RunMs and StallMs are the lengths of the runs between stalls and of the stalls.
	RunMs   stats.Summary `json:"runMs"`
	StallMs stats.Summary `json:"stallMs"`
	// Prediction is what the model of Lambda's CPU predicts of this size's loops.
	Prediction CPUPrediction `json:"prediction"`
}

// CPUPrediction is what the model of Lambda's CPU predicts of a single-threaded busy loop at one
// memory size, in the units published runs on Lambda use, from two facts alone: the M/1,769 rule
// and the 20 ms period. The quota covers the whole environment, so the function's other threads
// (the Go runtime's, the emulator's) spend it too: their part is this run's measure, the one
// figure the prediction takes from the run, and the loop gets what they leave of the quota, at
// most one vCPU.
type CPUPrediction struct {
	// M/1,769 of one vCPU, per period
	QuotaVCPU float64 `json:"quotaVcpu" jsonschema:"exclusiveMinimum=0"`
	// what the function's other threads took in this run, measured
	OtherThreadsVCPU float64 `json:"otherThreadsVcpu" jsonschema:"minimum=0"`
	// min(1, quota - other threads): the loop's share over the run
	LoopShareOfVCPU float64 `json:"loopShareOfVcpu" jsonschema:"maximum=1,minimum=0"`
	// a run of the loop between stalls: its share of a period; 0 where it never stalls
	RunMs float64 `json:"runMs" jsonschema:"minimum=0"`
	// a stall: the rest of the period; 0 where it never stalls
	StallMs float64 `json:"stallMs" jsonschema:"minimum=0"`
	// from one stall's end to the next: one period; 0 where it never stalls
	StallGapMs float64 `json:"stallGapMs" jsonschema:"minimum=0"`
	// over the loop's wall time, one a period; 0 where it never stalls
	Stalls int `json:"stalls" jsonschema:"minimum=0"`
	// the period the prediction is made for
	PeriodMs float64 `json:"periodMs" jsonschema:"exclusiveMinimum=0"`
	// what the prediction took from published figures
	FromPublishedOnly string `json:"fromPublishedOnly" jsonschema:"minLength=1"`
}

// SizeLoops are one memory size's busy loops.
type SizeLoops struct {
	MemoryMB   int             `json:"memoryMB" jsonschema:"minimum=128"`
	Loops      []throttle.Loop `json:"loops" jsonschema:"nullable"`
	Failures   []string        `json:"failures,omitempty"`
	Throttling *Throttling     `json:"throttling,omitempty"`
}
