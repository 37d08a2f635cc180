package threadpool

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/results/family"
)

// libuvMaxThreads is libuv's absolute maximum pool size (MAX_THREADPOOL_SIZE in threadpool.c).
const libuvMaxThreads = 1024

// slotCountRuns is how many processes count the slots per configuration. The count is decided by
// the order of two callbacks, not by a clock, so every run must give the same number; three show
// that it does without costing much.
const slotCountRuns = 3

// slotHold is how long a round waits for its tiny job before it lets the held slots go. A stat
// on a free thread completes in well under a millisecond; nothing else runs meanwhile, since the
// held jobs use no CPU, so a tenth of a second tells "ran at once" from "waited" with a margin a
// scheduler's hiccup does not reach.
const slotHold = 200 * time.Millisecond

// The claims of TestPoolSlots: the slot count by ordering, and the threads of a pool asked for
// more than libuv allows.
var (
	poolSlotsClaim = claimtest.Claim{IDs: []string{"P3", "P4", "P11"}, Family: "threadpool.slots"}
	poolCapClaim   = claimtest.Claim{IDs: []string{"P3", "P4", "P11"}, Family: "threadpool.poolThreads"}
)

// countSlots runs the lab's ordering count on l: k pool jobs that hold a slot without using the
// CPU, then one tiny job, for k = 1, 2, ... up to maxJobs; the smallest k whose tiny job had to
// wait until the held slots were let go.
func countSlots(t *testing.T, l lab, maxJobs int) family.SlotCount {
	t.Helper()
	var c family.SlotCount
	l.run(t, "slots", map[string]any{"maxJobs": maxJobs, "holdMs": slotHold.Milliseconds()}, &c)
	return c
}

// measurePoolSlots counts the slots of the lab on l's runtime started with
// UV_THREADPOOL_SIZE=size ("" for unset) slotCountRuns times: does every count say want?
func measurePoolSlots(t *testing.T, l lab, size string, want int) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	sized := l.sized(size)
	params := family.SlotsParameters{Runs: slotCountRuns, MaxJobs: want + 1, HoldMs: int(slotHold.Milliseconds()), Want: want}
	counts := make([]family.SlotCount, slotCountRuns)
	summary := family.SlotsSummary{CountsAgreeing: stats.Proportion{N: slotCountRuns}}
	shownCounts := make([]string, len(counts))
	for i := range counts {
		counts[i] = countSlots(t, sized, params.MaxJobs)
		summary.Counts = append(summary.Counts, counts[i].Slots)
		if c := counts[i].Slots; c != nil && *c == want {
			summary.CountsAgreeing.K++
		}
		shownCounts[i] = counts[i].String()
	}
	return claimtest.Measurement{
		Target:      sized,
		Statement:   fmt.Sprintf("with UV_THREADPOOL_SIZE=%s libuv's pool has %d slots", shown(size), want),
		StartedAt:   started,
		Headline:    fmt.Sprintf("slot counts %s (UV_THREADPOOL_SIZE=%s)", strings.Join(shownCounts, ", "), shown(size)),
		Parameters:  params,
		Summary:     summary,
		Trials:      counts,
		Environment: sized.environment(),
		// Every count is a whole ordering decision: a run whose count is another number is
		// evidence against the claim, not noise.
		Evidence: stats.Proportion{K: slotCountRuns, N: slotCountRuns},
		Checks: []verdict.Check{
			verdict.All(fmt.Sprintf("slot counts equal to %d (UV_THREADPOOL_SIZE=%s)", want, shown(size)), summary.CountsAgreeing),
		},
	}
}

// poolCapRequest is the pool size P11's test asks for: more than libuv allows.
const poolCapRequest = 2000

// measurePoolCap asks l's runtime for requested pool threads (poolCapRequest) and counts the
// threads it starts: does it start libuv's maximum?
// Counting 1024 slots by ordering would take 1024 heavy jobs; the kernel's list of the process's
// threads, before and after the pool starts, counts them directly.
func measurePoolCap(t *testing.T, l lab, requested int) claimtest.Measurement {
	t.Helper()
	started := time.Now()
	sized := l.sized(strconv.Itoa(requested))
	var p family.PoolThreadsRun
	sized.run(t, "poolThreads", nil, &p)
	return claimtest.Measurement{
		Target:      sized,
		Statement:   fmt.Sprintf("libuv caps the pool at %d threads: UV_THREADPOOL_SIZE=%d starts %d", libuvMaxThreads, requested, libuvMaxThreads),
		StartedAt:   started,
		Headline:    fmt.Sprintf("%d pool threads for UV_THREADPOOL_SIZE=%d", p.PoolThreads, requested),
		Parameters:  family.PoolThreadsParameters{Requested: requested, Max: libuvMaxThreads},
		Summary:     family.PoolThreadsSummary{PoolThreads: p.PoolThreads},
		Trials:      p,
		Environment: sized.environment(),
		Evidence:    stats.Proportion{K: 1, N: 1},
		Checks: []verdict.Check{
			verdict.Exactly(fmt.Sprintf("pool threads started for UV_THREADPOOL_SIZE=%d", requested), p.PoolThreads, libuvMaxThreads,
				"new entries in /proc/self/task once the first pool job completed"),
		},
	}
}

func TestPoolSlots(t *testing.T) { claimtest.RunEach(t, testPoolSlots, nodeModes(t)...) }

func testPoolSlots(t *testing.T, l lab) {
	t.Run("default", func(t *testing.T) { poolSlotsClaim.Check(t, measurePoolSlots(t, l, "", 4)) })
	t.Run("UV_THREADPOOL_SIZE=8", func(t *testing.T) { poolSlotsClaim.Check(t, measurePoolSlots(t, l, "8", 8)) })
	t.Run("UV_THREADPOOL_SIZE=2000", func(t *testing.T) { poolCapClaim.Check(t, measurePoolCap(t, l, poolCapRequest)) })
}

// P5: setting the pool's size from inside the program.
var setInsideClaim = claimtest.Claim{IDs: []string{"P5"}, Family: "threadpool.entry"}

var entryForms = []family.EntryForm{{Name: "CommonJS", Script: labCJS}, {Name: "ES module", Script: labESM}}

// setInsideSize is what the entries set; it differs from the default so the count tells them
// apart.
const setInsideSize = 8

// entryTarget is threadpool.entry's target, run on this machine.
type entryTarget struct{ family.EntryTarget }

// Mode is "local": the entries run on this machine.
func (entryTarget) Mode() string { return "local" }

// setInsideEnv is the environment of the entries.
func setInsideEnv() map[string]string {
	return map[string]string{"LAB_SET_POOL_SIZE": strconv.Itoa(setInsideSize)}
}

func TestPoolSizeFromInsideProgram(t *testing.T) {
	// The docs only say it is "not guaranteed"; one ordinary entry form that ignores the line, on
	// any runtime here, shows it. Each form on each runtime is measured in a subtest; the claim
	// is decided over all of them.
	started := time.Now()
	var outcomes []family.EntryOutcome
	var nodes []runtimes.Node
	claimtest.RunEach(t, func(t *testing.T, l lab) {
		nodes = append(nodes, l.Node)
		outcomes = append(outcomes, measureSetInside(t, l)...)
	}, everyNodeMode(t)...)
	m := setInsideMeasurement(t, nodes, outcomes)
	m.StartedAt = started
	setInsideClaim.Check(t, m)
}

// measureSetInside counts the slots of each entry form that sets the pool size on its first
// line, on l's runtime, as subtests of t.
func measureSetInside(t *testing.T, l lab) []family.EntryOutcome {
	t.Helper()
	var outcomes []family.EntryOutcome
	for _, f := range entryForms {
		t.Run(strings.ReplaceAll(f.Name, " ", "-"), func(t *testing.T) {
			c := countSlots(t, l.script(f.Script, setInsideEnv()), setInsideSize+1)
			require.NotNil(t, c.Slots, "slot count: %s", c)
			assert.Contains(t, []int{4, setInsideSize}, *c.Slots,
				"slot count = %d; want the default 4 or the %d the program set", *c.Slots, setInsideSize)
			outcomes = append(outcomes, family.EntryOutcome{Node: l.Node.Version, Form: f.Name, Script: f.Script, Slots: *c.Slots, Honored: *c.Slots == setInsideSize})
		})
	}
	return outcomes
}

// setInsideMeasurement is P5 over every form on every runtime measured.
func setInsideMeasurement(t *testing.T, nodes []runtimes.Node, outcomes []family.EntryOutcome) claimtest.Measurement {
	t.Helper()
	require.NotEmpty(t, outcomes, "no entry form was measured")
	summary := family.EntrySummary{Ignored: stats.Proportion{N: len(outcomes)}}
	for _, o := range outcomes {
		what := "honored"
		if !o.Honored {
			summary.Ignored.K++
			what = "ignored"
		}
		summary.Outcomes = append(summary.Outcomes, fmt.Sprintf("%s %s: %s (%d slots)", o.Node, o.Form, what, o.Slots))
	}
	env := lab{family.Lab{Node: nodes[0], Env: setInsideEnv()}}.environment()
	var versions []string
	for _, n := range nodes {
		versions = append(versions, n.Version)
	}
	env.Node = strings.Join(versions, ", ")
	p5, err := catalog.Lookup("P5")
	require.NoError(t, err)
	summary.Why = p5.VersionChange
	check := verdict.Some("entry forms that ignored the first-line setting", summary.Ignored)
	check.Note = strings.Join(summary.Outcomes, "; ") + ". Why the ES-module form differs by version: " + summary.Why
	return claimtest.Measurement{
		Target:      entryTarget{family.EntryTarget{Nodes: nodes, Forms: entryForms, Env: setInsideEnv()}},
		Headline:    strings.Join(summary.Outcomes, "; "),
		Parameters:  family.EntryParameters{SetPoolSize: setInsideSize},
		Summary:     summary,
		Trials:      outcomes,
		Environment: env,
		Evidence:    stats.Proportion{K: len(outcomes), N: len(outcomes)},
		Checks:      []verdict.Check{check},
	}
}
