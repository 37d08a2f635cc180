package family

// The threadpool families (P1-P11): a Node.js lab program (labs/threadpool) run on one runtime,
// its measurement read from the lab's RESULT line into these types and written as the result.
// Times are in ms.

import (
	"fmt"
	"strconv"

	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
)

func init() {
	register("threadpool.slots", Parts{Parameters: Of[SlotsParameters](), Target: Of[Lab](), Summary: Of[SlotsSummary](), Trials: Of[[]SlotCount]()})
	register("threadpool.poolThreads", Parts{Parameters: Of[PoolThreadsParameters](), Target: Of[Lab](), Summary: Of[PoolThreadsSummary](), Trials: Of[PoolThreadsRun]()})
	register("threadpool.waves", Parts{Parameters: Of[WavesParameters](), Target: Of[Lab](), Summary: Of[WavesSummary](), Trials: Of[[]WaveTrial]()})
	register("threadpool.entry", Parts{Parameters: Of[EntryParameters](), Target: Of[EntryTarget](), Summary: Of[EntrySummary](), Trials: Of[[]EntryOutcome]()})
	register("threadpool.blocking", Parts{Parameters: Of[BlockingParameters](), Target: Of[Lab](), Summary: Of[BlockingSummary](), Trials: Of[[]BlockingTrial]()})
	register("threadpool.apiTable", Parts{Parameters: Of[APITableParameters](), Target: Of[Lab](), Summary: Of[APITableSummary](), Trials: Of[[]APITableRun]()})
	register("threadpool.interference", Parts{Parameters: Of[InterferenceParameters](), Target: Of[Lab](), Summary: Of[InterferenceSummary](), Trials: Of[InterferenceTrials]()})
	register("threadpool.syncPath", Parts{Parameters: Of[SyncPathParameters](), Target: Of[SyncPathTarget](), Summary: Of[SyncPathSummary](), Trials: Of[[]SyncPathRound]()})
}

// Lab is one lab program on one Node.js runtime with its environment, as a result records it:
// the whole environment the test set (UV_THREADPOOL_SIZE absent means libuv's default).
type Lab struct {
	Node   runtimes.Node     `json:"node"`
	Script string            `json:"script" jsonschema:"pattern=^testdata/threadpool/"` // repository-relative
	Env    map[string]string `json:"env"`
}

// ThreadList is a process's threads: how many, and how many of each name.
type ThreadList struct {
	Total  int            `json:"total" jsonschema:"minimum=1"`
	ByName map[string]int `json:"byName"` // libuv 1.50 and later name the pool's threads libuv-worker
}

// SlotRound is one round of a slot count: Jobs holding a slot, how many were let go before the
// stat completed, and whether the stat waited.
type SlotRound struct {
	Jobs                int  `json:"jobs" jsonschema:"minimum=1"`
	HeavyDoneBeforeStat int  `json:"heavyDoneBeforeStat" jsonschema:"minimum=0"`
	StatWaited          bool `json:"statWaited"`
}

// SlotCount is one process's count of the pool's slots.
type SlotCount struct {
	Slots   *int        `json:"slots" jsonschema:"minimum=1"` // nil: the stat never waited up to maxJobs
	Rounds  []SlotRound `json:"rounds"`
	Threads ThreadList  `json:"threads"`
}

// String is the count as a message reads it.
func (c SlotCount) String() string {
	if c.Slots == nil {
		return fmt.Sprintf("none found up to %d jobs", len(c.Rounds))
	}
	return strconv.Itoa(*c.Slots)
}

// SlotsParameters are threadpool.slots' (P3, P4, P11).
type SlotsParameters struct {
	Runs    int `json:"runs" jsonschema:"minimum=1"`    // processes that each counted
	MaxJobs int `json:"maxJobs" jsonschema:"minimum=1"` // the most slot-holding jobs a count tries
	// how long a round waits for its tiny job before letting the slots go
	HoldMs int `json:"holdMs" jsonschema:"minimum=1"`
	Want   int `json:"want" jsonschema:"minimum=1"` // the slot count the claim says
}

// SlotsSummary is threadpool.slots' figures.
type SlotsSummary struct {
	// each run's count; null where none was found
	Counts         []*int           `json:"counts" jsonschema:"minimum=1,minItems=1"`
	CountsAgreeing stats.Proportion `json:"countsAgreeing"`
}

// PoolThreadsParameters are threadpool.poolThreads' (a size above libuv's maximum).
type PoolThreadsParameters struct {
	Requested int `json:"requested" jsonschema:"minimum=1"` // UV_THREADPOOL_SIZE
	Max       int `json:"max" jsonschema:"minimum=1"`       // libuv's maximum
}

// PoolThreadsSummary is threadpool.poolThreads' figure.
type PoolThreadsSummary struct {
	PoolThreads int `json:"poolThreads"` // threads the first pool job started
}

// PoolThreadsRun is threadpool.poolThreads' one trial: the threads before and after the pool
// started.
type PoolThreadsRun struct {
	PoolThreads int        `json:"poolThreads"`
	Before      ThreadList `json:"before"`
	After       ThreadList `json:"after"`
}

// WaveConfig is one configuration of threadpool.waves: jobs at a pool size.
type WaveConfig struct {
	Config string `json:"config"`
	Jobs   int    `json:"jobs" jsonschema:"minimum=1"`
	Size   string `json:"uvThreadpoolSize"`
}

// WaveRun is one configuration's run in a trial, with every job's end.
type WaveRun struct {
	WaveConfig
	EndsMs []float64 `json:"endsMs" jsonschema:"minimum=0,minItems=1"`
}

// WaveTrial is one trial of threadpool.waves: each configuration's run in the order they ran.
type WaveTrial struct {
	Runs []WaveRun `json:"runs" jsonschema:"minItems=1"`
}

// WavesParameters are threadpool.waves' (P3, P4).
type WavesParameters struct {
	Trials int `json:"trials" jsonschema:"minimum=1"`
	JobMs  int `json:"jobMs" jsonschema:"minimum=1"` // one job's length on an idle core
	// pbkdf2 iterations of a job, calibrated to JobMs
	Iterations int          `json:"iterations" jsonschema:"minimum=1"`
	Configs    []WaveConfig `json:"configs" jsonschema:"minItems=1"`
}

// WavesSummary is threadpool.waves' figures.
type WavesSummary struct {
	Configs []WaveConfigSummary `json:"configs"`
	// TotalRatio is the median over trials of the last end with 8 slots / with 4 (8 jobs);
	// ExpectedTotalRatio what pure CPU work on Cores cores gives.
	TotalRatio         float64 `json:"totalRatio"`
	ExpectedTotalRatio float64 `json:"expectedTotalRatio"`
	Cores              int     `json:"cores" jsonschema:"minimum=1"`
}

// WaveConfigSummary is one configuration's figures over the trials.
type WaveConfigSummary struct {
	Config          string  `json:"config"`
	MedianLastEndMs float64 `json:"medianLastEndMs" jsonschema:"minimum=0"`
	// later half's median end / earlier half's
	MedianSplit      float64   `json:"medianSplit"`
	FirstTrialEndsMs []float64 `json:"firstTrialEndsMs" jsonschema:"minimum=0"` // as the article printed its ends
}

// EntryForm is one entry form of threadpool.entry: a script that sets the pool size its own way.
type EntryForm struct {
	Name   string `json:"name"`
	Script string `json:"script"`
}

// EntryTarget is threadpool.entry's target: every runtime and form it ran.
type EntryTarget struct {
	Nodes []runtimes.Node   `json:"nodes" jsonschema:"minItems=1"`
	Forms []EntryForm       `json:"forms" jsonschema:"minItems=1"`
	Env   map[string]string `json:"env"` // UV_THREADPOOL_SIZE unset: the program is to set it
}

// EntryParameters are threadpool.entry's (P5).
type EntryParameters struct {
	SetPoolSize int `json:"setPoolSize" jsonschema:"minimum=1"` // what each entry's first line sets
}

// EntrySummary is threadpool.entry's figures.
type EntrySummary struct {
	Ignored  stats.Proportion `json:"ignored"`  // entry forms whose count is not what they set
	Outcomes []string         `json:"outcomes"` // each form on each runtime, in words
	Why      string           `json:"why"`      // why the ES-module form differs by version (the catalog's)
}

// EntryOutcome is one form on one runtime.
type EntryOutcome struct {
	Node    string `json:"node"`
	Form    string `json:"form"`
	Script  string `json:"script"`
	Slots   int    `json:"slots" jsonschema:"minimum=1"`
	Honored bool   `json:"honored"` // the count is the size the program set
}

// LoopMeasure is one call's cost to the event loop.
type LoopMeasure struct {
	WorkMs     float64 `json:"workMs" jsonschema:"minimum=0"`
	CPUMs      float64 `json:"cpuMs" jsonschema:"minimum=0"` // the process's CPU over the call, every thread
	BlockedMs  float64 `json:"blockedMs" jsonschema:"minimum=0"`
	Samples    int     `json:"samples" jsonschema:"minimum=0"`
	IntervalMs float64 `json:"intervalMs" jsonschema:"minimum=0"`
	Method     string  `json:"method"`
}

// BlockingTrial is one run of threadpool.blocking, each way.
type BlockingTrial struct {
	Sync            LoopMeasure      `json:"sync"`
	Async           *LoopMeasure     `json:"async,omitempty"`                          // P1, P9; JSON.parse has none
	CompressedBytes *CompressedBytes `json:"compressedBytes,omitempty"`                // P9
	Records         int              `json:"records,omitempty" jsonschema:"minimum=1"` // P8: the parsed array's length
}

// CompressedBytes is gzip's output each way (P9).
type CompressedBytes struct {
	Sync  int `json:"sync" jsonschema:"minimum=0"`
	Async int `json:"async" jsonschema:"minimum=0"`
}

// BlockingParameters are threadpool.blocking's (P1, P8, P9).
type BlockingParameters struct {
	Op   string `json:"op" jsonschema:"enum=pbkdf2,enum=gzip,enum=json"` // pbkdf2, gzip or json
	Reps int    `json:"reps" jsonschema:"minimum=1"`                     // runs each way, in one process
	// pbkdf2: one call's length on an idle core
	JobMs int `json:"jobMs,omitempty" jsonschema:"minimum=1"`
	// pbkdf2: its iterations, calibrated to JobMs
	Iterations int `json:"iterations,omitempty" jsonschema:"minimum=1"`
	// gzip: the input; json: the document asked for
	Bytes int `json:"bytes,omitempty" jsonschema:"minimum=1"`
}

// BlockingSummary is threadpool.blocking's figures.
type BlockingSummary struct {
	Method        string       `json:"method"`
	Runs          int          `json:"runs" jsonschema:"minimum=1"`
	Sync          LoopFigures  `json:"sync"`
	Async         *LoopFigures `json:"async,omitempty"`
	DocumentBytes int          `json:"documentBytes,omitempty" jsonschema:"minimum=1"` // P8: the document the lab made
}

// LoopFigures are one way's figures over the runs.
type LoopFigures struct {
	MedianWorkMs    float64 `json:"medianWorkMs" jsonschema:"minimum=0"`
	FastestWorkMs   float64 `json:"fastestWorkMs" jsonschema:"minimum=0"`
	MedianCPUMs     float64 `json:"medianCpuMs" jsonschema:"minimum=0"`
	LeastCPUMs      float64 `json:"leastCpuMs" jsonschema:"minimum=0"`
	MedianBlockedMs float64 `json:"medianBlockedMs" jsonschema:"minimum=0"`
	// MedianBlockedShare is the median of blocked / work: the share of the call the loop could
	// not run.
	MedianBlockedShare float64 `json:"medianBlockedShare"`
}

// APIRow is one API's call in one run of threadpool.apiTable.
type APIRow struct {
	API             string  `json:"api"`
	Docs            string  `json:"docs" jsonschema:"enum=uses the pool,enum=does not use the pool"`
	CompletedMs     float64 `json:"completedMs" jsonschema:"minimum=0"`
	HeavyDoneBefore int     `json:"heavyDoneBefore" jsonschema:"minimum=0"`
	WaitedForSlot   bool    `json:"waitedForSlot"`
}

// APITableRun is one run of threadpool.apiTable.
type APITableRun struct {
	HeavyJobs  int      `json:"heavyJobs" jsonschema:"minimum=1"`
	Iterations int      `json:"iterations" jsonschema:"minimum=1"`
	Rows       []APIRow `json:"rows" jsonschema:"minItems=1"`
}

// APITableRow is one API's verdict over the runs: the docs' word and what was measured.
type APITableRow struct {
	API      string `json:"api"`
	Docs     string `json:"docs" jsonschema:"enum=uses the pool,enum=does not use the pool"`
	Measured string `json:"measured"`
	Agree    bool   `json:"agree"`
}

// APITableParameters are threadpool.apiTable's (P2, P7).
type APITableParameters struct {
	Runs             int    `json:"runs" jsonschema:"minimum=1"`
	HeavyJobs        int    `json:"heavyJobs" jsonschema:"minimum=1"`  // pbkdf2 jobs started before each call
	JobMs            int    `json:"jobMs" jsonschema:"minimum=1"`      // one job's length on an idle core
	Iterations       int    `json:"iterations" jsonschema:"minimum=1"` // its pbkdf2 iterations, calibrated to JobMs
	UVThreadpoolSize string `json:"uvThreadpoolSize"`
}

// APITableSummary is threadpool.apiTable's figures.
type APITableSummary struct {
	Table        []APITableRow    `json:"table" jsonschema:"minItems=1"`
	RowsAgreeing stats.Proportion `json:"rowsAgreeing"` // rows whose every run agrees with the docs
}

// ReadUnder is one file read under one load.
type ReadUnder struct {
	ReadMs             float64 `json:"readMs" jsonschema:"minimum=0"`
	LoadDoneBeforeRead int     `json:"loadDoneBeforeRead" jsonschema:"minimum=0"`
	LoadCalls          int     `json:"loadCalls" jsonschema:"minimum=0"`
}

// InterferenceTrial is one trial of threadpool.interference: a read under each load.
type InterferenceTrial struct {
	Alone    ReadUnder `json:"alone"`
	Gzip     ReadUnder `json:"gzip"`
	Lookup   ReadUnder `json:"lookup"`
	Resolve4 ReadUnder `json:"resolve4"`
}

// InterferenceParameters are threadpool.interference's (P6, P7).
type InterferenceParameters struct {
	Trials           int    `json:"trials" jsonschema:"minimum=1"`
	UVThreadpoolSize string `json:"uvThreadpoolSize"`
	GzipJobs         int    `json:"gzipJobs" jsonschema:"minimum=1"`
	GzipBytes        int    `json:"gzipBytes" jsonschema:"minimum=1"`
	GzipChunkBytes   int    `json:"gzipChunkBytes" jsonschema:"minimum=0"`
	Names            int    `json:"names" jsonschema:"minimum=1"`       // lookups, and resolve4 calls, in flight
	NameDelayMs      int64  `json:"nameDelayMs" jsonschema:"minimum=0"` // each name's delay at both resolvers
	LoadSettleMs     int    `json:"loadSettleMs" jsonschema:"minimum=0"`
	SlowResolver     string `json:"slowResolver"`
	RoomyPool        string `json:"roomyPool,omitempty"` // P6's control's UV_THREADPOOL_SIZE
}

// InterferenceSummary is threadpool.interference's figures.
type InterferenceSummary struct {
	OneLookupMs float64     `json:"oneLookupMs" jsonschema:"minimum=0"` // one lookup alone, before the trials
	Reads       ReadsByLoad `json:"reads"`
	RoomyPool   *RoomyReads `json:"roomyPool,omitempty"` // P6's control
}

// RoomyReads are P6's control's reads, with its pool size.
type RoomyReads struct {
	UVThreadpoolSize string      `json:"uvThreadpoolSize"`
	Reads            ReadsByLoad `json:"reads"`
}

// ReadsByLoad are the reads' figures under each load.
type ReadsByLoad struct {
	Alone    ReadSummary `json:"alone"`
	Gzip     ReadSummary `json:"gzip"`
	Lookup   ReadSummary `json:"lookup"`
	Resolve4 ReadSummary `json:"resolve4"`
}

// ReadSummary is the reads under one load.
type ReadSummary struct {
	MedianReadMs   float64          `json:"medianReadMs" jsonschema:"minimum=0"`
	ReadsAfterLoad stats.Proportion `json:"readsAfterLoad"`
}

// InterferenceTrials are threadpool.interference's trials: the pool's, and P6's control's.
type InterferenceTrials struct {
	Pool      []InterferenceTrial `json:"pool" jsonschema:"minItems=1"`
	RoomyPool []InterferenceTrial `json:"roomyPool,omitempty" jsonschema:"minItems=1"`
}

// SyncPathParameters are threadpool.syncPath's (P10).
type SyncPathParameters struct {
	Rounds        int   `json:"rounds" jsonschema:"minimum=1"`
	FileBytes     int   `json:"fileBytes" jsonschema:"minimum=1"` // the data file each read reads
	Loaders       int   `json:"loaders" jsonschema:"minimum=1"`   // goroutines keeping /work flowing
	PingsPerRound int   `json:"pingsPerRound" jsonschema:"minimum=1"`
	PingEveryMs   int64 `json:"pingEveryMs" jsonschema:"minimum=1"`
}

// SyncPathTarget is threadpool.syncPath's two servers.
type SyncPathTarget struct {
	Startup SyncServer `json:"startup"`
	Request SyncServer `json:"request"`
}

// SyncServer is one server of threadpool.syncPath: its lab and READY line.
type SyncServer struct {
	Lab   Lab             `json:"lab"`
	Ready SyncServerReady `json:"ready"`
}

// SyncServerReady is a sync-path server's READY line.
type SyncServerReady struct {
	Addr    string `json:"addr"`
	EnvID   string `json:"envId"`
	PID     int    `json:"pid" jsonschema:"minimum=1"`
	Runtime string `json:"runtime"`
	Version string `json:"version"`
	SyncAt  string `json:"syncAt" jsonschema:"enum=startup,enum=request"` // startup or request
	// SyncAt, or request-async-read when broken
	Mode   string  `json:"mode"`
	Broken *string `json:"broken"` // LAB_BROKEN, null when unset
	// the start-up read's length; null on the request path
	StartupBytes *int `json:"startupBytes" jsonschema:"minimum=0"`
	// the start-up read's time; null on the request path
	StartupReadMs *float64 `json:"startupReadMs" jsonschema:"minimum=0"`
}

// SyncPathSummary is threadpool.syncPath's figures.
type SyncPathSummary struct {
	IdlePing                    stats.Summary `json:"idlePing"`
	StartupVariantPingUnderWork stats.Summary `json:"startupVariantPingUnderWork"`
	RequestVariantPingUnderWork stats.Summary `json:"requestVariantPingUnderWork"`
	// RequestVariantWorkHandler is the server's own time per /work: one read per answer.
	RequestVariantWorkHandler stats.Summary    `json:"requestVariantWorkHandler"`
	StartupReadMs             float64          `json:"startupReadMs" jsonschema:"minimum=0"`
	EvidentialRounds          stats.Proportion `json:"evidentialRounds"`
}

// SyncPathRound is one round of threadpool.syncPath.
type SyncPathRound struct {
	Round      int          `json:"round" jsonschema:"minimum=1"`
	Order      string       `json:"order" jsonschema:"enum=startup\\,request,enum=request\\,startup"`
	IdlePingMs []float64    `json:"idlePingMs" jsonschema:"minimum=0"` // the start-up variant, no /work in flight
	IdleP50Ms  float64      `json:"idleP50Ms" jsonschema:"minimum=0"`
	Startup    SyncPathLoad `json:"startup"`
	Request    SyncPathLoad `json:"request"`
	Evidential bool         `json:"evidential"`
}

// SyncPathLoad is one variant's /ping under /work in a round.
type SyncPathLoad struct {
	PingMs    []float64 `json:"pingMs" jsonschema:"minimum=0"`
	PingP50Ms float64   `json:"pingP50Ms" jsonschema:"minimum=0"`
	// WorkAnswered counts every /work answered in the round; WorkInWindow those in flight in the
	// /ping window (from the first /ping sent to the last answered): sent before it ended and
	// answered after it began. Counting only those answered inside it left a loaded machine's
	// rounds of the broken variant without evidence: its async read outlasted the window.
	WorkAnswered int `json:"workAnswered" jsonschema:"minimum=0"`
	WorkInWindow int `json:"workInWindow" jsonschema:"minimum=0"`
	// WorkHandlerMs is the server's own time per /work (finishedAt - receivedAt): on the request
	// path, one read of the data file. Omitted for the start-up variant's thousands of answers.
	WorkHandlerMs    []float64 `json:"workHandlerMs,omitempty" jsonschema:"minimum=0"`
	WorkHandlerP50Ms float64   `json:"workHandlerP50Ms" jsonschema:"minimum=0"`
}
