package family

// The cold-start families (T1-T6, T8): functions/getitem (and functions/throttle for T8) run on
// a platform of Lambda's model, local or live. Times are ms; a …CpuMs is the CPU time the
// function's process was charged; shares and ratios have no unit. The target's platform is the
// experiment's platform's own record, which differs by platform (local, live); it is not typed
// here.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/results/family/getitem"
	"github.com/serverless-claims/claims/results/family/throttle"
)

func init() {
	target := Of[ColdStartTarget]()
	register("coldstart.phases", Parts{Parameters: Of[PhasesParameters](), Target: target, Summary: Of[PhasesSummary](), Trials: Of[[]ColdStart]()})
	register("coldstart.ownConnection", Parts{Parameters: Of[OwnConnectionParameters](), Target: target, Summary: Of[OwnConnectionSummary](), Trials: Of[[]OwnConnection]()})
	register("coldstart.warmupFailure", Parts{Parameters: Of[WarmupFailureParameters](), Target: target, Summary: Of[WarmupFailureSummary](), Trials: Of[[]UnreachableStart]()})
	register("coldstart.throttle", Parts{Parameters: Of[ThrottleParameters](), Target: target, Summary: Of[ThrottleSummary](), Trials: Of[[]SizeLoops]()})
}

// ColdStartTarget is a cold-start result's target: the platform the functions ran on, as it
// records itself (locally the emulator, the CPU model and the DynamoDB stand-in; live the region,
// the architecture and the deployed functions), and the functions the claim created there.
type ColdStartTarget struct {
	Platform  any        `json:"platform"`
	Functions []Function `json:"functions"`
}

// Function is a function a claim created: Lambda's function configuration as far as the claims
// need it.
type Function struct {
	Build Build `json:"build"`
	// MemoryMB is the memory size, which on Lambda also sets the CPU share: MemoryMB / 1,769 of
	// one vCPU, with Init's burst.
	MemoryMB int `json:"memoryMB"`
	// Unthrottled: a CPU no memory size limits, for the controls of the claims about a memory
	// size's CPU (locally the machine's CPU; on Lambda 3008 MB, 1.7 vCPUs).
	Unthrottled bool `json:"unthrottled,omitempty"`
	// DynamoDB says the function reads the claims' table.
	DynamoDB bool `json:"dynamoDB,omitempty"`
	// Env is the function's own settings (CLAIMS_VARIANT, ...), as Lambda's console holds them.
	Env map[string]string `json:"env,omitempty"`
}

// Build is the code a function runs: a function folder of this repository, built as Lambda takes
// it (harness/lambda/lambdazip).
type Build struct {
	Package string `json:"package"`
	// Language is the function's language (go, rust, node, python), and Runtime the Lambda
	// runtime that runs it; both absent from results made before functions had languages.
	Language string `json:"language,omitempty"`
	Runtime  string `json:"runtime,omitempty"`
	// Tags is the build tag of a variant broken on purpose, for the sensitivity tests.
	Tags string `json:"tags,omitempty"`
}

// Call, Connection and Answer are functions/getitem's answer, which the function itself answers
// with: a package of their own, which imports nothing, keeps the function's binary as it was.
type (
	Call       = getitem.Call
	Connection = getitem.Connection
	Stack      = getitem.Stack
	Roots      = getitem.Roots
	Answer     = getitem.Answer
)

// Invoked is one invocation as a result keeps it.
type Invoked struct {
	Status int `json:"status"`
	// Error is the platform's word that the function failed (an Init that failed, a crash).
	Error  string `json:"error,omitempty"`
	Answer Answer `json:"answer"`
	// Body is the answer as sent, when it is not the function's JSON.
	Body     string           `json:"body,omitempty"`
	Report   InvocationReport `json:"report"`
	ClientMs float64          `json:"clientMs"`
	// Attempts is how many requests the platform's client sent for the invoke.
	Attempts int `json:"attempts"`
}

// InvocationReport is an invocation's REPORT as a result keeps it: what the line carried, nil
// where it carried nothing (Init only on a cold start).
type InvocationReport struct {
	InitMs          *float64 `json:"initMs,omitempty"`
	DurationMs      *float64 `json:"durationMs,omitempty"`
	BilledMs        *float64 `json:"billedMs,omitempty"`
	MemorySizeMB    *int     `json:"memorySizeMB,omitempty"`
	MaxMemoryUsedMB *int     `json:"maxMemoryUsedMB,omitempty"`
	Status          string   `json:"status,omitempty"` // "timeout", "error"; "" for success
}

// Throttling is what the platform counted for one environment's CPU: periods in which it ran,
// periods in which it was throttled, and the time it waited.
type Throttling struct {
	Periods   int64   `json:"periods"`
	Throttled int64   `json:"throttled"`
	WaitedMs  float64 `json:"waitedMs"`
}

// ColdStart is one cold start: a fresh execution environment, its first invocation and a
// second, warm one.
type ColdStart struct {
	// Arm names the function it ran, as the result's parameters list them.
	Arm    string  `json:"arm"`
	First  Invoked `json:"first"`
	Second Invoked `json:"second"`
	// Later are the warm invocations after the second, where a test asks for them.
	Later []Invoked `json:"later,omitempty"`
	// Throttling is the platform's count for the whole cold start; nil where it has none.
	Throttling *Throttling `json:"throttling,omitempty"`
	// NotEvidence says why the cold start is no evidence, "" where it is.
	NotEvidence string `json:"notEvidence,omitempty"`
}

// NotEvidence counts cold starts that are no evidence, by reason.
type NotEvidence map[string]int

// String lists the reasons with their counts, most first: "5 the first REPORT has ...; 1 ...".
func (n NotEvidence) String() string {
	reasons := slices.Collect(maps.Keys(n))
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(n[b]-n[a], strings.Compare(a, b)) })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", n[r], r)
	}
	return strings.Join(parts, "; ")
}

// Cut says that a test planned fewer cold starts than its settings asked for, to fit the time
// go test gave its package (-timeout), and why; or that it started none, where that time could
// not hold the fewest that decide its claim (its verdict is then inconclusive, saying so).
type Cut struct {
	// Planned is the cold starts (of each arm) the run's settings asked for.
	Planned int `json:"planned"`
	// Why says what cut the plan to the parameters' coldStarts, with the figures that did.
	Why string `json:"why"`
}

// PhasesParameters are coldstart.phases' (T1, T2, T3, T5).
type PhasesParameters struct {
	// ColdStarts is the number of cold starts of each arm.
	ColdStarts int `json:"coldStarts"`
	// Cut is where the plan was cut to fit the test's time; nil where it ran whole.
	Cut *Cut `json:"cut,omitempty"`
	// WarmInvocations is the number of warm invocations of each cold start, the second and later.
	WarmInvocations int `json:"warmInvocations"`
	// InvocationGapMs is the pause between one invocation's answer and the next invoke.
	InvocationGapMs float64         `json:"invocationGapMs"`
	Arms            []ArmParameters `json:"arms"`
}

// ArmParameters is one arm: the function it runs.
type ArmParameters struct {
	Arm         string `json:"arm"`
	Variant     string `json:"variant"`
	MemoryMB    int    `json:"memoryMB"`
	Unthrottled bool   `json:"unthrottled"`
}

// PhasesSummary is coldstart.phases' figures: each arm's, and the claim's estimates under one
// of Setup (T1), FirstInvocation (T2), Warmup (T3) or Scaling (T5).
type PhasesSummary struct {
	// Statistic says how the claim is decided.
	Statistic       string                  `json:"statistic"`
	Arms            []ArmSummary            `json:"arms"`
	Setup           *SetupFigures           `json:"setup,omitempty"`
	FirstInvocation *FirstInvocationFigures `json:"firstInvocation,omitempty"`
	Warmup          *WarmupFigures          `json:"warmup,omitempty"`
	Scaling         *ScalingFigures         `json:"scaling,omitempty"`
	InitBurst       *InitBurstFigures       `json:"initBurst,omitempty"`
}

// ArmSummary is an arm's figures over the cold starts that answered.
type ArmSummary struct {
	Arm      string           `json:"arm"`
	MemoryMB int              `json:"memoryMB"`
	Answered stats.Proportion `json:"answered"`
	InitMs   stats.Summary    `json:"initMs"`
	// The first call's phases.
	DNSMs     stats.Summary `json:"dnsMs"`
	ConnectMs stats.Summary `json:"connectMs"`
	TLSMs     stats.Summary `json:"tlsMs"`
	// The handler's own measure of its Duration: of the first invocation, of the second, and
	// each environment's mean over its warm invocations.
	FirstDurationMs  stats.Summary `json:"firstDurationMs"`
	SecondDurationMs stats.Summary `json:"secondDurationMs"`
	WarmDurationMs   stats.Summary `json:"warmDurationMs"`
	// BilledMs is Init + the first Duration, what Lambda bills for a cold start, in the
	// function's own measures: once, as the REPORT's Billed Duration of a provided.al2023 cold
	// start holds Init already.
	BilledMs stats.Summary `json:"billedMs"`
	// ReportFirstDurationMs is the first REPORT's Duration, beside the handler's.
	ReportFirstDurationMs stats.Summary `json:"reportFirstDurationMs"`
	// ThrottledMs is the time the platform counted the environment throttled (0 where it
	// counts none).
	ThrottledMs stats.Summary `json:"throttledMs"`
	// WarmupMs is the warm variant's warm-up call in Init.
	WarmupMs *stats.Summary `json:"warmupMs,omitempty"`
	// NotEvidence counts the arm's cold starts that are no evidence, by reason.
	NotEvidence NotEvidence `json:"notEvidence,omitempty"`
	CPU         CPUCost     `json:"cpu"`
	// HandshakeMBSeconds is the mean handshake times the memory size: what a bill by
	// GB-seconds follows, in MB·s.
	HandshakeMBSeconds float64 `json:"handshakeMBSeconds"`
}

// CPUCost is the CPU an arm's cold starts were charged: over the handshake and over the first
// invocation.
type CPUCost struct {
	HandshakeMs       stats.Summary `json:"handshakeCpuMs"`
	FirstInvocationMs stats.Summary `json:"firstInvocationCpuMs"`
}

// SetupFigures are T1's estimates.
type SetupFigures struct {
	NewConnection             stats.Proportion `json:"newConnection"`
	HandshakeCPUSharePerStart stats.Interval   `json:"handshakeCpuSharePerStart"`
	HandshakeCPUShare         stats.Estimate   `json:"handshakeCpuShare"`
	HandshakeShare            stats.Estimate   `json:"handshakeShare"`
	HandshakeSharePerStart    stats.Interval   `json:"handshakeSharePerStart"`
	ShareAtLeastBound         stats.Proportion `json:"coldStartsShareAtLeast90"`
	Slowdown                  stats.Estimate   `json:"slowdown"`
	// Article puts the 128 MB handshake beside the article's and says what the difference is
	// made of; absent from results made before it was kept.
	Article *ArticleComparison `json:"article,omitempty"`
}

// ArticleComparison is T1's handshake at 128 MB beside the article's published one, with the
// figures of this run that explain the difference: the article measured wall time only.
type ArticleComparison struct {
	// PublishedTLSMs is the article's mean handshake at 128 MB (the catalog's T1 figure).
	PublishedTLSMs float64 `json:"publishedTlsMs"`
	// PublishedCPUMs is the most CPU that handshake can have held: its wall time at 128 MB's
	// share of a vCPU (128 / 1,769), had it been all CPU.
	PublishedCPUMs float64 `json:"publishedCpuMs"`
	// TLSMs and TLSCPUMs are this run's mean handshake at 128 MB, in wall time and in CPU;
	// ControlTLSMs and ControlTLSCPUMs the same function's unthrottled.
	TLSMs           float64 `json:"tlsMs"`
	TLSCPUMs        float64 `json:"tlsCpuMs"`
	ControlTLSMs    float64 `json:"controlTlsMs"`
	ControlTLSCPUMs float64 `json:"controlTlsCpuMs"`
	// ExpectedTLSMs is what the model's quota makes of TLSCPUMs: the CPU stretched by the
	// inverse of the share; the measured wall time beside it shows what else the handshake
	// waited for.
	ExpectedTLSMs float64 `json:"expectedTlsMs"`
	// OtherFirstCallMs is the first call's mean time beyond DNS, TCP and TLS: the SDK's own
	// work (serialising, signing, loading what it loads lazily) and DynamoDB's answer, which
	// "almost all TLS" leaves out.
	OtherFirstCallMs float64 `json:"otherFirstCallMs"`
	// Curve, CipherSuite and TLSVersion are what the first handshake negotiated.
	Curve       string `json:"curve,omitempty"`
	CipherSuite string `json:"cipherSuite,omitempty"`
	TLSVersion  string `json:"tlsVersion,omitempty"`
	// Roots is the function's loading of its roots, where it times it apart from the
	// handshake (mean figures); nil where the roots are loaded inside the handshake.
	Roots *Roots `json:"roots,omitempty"`
	// Stack is the function's.
	Stack *Stack `json:"stack,omitempty"`
	// Machine is this machine's architecture and CPU model; the article's function ran on
	// arm64 (ArticleArch).
	Machine     string `json:"machine"`
	ArticleArch string `json:"articleArch"`
	// PeriodMs is the CPU model's period.
	PeriodMs float64 `json:"periodMs"`
	// Checks are the parts of a first connection timed as the article timed its, where the
	// function has a variant that does (the Rust function's article variant); absent elsewhere.
	Checks *ArticleChecks `json:"checks,omitempty"`
	// Explanation says, sentence by sentence and with this run's figures, what the difference
	// from the article's figure is made of.
	Explanation []string `json:"explanation"`
}

// ArticleChecks are T1's checks of the article's figure at 128 MB on a function whose first
// invocation times a connection of its own as the article's did (the Rust function's article
// variant): each part a first connection in a process pays, means over the variant's cold
// starts, and which of them can hold the article's figure at the quota.
type ArticleChecks struct {
	// ColdStarts is how many of the variant's cold starts the means are over.
	ColdStarts int `json:"coldStarts"`
	// Parts are the parts, in the order the explanation names them.
	Parts []ArticlePart `json:"parts"`
	// CanHold names the parts that can hold the article's figure (see ArticlePart.CanHold);
	// empty where none can.
	CanHold []string `json:"canHold"`
	// PageIn is how much of the binary the page-in probes found cached, means over the cold
	// starts whose probes both answered; absent where none did.
	PageIn *PageInDrop `json:"pageIn,omitempty"`
}

// PageInDrop is the binary's size and how much of it was in the page cache before and after the
// page-in probes dropped it, in pages (means): what was dropped is what a cold probe can page in.
type PageInDrop struct {
	// ColdStarts is how many cold starts the means are over.
	ColdStarts int `json:"coldStarts"`
	// Pages is the binary's size; ResidentBefore, ResidentAfterDrop and ResidentAfterCold its
	// pages in the page cache before the drop, after it, and after the cold probe.
	Pages             float64 `json:"pages"`
	ResidentBefore    float64 `json:"residentBefore"`
	ResidentAfterDrop float64 `json:"residentAfterDrop"`
	ResidentAfterCold float64 `json:"residentAfterCold"`
}

// ArticlePart is one part of a first connection, mean figures; a part that is a difference
// (the first of two alike less the second) can be negative where the two do not differ.
type ArticlePart struct {
	// Name says what the part is.
	Name string `json:"name"`
	// Ms and CPUMs are its wall time and the CPU the process was charged over it.
	Ms    float64 `json:"ms"`
	CPUMs float64 `json:"cpuMs"`
	// MinorFaults and MajorFaults are the page faults over it (major ones read from storage);
	// zero where the part was not counted.
	MinorFaults float64 `json:"minorFaults"`
	MajorFaults float64 `json:"majorFaults"`
	// ExpectedMs is what the quota makes of CPUMs: the CPU stretched by the inverse of the
	// share. Ms beyond it was waiting that was not CPU.
	ExpectedMs float64 `json:"expectedMs"`
	// OfPublishedCPU is CPUMs over the most CPU the article's figure can hold
	// (ArticleComparison's PublishedCPUMs).
	OfPublishedCPU float64 `json:"ofPublishedCpu"`
	// CanHold says the part's CPU is within an order of magnitude of that most: beyond what the
	// architecture or a library's version moves it, it cannot make the article's figure. For a
	// part that is waiting, not work (Waiting: the code's page-in), it says the same of its wall
	// time against the article's, which the quota does not stretch.
	CanHold bool `json:"canHold"`
	// Waiting says the part is waiting rather than work, so CanHold weighs its wall time.
	Waiting bool `json:"waiting,omitempty"`
}

// FirstInvocationFigures are T2's estimates.
type FirstInvocationFigures struct {
	FirstOverInit stats.Estimate `json:"firstOverInit"`
	FirstOverWarm stats.Estimate `json:"firstOverWarm"`
}

// InitBurstFigures are T9's: the REPORT's Init Duration at the smallest memory size over the
// same at the largest, where the platform decides T9; where it does not (the local platform,
// whose model gives Init its burst by assumption), what the model assumes instead.
type InitBurstFigures struct {
	InitRatio *stats.Estimate `json:"initRatio,omitempty"`
	Assumed   string          `json:"assumed,omitempty"`
}

// WarmupFigures are T3's estimates.
type WarmupFigures struct {
	// WarmupsPooled counts the warm-ups whose connection the SDK pooled, of all.
	WarmupsPooled stats.Proportion `json:"warmupsPooled"`
	// Reused counts the first calls that reused it, of those pooled.
	Reused                    stats.Proportion `json:"reused"`
	SavedOfHandshake          stats.Estimate   `json:"savedOfHandshake"`
	BilledWarmOverCold        stats.Estimate   `json:"billedWarmOverCold"`
	FirstDurationWarmOverCold stats.Estimate   `json:"firstDurationWarmOverCold"`
}

// ScalingFigures are T5's estimate, with its printed table.
type ScalingFigures struct {
	Scaling stats.Estimate `json:"scaling"`
	Table   string         `json:"table"`
}

// OwnConnectionParameters are coldstart.ownConnection's (T6).
type OwnConnectionParameters struct {
	ColdStarts int    `json:"coldStarts"`
	Cut        *Cut   `json:"cut,omitempty"`
	Variant    string `json:"variant"`
	MemoryMB   int    `json:"memoryMB"`
}

// OwnConnectionSummary is coldstart.ownConnection's figures.
type OwnConnectionSummary struct {
	// NewWithHandshake counts the first calls whose trace shows a new connection with a
	// handshake; CountsAgree the cold starts whose traced handshakes equal DynamoDB's count
	// (N = 0 where the platform cannot count them); SecondCallReused the second calls that
	// reused the first's connection.
	NewWithHandshake stats.Proportion `json:"newWithHandshake"`
	CountsAgree      stats.Proportion `json:"countsAgree"`
	SecondCallReused stats.Proportion `json:"secondCallReused"`
	FirstCallTLSMs   stats.Summary    `json:"firstCallTlsMs"`
	// NotEvidence counts the cold starts that are no evidence, by reason.
	NotEvidence NotEvidence `json:"notEvidence,omitempty"`
}

// OwnConnection is one cold start of coldstart.ownConnection.
type OwnConnection struct {
	ColdStart
	// ServerHandshakes is the handshakes DynamoDB completed during this cold start; nil where
	// the platform cannot count them.
	ServerHandshakes *int `json:"serverHandshakes,omitempty"`
}

// WarmupFailureParameters are coldstart.warmupFailure's (T4).
type WarmupFailureParameters struct {
	ColdStarts      int    `json:"coldStarts"`
	Cut             *Cut   `json:"cut,omitempty"`
	Variant         string `json:"variant"`
	MemoryMB        int    `json:"memoryMB"`
	WarmupTimeoutMs int64  `json:"warmupTimeoutMs"`
	InitMarginMs    int64  `json:"initMarginMs"`
	StallForMs      int64  `json:"stallForMs"`
}

// WarmupFailureSummary is coldstart.warmupFailure's figures.
type WarmupFailureSummary struct {
	WarmupFailed         stats.Proportion `json:"warmupFailed"`
	BoundedInit          stats.Proportion `json:"boundedInit"`
	ClearError           stats.Proportion `json:"clearError"`
	ServedAfter          stats.Proportion `json:"servedAfter"`
	SameProcess          stats.Proportion `json:"sameProcess"`
	InitMs               stats.Summary    `json:"initMs"`
	FirstInvocationCPUMs stats.Summary    `json:"firstInvocationCpuMs"`
	// NotEvidence counts the cold starts that are no evidence, by reason.
	NotEvidence NotEvidence `json:"notEvidence,omitempty"`
}

// UnreachableStart is one cold start of coldstart.warmupFailure: DynamoDB refused or stalled
// while the function started, then up again.
type UnreachableStart struct {
	How       Outage  `json:"how"`
	WhileDown Invoked `json:"whileDown"`
	AfterUp   Invoked `json:"afterUp"`
	// NotEvidence says why the cold start is no evidence, "" where it is.
	NotEvidence string `json:"notEvidence,omitempty"`
}

// Outage is how DynamoDB was unreachable while a T4 cold start ran.
type Outage string

// The outages T4 runs.
const (
	Refused Outage = "refused" // nothing listens: a connection is refused at once
	Stalled Outage = "stalled" // a black hole: connections are accepted, never answered
)

// Enum is the values an Outage takes, for the schema's check.
func (Outage) Enum() []string { return []string{string(Refused), string(Stalled)} }

// ThrottleParameters are coldstart.throttle's (T8).
type ThrottleParameters struct {
	BusyMs int64 `json:"busyMs"`
	// Cut is where the time left ran no loop at all (Planned: the memory sizes); nil where
	// every size ran.
	Cut               *Cut    `json:"cut,omitempty"`
	Invocations       int     `json:"invocations"`
	MemorySizesMB     []int   `json:"memorySizesMB"`
	PublishedPeriodMs float64 `json:"publishedPeriodMs"`
}

// ThrottleSummary is coldstart.throttle's figures, with its printed table.
type ThrottleSummary struct {
	BySize []SizeFigures `json:"bySize"`
	Table  string        `json:"table"`
}

// SizeFigures are one memory size's figures.
type SizeFigures struct {
	MemoryMB int `json:"memoryMB"`
	// ExpectedShare is M/1,769 of one CPU, at most 1.
	ExpectedShare float64 `json:"expectedShare"`
	// Share is the function's share, the one decided: the CPU the kernel charged the function's
	// process over the loops, over their wall time.
	Share float64 `json:"share"`
	// LoopShare is the loops' run time over their wall time, and ThreadShare the kernel's
	// charge to the loop's thread over the same: the part of the function's share the loop got.
	LoopShare   float64 `json:"loopShare"`
	ThreadShare float64 `json:"threadShare"`
	// Grids are the coarsest grid each loop's stall ends fall on.
	Grids []stats.GridFit `json:"grids"`
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
	QuotaVCPU         float64 `json:"quotaVcpu"`         // M/1,769 of one vCPU, per period
	OtherThreadsVCPU  float64 `json:"otherThreadsVcpu"`  // what the function's other threads took in this run, measured
	LoopShareOfVCPU   float64 `json:"loopShareOfVcpu"`   // min(1, quota - other threads): the loop's share over the run
	RunMs             float64 `json:"runMs"`             // a run of the loop between stalls: its share of a period; 0 where it never stalls
	StallMs           float64 `json:"stallMs"`           // a stall: the rest of the period; 0 where it never stalls
	StallGapMs        float64 `json:"stallGapMs"`        // from one stall's end to the next: one period; 0 where it never stalls
	Stalls            int     `json:"stalls"`            // over the loop's wall time, one a period; 0 where it never stalls
	PeriodMs          float64 `json:"periodMs"`          // the period the prediction is made for
	FromPublishedOnly string  `json:"fromPublishedOnly"` // what the prediction took from published figures
}

// SizeLoops are one memory size's busy loops.
type SizeLoops struct {
	MemoryMB   int          `json:"memoryMB"`
	Loops      []LoopAnswer `json:"loops"`
	Failures   []string     `json:"failures,omitempty"`
	Throttling *Throttling  `json:"throttling,omitempty"`
}

// LoopAnswer and Span are functions/throttle's answer, which the function itself answers with:
// a package of their own, which imports nothing, keeps the function's binary as it was.
type (
	LoopAnswer = throttle.Loop
	Span       = throttle.Span
)
