package threadpool

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// libuvMaxThreads is libuv's absolute maximum pool size (MAX_THREADPOOL_SIZE in threadpool.c).
const libuvMaxThreads = 1024

// slotCountRuns is how many processes count the slots per configuration. The count is decided by
// the order of two callbacks, not by a clock, so every run must give the same number; three show
// that it does without costing much.
const slotCountRuns = 3

// slotJobMs is how long one heavy job of the slot count takes on an idle core. It only has to
// outlast one fs.stat on a free thread by a wide margin: a stat takes microseconds.
const slotJobMs = 40

// slotCount is what the lab's slots scenario reports.
type slotCount struct {
	Slots  *int `json:"slots"` // nil: the stat never waited up to maxJobs
	Rounds []struct {
		Jobs                int  `json:"jobs"`
		HeavyDoneBeforeStat int  `json:"heavyDoneBeforeStat"`
		StatWaited          bool `json:"statWaited"`
	} `json:"rounds"`
	Threads struct {
		Total  int            `json:"total"`
		ByName map[string]int `json:"byName"`
	} `json:"threads"`
}

// String is the count as a message reads it.
func (c slotCount) String() string {
	if c.Slots == nil {
		return fmt.Sprintf("none found up to %d jobs", len(c.Rounds))
	}
	return strconv.Itoa(*c.Slots)
}

// countSlots runs the lab's ordering count on l: k equal heavy pool jobs and one tiny one, for k =
// 1, 2, ... up to maxJobs; the smallest k whose tiny job had to wait for a heavy one.
func countSlots(t *testing.T, l lab, maxJobs int) slotCount {
	t.Helper()
	var c slotCount
	l.run(t, "slots", map[string]any{"maxJobs": maxJobs, "iterations": iterationsFor(t, l.Node, slotJobMs)}, &c)
	return c
}

var poolSlotsClaim = claim{
	ids:       []string{"P3", "P4", "P11"},
	text:      "libuv's pool has 4 slots by default, UV_THREADPOOL_SIZE sets the number, and libuv caps it at 1024",
	published: "default 4 (Node docs); absolute maximum 1024 (libuv docs)",
}

// measurePoolSlots counts the slots of a lab started with UV_THREADPOOL_SIZE=size ("" for unset)
// slotCountRuns times and decides whether every count is want.
func measurePoolSlots(t *testing.T, node runtimes.Node, size string, want int) *results.Result {
	t.Helper()
	l := labOn(node, sizeEnv(size))
	maxJobs := want + 1
	res := poolSlotsClaim.start(t, l, map[string]any{"runs": slotCountRuns, "maxJobs": maxJobs, "jobMs": slotJobMs, "want": want})
	counts := make([]slotCount, slotCountRuns)
	var agree stats.Proportion
	for i := range counts {
		counts[i] = countSlots(t, l, maxJobs)
		agree.N++
		if c := counts[i].Slots; c != nil && *c == want {
			agree.K++
		}
	}
	res.Trials = counts
	shownCounts := make([]string, len(counts))
	for i, c := range counts {
		shownCounts[i] = c.String()
	}
	res.Summary = map[string]any{
		"slots": counts[0].String(), "countsAgreeing": agree,
		results.HeadlineKey: fmt.Sprintf("slot counts %s (UV_THREADPOOL_SIZE=%s)", strings.Join(shownCounts, ", "), shown(size)),
	}
	// Every count is a whole ordering decision: a run whose count is another number is evidence
	// against the claim, not noise.
	decide(t, res, stats.Proportion{K: slotCountRuns, N: slotCountRuns},
		verdict.All(fmt.Sprintf("slot counts equal to %d (UV_THREADPOOL_SIZE=%s)", want, shown(size)), agree))
	return res
}

// shown prints an unset variable as such.
func shown(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

func TestPoolSlots(t *testing.T) {
	forEachNode(t, func(t *testing.T, node runtimes.Node) {
		t.Run("default", func(t *testing.T) {
			holds(t, measurePoolSlots(t, node, "", 4))
		})
		t.Run("UV_THREADPOOL_SIZE=8", func(t *testing.T) {
			holds(t, measurePoolSlots(t, node, "8", 8))
		})
		t.Run("UV_THREADPOOL_SIZE=2000", func(t *testing.T) {
			// Counting 1024 slots by ordering would take 1024 heavy jobs; the kernel's list of
			// the process's threads, before and after the pool starts, counts them directly.
			l := labOn(node, sizeEnv("2000"))
			res := poolSlotsClaim.start(t, l, map[string]any{"requested": 2000})
			var p struct {
				PoolThreads int `json:"poolThreads"`
				Before      any `json:"before"`
				After       any `json:"after"`
			}
			l.run(t, "poolThreads", nil, &p)
			res.Trials = p
			res.Summary = map[string]any{"poolThreads": p.PoolThreads,
				results.HeadlineKey: fmt.Sprintf("%d pool threads for UV_THREADPOOL_SIZE=2000", p.PoolThreads)}
			decide(t, res, stats.Proportion{K: 1, N: 1},
				verdict.Check{
					Name: "pool threads started for UV_THREADPOOL_SIZE=2000",
					Got:  strconv.Itoa(p.PoolThreads),
					Want: strconv.Itoa(libuvMaxThreads),
					Pass: p.PoolThreads == libuvMaxThreads,
					Note: "new entries in /proc/self/task once the first pool job completed",
				})
			holds(t, res)
		})
	})
}

// entryForm is one way to write a program's entry that sets the pool size on its first line.
type entryForm struct {
	Name   string `json:"name"`
	Script string `json:"script"`
}

var entryForms = []entryForm{{"CommonJS", labCJS}, {"ES module", labESM}}

// setInsideSize is what the entries set; it differs from the default so the count tells them
// apart.
const setInsideSize = 8

// insideOutcome is what one entry form did on one runtime.
type insideOutcome struct {
	Node    string `json:"node"`
	Form    string `json:"form"`
	Script  string `json:"script"`
	Slots   string `json:"slots"`
	Honored bool   `json:"honored"` // the count is the size the program set
}

func TestPoolSizeFromInsideProgram(t *testing.T) {
	// The docs only say it is "not guaranteed"; one ordinary entry form that ignores the line, on
	// any runtime here, shows it. Each form on each runtime is measured in a subtest; the claim
	// is decided over all of them.
	var outcomes []insideOutcome
	var nodes []runtimes.Node
	forEachNode(t, func(t *testing.T, node runtimes.Node) {
		nodes = append(nodes, node)
		outcomes = append(outcomes, measureSetInside(t, node)...)
	})
	holds(t, decideSetInside(t, nodes, outcomes))
}

// measureSetInside counts the slots of each entry form that sets the pool size on its first
// line, as subtests of t.
func measureSetInside(t *testing.T, node runtimes.Node) []insideOutcome {
	t.Helper()
	var outcomes []insideOutcome
	for _, f := range entryForms {
		t.Run(strings.ReplaceAll(f.Name, " ", "-"), func(t *testing.T) {
			// UV_THREADPOOL_SIZE itself stays unset: the program is to set it.
			l := lab{Node: node, Script: f.Script, Env: map[string]string{"LAB_SET_POOL_SIZE": strconv.Itoa(setInsideSize)}}
			c := countSlots(t, l, setInsideSize+1)
			require.NotNil(t, c.Slots, "slot count: %s", c)
			assert.Contains(t, []int{4, setInsideSize}, *c.Slots,
				"slot count = %d; want the default 4 or the %d the program set", *c.Slots, setInsideSize)
			outcomes = append(outcomes, insideOutcome{Node: node.Version, Form: f.Name, Script: f.Script, Slots: c.String(), Honored: *c.Slots == setInsideSize})
		})
	}
	return outcomes
}

// decideSetInside decides P5 over every form on every runtime measured.
func decideSetInside(t *testing.T, nodes []runtimes.Node, outcomes []insideOutcome) *results.Result {
	t.Helper()
	require.NotEmpty(t, outcomes, "no entry form was measured")
	env := map[string]string{"LAB_SET_POOL_SIZE": strconv.Itoa(setInsideSize)}
	res := claim{
		ids:       []string{"P5"},
		text:      "setting process.env.UV_THREADPOOL_SIZE inside the program is not guaranteed to work: the pool may be created before user code runs",
		published: "docs statement; known nuance: on Linux it takes effect from the first line of a CommonJS entry, but not of an ES-module entry",
	}.start(t, lab{Node: nodes[0], Script: labScript, Env: env}, map[string]any{"set": setInsideSize, "forms": entryForms})
	res.Target = map[string]any{"nodes": nodes, "forms": entryForms, "env": env}
	var versions []string
	for _, n := range nodes {
		versions = append(versions, n.Version)
	}
	res.Environment.Node = strings.Join(versions, ", ")
	ignored := stats.Proportion{N: len(outcomes)}
	var said []string
	for _, o := range outcomes {
		what := "honored"
		if !o.Honored {
			ignored.K++
			what = "ignored"
		}
		said = append(said, fmt.Sprintf("%s %s: %s (%s slots)", o.Node, o.Form, what, o.Slots))
	}
	res.Trials = outcomes
	res.Summary = map[string]any{"outcomes": said, results.HeadlineKey: strings.Join(said, "; ")}
	decide(t, res, stats.Proportion{K: len(outcomes), N: len(outcomes)}, verdict.Check{
		Name: "entry forms that ignored the first-line setting",
		Got:  ignored.String(),
		Want: "at least 1",
		Pass: ignored.K >= 1,
		Note: strings.Join(said, "; "),
	})
	return res
}
