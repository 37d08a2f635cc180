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
	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/results/family/getitem"
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
	Functions []Function `json:"functions" jsonschema:"minItems=1"`
}

// Function is a function a claim created: Lambda's function configuration as far as the claims
// need it.
type Function struct {
	Build Build `json:"build"`
	// MemoryMB is the memory size, which on Lambda also sets the CPU share: MemoryMB / 1,769 of
	// one vCPU, with Init's burst.
	MemoryMB int `json:"memoryMB" jsonschema:"maximum=10240,minimum=128"`
	// Unthrottled: a CPU no memory size limits, for the controls of the claims about a memory
	// size's CPU (locally the machine's CPU; on Lambda 3008 MB, 1.7 vCPUs).
	Unthrottled bool `json:"unthrottled,omitempty"`
	// DynamoDB says the function reads the claims' table.
	DynamoDB bool `json:"dynamoDB,omitempty"`
	// Env is the function's own settings (CLAIMS_VARIANT, ...), as Lambda's console holds them.
	Env map[string]string `json:"env,omitempty"`
}

// String names the function as tables, check names and a cold start's arm name it: "128 MB",
// "128 MB, unthrottled".
func (f Function) String() string {
	if f.Unthrottled {
		return fmt.Sprintf("%d MB, unthrottled", f.MemoryMB)
	}
	return fmt.Sprintf("%d MB", f.MemoryMB)
}

// Build is the code a function runs: a function folder of this repository, built as Lambda takes
// it (harness/lambda/lambdazip).
type Build struct {
	Package string `json:"package" jsonschema:"pattern=^functions/"`
	// Language is the function's language (go, rust, node, python), and Runtime the Lambda
	// runtime that runs it; both absent from results made before functions had languages.
	Language lambdazip.Language `json:"language,omitempty"`
	Runtime  string             `json:"runtime,omitempty" jsonschema:"minLength=1"`
	// Tags is the build tag of a variant broken on purpose, for the sensitivity tests.
	Tags string `json:"tags,omitempty" jsonschema:"minLength=1"`
}

// Invoked is one invocation as a result keeps it.
type Invoked struct {
	Status int `json:"status" jsonschema:"minimum=0"`
	// Error is the platform's word that the function failed (an Init that failed, a crash).
	Error  string         `json:"error,omitempty"`
	Answer getitem.Answer `json:"answer"`
	// Body is the answer as sent, when it is not the function's JSON.
	Body     string              `json:"body,omitempty"`
	Report   lambdareport.Report `json:"report"`
	ClientMs float64             `json:"clientMs" jsonschema:"minimum=0"`
	// Attempts is how many requests the platform's client sent for the invoke.
	Attempts int `json:"attempts" jsonschema:"minimum=0"`
}

// Throttling is what the platform counted for one environment's CPU: periods in which it ran,
// periods in which it was throttled, and the time it waited.
type Throttling struct {
	Periods   int64   `json:"periods" jsonschema:"minimum=0"`
	Throttled int64   `json:"throttled" jsonschema:"minimum=0"`
	WaitedMs  float64 `json:"waitedMs" jsonschema:"minimum=0"`
}

// ColdStart is one cold start: a fresh execution environment, its first invocation and a
// second, warm one.
type ColdStart struct {
	// Arm names the function it ran, as the result's parameters list them.
	Arm    string  `json:"arm" jsonschema:"minLength=1"`
	First  Invoked `json:"first"`
	Second Invoked `json:"second"`
	// Later are the warm invocations after the second, where a test asks for them.
	Later []Invoked `json:"later,omitempty"`
	// Throttling is the platform's count for the whole cold start; nil where it has none.
	Throttling *Throttling `json:"throttling,omitempty"`
	// NotEvidence says why the cold start is no evidence, "" where it is.
	NotEvidence string `json:"notEvidence,omitempty" jsonschema:"minLength=1"`
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
	Planned int `json:"planned" jsonschema:"minimum=1"`
	// Why says what cut the plan to the parameters' coldStarts, with the figures that did.
	Why string `json:"why" jsonschema:"minLength=1"`
}

// PhasesParameters are coldstart.phases' (T1, T2, T3, T5).
type PhasesParameters struct {
	// ColdStarts is the number of cold starts of each arm.
	ColdStarts int `json:"coldStarts" jsonschema:"minimum=0"`
	// Cut is where the plan was cut to fit the test's time; nil where it ran whole.
	Cut *Cut `json:"cut,omitempty"`
	// WarmInvocations is the number of warm invocations of each cold start, the second and later.
	WarmInvocations int `json:"warmInvocations" jsonschema:"minimum=1"`
	// InvocationGapMs is the pause between one invocation's answer and the next invoke.
	InvocationGapMs float64         `json:"invocationGapMs" jsonschema:"minimum=0"`
	Arms            []ArmParameters `json:"arms" jsonschema:"minItems=1"`
}

// ArmParameters is one arm: the function it runs.
type ArmParameters struct {
	Arm         string `json:"arm" jsonschema:"minLength=1"`
	Variant     string `json:"variant" jsonschema:"enum=cold,enum=warm,enum=article"`
	MemoryMB    int    `json:"memoryMB" jsonschema:"minimum=128"`
	Unthrottled bool   `json:"unthrottled"`
}

// PhasesSummary is coldstart.phases' figures: each arm's, and the claim's estimates under one
// of Setup (T1), FirstInvocation (T2), Warmup (T3) or Scaling (T5).
type PhasesSummary struct {
	// Statistic says how the claim is decided.
	Statistic       string                  `json:"statistic" jsonschema:"minLength=1"`
	Arms            []ArmSummary            `json:"arms" jsonschema:"minItems=1"`
	Setup           *SetupFigures           `json:"setup,omitempty" jsonschema:"oneof_required=setup"`
	FirstInvocation *FirstInvocationFigures `json:"firstInvocation,omitempty" jsonschema:"oneof_required=firstInvocation"`
	Warmup          *WarmupFigures          `json:"warmup,omitempty" jsonschema:"oneof_required=warmup"`
	Scaling         *ScalingFigures         `json:"scaling,omitempty" jsonschema:"oneof_required=scaling"`
	InitBurst       *InitBurstFigures       `json:"initBurst,omitempty" jsonschema:"oneof_required=initBurst"`
}

// ArmSummary is an arm's figures over the cold starts that answered.
type ArmSummary struct {
	Arm      string           `json:"arm" jsonschema:"minLength=1"`
	MemoryMB int              `json:"memoryMB" jsonschema:"minimum=128"`
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
	HandshakeMBSeconds float64 `json:"handshakeMBSeconds" jsonschema:"minimum=0"`
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

// FirstInvocationFigures are T2's estimates.
type FirstInvocationFigures struct {
	FirstOverInit stats.Estimate `json:"firstOverInit"`
	FirstOverWarm stats.Estimate `json:"firstOverWarm"`
}

// InitBurstFigures are T9's: the REPORT's Init Duration at the smallest memory size over the
// same at the largest, where the platform decides T9; where it does not (the local platform,
// whose model gives Init its burst by assumption), what the model assumes instead.
type InitBurstFigures struct {
	InitRatio *stats.Estimate `json:"initRatio,omitempty" jsonschema:"oneof_required=initRatio"`
	Assumed   string          `json:"assumed,omitempty" jsonschema:"minLength=1,oneof_required=assumed"`
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
	ColdStarts int    `json:"coldStarts" jsonschema:"minimum=1"`
	Cut        *Cut   `json:"cut,omitempty"`
	Variant    string `json:"variant" jsonschema:"enum=cold,enum=warm,enum=article"`
	MemoryMB   int    `json:"memoryMB" jsonschema:"minimum=128"`
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
	ServerHandshakes *int `json:"serverHandshakes,omitempty" jsonschema:"minimum=0"`
}

// WarmupFailureParameters are coldstart.warmupFailure's (T4).
type WarmupFailureParameters struct {
	ColdStarts      int    `json:"coldStarts" jsonschema:"minimum=1"`
	Cut             *Cut   `json:"cut,omitempty"`
	Variant         string `json:"variant" jsonschema:"enum=cold,enum=warm,enum=article"`
	MemoryMB        int    `json:"memoryMB" jsonschema:"minimum=128"`
	WarmupTimeoutMs int64  `json:"warmupTimeoutMs" jsonschema:"minimum=1"`
	InitMarginMs    int64  `json:"initMarginMs" jsonschema:"minimum=0"`
	StallForMs      int64  `json:"stallForMs" jsonschema:"minimum=0"`
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
	NotEvidence string `json:"notEvidence,omitempty" jsonschema:"minLength=1"`
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
