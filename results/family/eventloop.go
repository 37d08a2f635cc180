package family

// The event-loop families: eventloop (W1-W5, W10, W11: a request pattern sent to one probe),
// eventloop.routing (W6-W9: the same to a Web Function endpoint, with where each request ran)
// and eventloop.concurrency (W12: two endpoints that differ only in
// maxConcurrencyPerEnvironment). Harness times are ms from the trial's start; an Answer's
// receivedAt and finishedAt are ms on the answering process's own clock.

import (
	"fmt"

	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/workload/record"
)

func init() {
	register("eventloop", Parts{
		Parameters: Of[EventLoopParameters](), Target: Of[record.Probe](), Summary: Of[EventLoopSummary](), Trials: Of[[]EventLoopTrial](),
	})
	register("eventloop.routing", Parts{
		Parameters: Of[EventLoopParameters](), Target: Of[WebFunction](), Summary: Of[RoutingSummary](), Trials: Of[[]RoutedTrial](),
	})
	register("eventloop.concurrency", Parts{
		Parameters: Of[ConcurrencyParameters](), Target: Of[ConcurrencyTarget](), Summary: Of[ConcurrencySummary](), Trials: Of[ConcurrencyTrials](),
	})
}

// EventLoopParameters is what an event-loop result was asked to do.
type EventLoopParameters struct {
	// ping-only, one-cpu, two-cpu
	Pattern     string `json:"pattern" jsonschema:"enum=ping-only,enum=one-cpu,enum=two-cpu"`
	Steps       []Step `json:"steps" jsonschema:"minItems=1"`
	Trials      int    `json:"trials" jsonschema:"minimum=1"`
	SpinMs      int    `json:"spinMs" jsonschema:"minimum=1"`
	PauseMs     int    `json:"pauseMs" jsonschema:"minimum=0"`     // between trials
	WarmupPings int    `json:"warmupPings" jsonschema:"minimum=0"` // sent before the first trial, not recorded
}

// Step is one request of the pattern.
type Step struct {
	Name     string  `json:"name" jsonschema:"minLength=1"`
	Kind     string  `json:"kind"`
	Path     string  `json:"path" jsonschema:"pattern=^/"`
	OffsetMs float64 `json:"offsetMs" jsonschema:"minimum=0"` // from the trial's start
}

// EventLoopSummary is an eventloop result's figures. The /cpu figures are there only where the
// pattern sends a /cpu.
type EventLoopSummary struct {
	Ping         stats.Summary     `json:"ping"`       // client-side /ping latency
	Evidential   stats.Proportion  `json:"evidential"` // the trials that could speak to the claim, of all
	CPUHandler   *stats.Summary    `json:"cpuHandler,omitempty"`
	WaitedForAll *stats.Proportion `json:"waitedForAll,omitempty"`
	WaitedForAny *stats.Proportion `json:"waitedForAny,omitempty"`
	CoLocated    *stats.Proportion `json:"coLocated,omitempty"`
}

// EventLoopTrial is a trial as an eventloop result keeps it: the requests and the wait evidence.
type EventLoopTrial struct {
	record.Trial
	Wait *record.Wait `json:"wait,omitempty"`
}

// WebFunction is what a routing result records as its target: a deployed Web Function (its
// function's name and region, never its account) or the local router.
type WebFunction struct {
	Runtime  string `json:"runtime" jsonschema:"enum=node,enum=go"`
	Endpoint string `json:"endpoint" jsonschema:"minLength=1"` // "local router", or the deployed function's name
	Region   string `json:"region,omitempty"`
	Auth     string `json:"auth" jsonschema:"enum=IamAuth,enum=ApplicationManaged"`
	// The endpoint's settings; zero where a deployment named by a variable does not say.
	MaxEnvironments              int            `json:"maxEnvironments" jsonschema:"minimum=0"`
	MaxConcurrencyPerEnvironment int            `json:"maxConcurrencyPerEnvironment" jsonschema:"maximum=128,minimum=0"`
	Router                       *Router        `json:"router,omitempty"` // the local router's model
	Probes                       []record.Probe `json:"probes,omitempty"` // the local router's environments
}

// Router is the local router's routing, the documented behaviours it models, and what it breaks
// on purpose.
type Router struct {
	// a webrouter.Policy
	Policy                 string `json:"policy" jsonschema:"enum=least-busy,enum=random,enum=sticky,enum=co-locate"`
	CPUBusyLimit           int    `json:"cpuBusyLimit,omitempty" jsonschema:"maximum=128,minimum=1"`
	OmitLogstreamEvery     int    `json:"omitLogstreamEvery,omitempty" jsonschema:"minimum=1"`
	IgnoreConcurrencyLimit bool   `json:"ignoreConcurrencyLimit,omitempty"`
	SwapLogstreams         bool   `json:"swapLogstreams,omitempty"`
	// YoungLimit and MatureAfter: a young endpoint, whose limit grew from YoungLimit to the
	// setting over MatureAfter served requests (webrouter.Config).
	YoungLimit  int `json:"youngLimit,omitempty" jsonschema:"maximum=128,minimum=1"`
	MatureAfter int `json:"matureAfter,omitempty" jsonschema:"minimum=1"`
	// InitialEnvironments: how many environments took requests from the start, the others
	// started as the running ones filled (webrouter.Config).
	InitialEnvironments int `json:"initialEnvironments,omitempty" jsonschema:"minimum=1"`
}

// Placement is where one trial's requests ran, environments numbered from 1 in the order their
// logstreams were first seen (0: throttled, or placed by neither id).
type Placement struct {
	CPUEnvs []int `json:"cpuEnvs" jsonschema:"minimum=0"`
	PingEnv int   `json:"pingEnv" jsonschema:"minimum=0"`
	// OtherExisted: an environment other than the first /cpu's answered both at or before this
	// trial and at or after it (the discovery requests before and after the trials count).
	OtherExisted bool `json:"otherExisted"`
	// PingCoLocated counts the /cpu in the /ping's environment, by logstream.
	PingCoLocated int `json:"pingCoLocated" jsonschema:"minimum=0"`
	// Agree: envId and logstream agree, for every pair of the trial's answers that both carried
	// the header (PairsChecked of them), on whether the two ran in one environment. Where they do
	// not, no clocks of the trial are compared.
	Agree        bool `json:"agree"`
	PairsChecked int  `json:"pairsChecked" jsonschema:"minimum=0"`
	// Placed: every served answer of the trial was placed, by its logstream or, without one, by
	// the logstream its envId carried elsewhere (LogstreamInferred of LogstreamMissing).
	Placed            bool `json:"placed"`
	LogstreamMissing  int  `json:"logstreamMissing" jsonschema:"minimum=0"`
	LogstreamInferred int  `json:"logstreamInferred" jsonschema:"minimum=0"`
	// Throttled counts the trial's requests the endpoint answered 429; PingThrottled says the
	// /ping was one. A throttled request ran nowhere: it is never evidence of co-location.
	Throttled     int  `json:"throttled" jsonschema:"minimum=0"`
	PingThrottled bool `json:"pingThrottled"`
	// PingAfterCPU: every co-located /cpu's handler started before the /ping's: the /ping reached
	// an environment already busy. One that got there first shows nothing about waiting.
	PingAfterCPU bool `json:"pingAfterCpu"`
	// PingWaited: the /ping's handler started at or after every co-located /cpu finished.
	PingWaited bool `json:"pingWaited"`
	// PingBesideBusy: the /ping's handler started while a co-located /cpu was running.
	PingBesideBusy bool `json:"pingBesideBusy"`
	// PingBesideInFlight: a co-located /cpu had not finished when the /ping's handler started,
	// running or not yet started: the endpoint put the /ping where a /cpu held a slot.
	PingBesideInFlight bool `json:"pingBesideInFlight"`
	// SecondCPUWhileFirstBusy: the second /cpu was sent in the first half of the first's round
	// trip (the client's clock), so that the first was still in flight when the second was
	// routed; without it, both in one environment shows nothing about routing beside a busy one.
	SecondCPUWhileFirstBusy bool `json:"secondCpuWhileFirstBusy"`
}

// RoutedTrial is a trial as a routing result keeps it.
type RoutedTrial struct {
	record.Trial
	Placement Placement `json:"placement"`
}

// RoutingSummary is a routing result's figures: the shares behind each routing claim, whichever
// the result decides, so that one run's result can be read for all of them.
type RoutingSummary struct {
	Ping stats.Summary `json:"ping"` // client-side /ping latency, served ones
	// distinct logstreams seen, discovery included
	Environments int `json:"environments" jsonschema:"minimum=0"`
	// Each share's N is the trials it is taken over, K those it counts.
	OtherExisted stats.Proportion `json:"otherExisted"` // another environment than the first /cpu's existed, of all
	// the /ping in no /cpu's environment, of those
	PingElsewhere stats.Proportion `json:"pingElsewhere"`
	// both /cpu in one environment at once, of those (two /cpu)
	TwoOnOneSide *stats.Proportion `json:"twoOnOneSide,omitempty"`
	// the two /cpu in two environments, of all (two /cpu)
	EveryEnvBusy stats.Proportion `json:"everyEnvBusy"`
	// the /ping waited for the /cpu beside it, of co-located trials
	PingWaited stats.Proportion `json:"pingWaited"`
	// the /ping's handler started while a /cpu beside it ran, of all
	PingBesideBusy stats.Proportion `json:"pingBesideBusy"`
	// envId and logstream agreed, of trials with a pair to check
	IDsAgree stats.Proportion `json:"idsAgree"`
	// distinct envIds seen in the trials
	EnvIDsSeen int `json:"envIdsSeen" jsonschema:"minimum=0"`
	// distinct logstreams seen in the trials
	LogstreamsInRun int `json:"logstreamsInRun" jsonschema:"minimum=0"`
	// What kept trials from being evidence: throttled requests (429, served nowhere) and
	// answers without lambda-web-logstream, placed by their envId or not at all.
	Throttled stats.Proportion `json:"throttled"` // trials with a throttled request, of all
	// trials whose /ping was throttled, of all
	PingThrottled stats.Proportion `json:"pingThrottled"`
	// throttled requests in the trials
	ThrottledRequests int `json:"throttledRequests" jsonschema:"minimum=0"`
	// served answers in the trials without the header
	LogstreamMissing int `json:"logstreamMissing" jsonschema:"minimum=0"`
	// of those, placed by the logstream their envId carried elsewhere
	LogstreamInferred int `json:"logstreamInferred" jsonschema:"minimum=0"`
	// trials with a served answer neither id placed, of all
	Unplaced stats.Proportion `json:"unplaced"`
}

// ConcurrencyParameters are W12's: the pattern's, and the two settings compared.
type ConcurrencyParameters struct {
	EventLoopParameters
	Default int `json:"defaultMaxConcurrencyPerEnvironment" jsonschema:"maximum=128,minimum=1"`
	Lowered int `json:"loweredMaxConcurrencyPerEnvironment" jsonschema:"maximum=128,minimum=1"`
}

// ConcurrencyTarget is W12's two endpoints.
type ConcurrencyTarget struct {
	Default WebFunction `json:"default"`
	Lowered WebFunction `json:"lowered"`
}

// ConcurrencySummary is W12's: the routing at the default and at the lowered setting, and what
// lowering it did to the /ping's latency and to where the /ping went.
type ConcurrencySummary struct {
	Default RoutingSummary `json:"default"`
	Lowered RoutingSummary `json:"lowered"`
	// PingP50RatioLoweredToDefault is the served /ping's p50 lowered over default, one run's clock.
	// The ratio is left out, and PingFaster false, when either setting served no /ping.
	PingP50RatioLoweredToDefault *float64 `json:"pingP50RatioLoweredToDefault,omitempty"`
	PingFaster                   bool     `json:"pingFaster"`
	// DefaultPings and LoweredPings say where each /ping of a trial with every environment busy
	// went, so that fewer /ping beside a running /cpu can be read as placed elsewhere, queued or
	// throttled.
	DefaultPings PingOutcomes `json:"defaultPings"`
	LoweredPings PingOutcomes `json:"loweredPings"`
}

// PingOutcomes are the /ping of the trials with every environment busy (N of each share), by
// where they went.
type PingOutcomes struct {
	BesideBusy stats.Proportion `json:"besideBusy"` // handled while a /cpu beside it ran
	// Elsewhere: served in an environment none of the trial's /cpu ran in.
	Elsewhere stats.Proportion `json:"elsewhere"`
	// Queued: served beside a /cpu only after it had finished: the request waited for a free
	// slot, not in the process.
	Queued stats.Proportion `json:"queued"`
	// ArrivedFirst: served beside a /cpu whose handler had not started yet.
	ArrivedFirst stats.Proportion `json:"arrivedFirst"`
	Throttled    stats.Proportion `json:"throttled"` // answered 429 by the endpoint, served nowhere
	Unplaced     stats.Proportion `json:"unplaced"`  // served, but neither id said where
	// ServedBesideBusy is BesideBusy among the served /ping only.
	ServedBesideBusy stats.Proportion `json:"servedBesideBusy"`
}

// String reads "beside a busy /cpu 0/8, elsewhere 0/8, queued 0/8, throttled 8/8".
func (o PingOutcomes) String() string {
	s := fmt.Sprintf("beside a busy /cpu %s, elsewhere %s, queued %s, throttled %s", o.BesideBusy, o.Elsewhere, o.Queued, o.Throttled)
	if o.ArrivedFirst.K > 0 {
		s += fmt.Sprintf(", before its /cpu started %s", o.ArrivedFirst)
	}
	if o.Unplaced.K > 0 {
		s += fmt.Sprintf(", not placed %s", o.Unplaced)
	}
	return s
}

// ConcurrencyTrials are W12's trials at each setting.
type ConcurrencyTrials struct {
	Default []RoutedTrial `json:"default" jsonschema:"minItems=1"`
	Lowered []RoutedTrial `json:"lowered" jsonschema:"minItems=1"`
}
