// Package claimtest is what every claim test shares: the Claim it decides (IDs from the catalog,
// the family of its result, what the test asserts), the targets it runs against (Run, Mode), and
// the last step: give the measurement its verdict, write the result (Record), and assert the
// claim, so that a failing claim reads the same in every package: each check that did not hold
// as `what = got; want want (evidence)`, then the verdict with its reason.
//
// It also holds the tests of the claim tests: a BrokenCase measures a claim against a target
// broken on purpose, a package declares its cases once (BrokenCases), and CatchBroken wants
// their verdicts turned. Main, each experiment package's
// TestMain, reads the run's settings, and after the run fails it where a claim checked has no
// broken case, or a test that checked a claim is not in catalog.Tests.
package claimtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Claim is what one claim test decides.
type Claim struct {
	IDs []string // the catalog's IDs this test decides
	// Family is the result's family: which typed parameters, summary and trials it carries. Its
	// first word is the results folder (results.Group): eventloop, threadpool, coldstart.
	Family string
	Expect Expectation // what the test asserts of the verdict; the zero value is Holds
}

// Expectation is what a claim test asserts of its verdict.
type Expectation struct {
	outcome verdict.Outcome // "" for Holds
	why     string
	// orInconclusive accepts an inconclusive verdict beside outcome (NotBorneOut).
	orInconclusive bool
}

// Holds asserts that the claim holds: verdict pass, every check holding.
var Holds = Expectation{}

// Refuted asserts that the measurement refutes the claim (verdict fail), for the reason why. A
// claim an article states and these runtimes do not bear out is a finding: the result says fail
// with its evidence, the test passes while that stays so, and fails, asking for the claim to be
// looked at again, the day a runtime makes it hold.
func Refuted(why string) Expectation { return Expectation{outcome: verdict.Fail, why: why} }

// NotBorneOut asserts that the measurement does not bear the claim out (verdict fail or
// inconclusive), for the reason why: where the claim's effect sits at its bound on this target,
// so that more evidence narrows the interval onto the bound rather than past it, and either
// verdict is the finding. The test fails the day the claim holds.
func NotBorneOut(why string) Expectation {
	return Expectation{outcome: verdict.Fail, why: why, orInconclusive: true}
}

// recorded is e as a result records it: nil for Holds.
func (e Expectation) recorded() *results.Expected {
	if e.outcome == "" {
		return nil
	}
	return &results.Expected{Outcome: e.outcome, Why: e.why, OrInconclusive: e.orInconclusive}
}

// prediction is e as the local model's prediction.
func (e Expectation) prediction() *results.Prediction {
	if e.outcome == "" {
		return &results.Prediction{Outcome: verdict.Pass}
	}
	return &results.Prediction{Outcome: e.outcome, Why: e.why, OrInconclusive: e.orInconclusive}
}

// Judges says whether a platform of mode judges the local model rather than runs it: AWS, or an
// endpoint a user named as speaking its API (results.ModeLive). There a claim test asserts the
// article's claim, whatever the model predicts, and records the prediction beside its verdict;
// everywhere else (the local platform, the stand-ins) it asserts what the model predicts.
func Judges(mode string) bool { return mode == results.ModeLive }

// on is the expectation a test of c asserts on a platform of mode: the article's claim (Holds)
// where the platform judges the model, else c.Expect, the model's prediction.
func (c Claim) on(mode string) Expectation {
	if Judges(mode) {
		return Holds
	}
	return c.Expect
}

// Target is what a claim body runs against, as far as the result needs to know.
type Target interface {
	// Mode is where the target runs: "local" (stand-ins on this machine) or "live" (AWS).
	Mode() string
}

// Mode is one kind of target a claim body runs against (a Node probe, a Go probe, a function
// under the local emulator, a live Lambda function): its subtest's name and how to start it.
type Mode[T any] struct {
	Name  string
	Start func(t *testing.T) T // starts the target; stopping it is its own t.Cleanup
}

// Run runs body once per mode, in a subtest named by the mode, against the target the mode
// starts: net/http's run(t, testFoo, modes...), so that a claim's body never knows which it got.
func Run[T any](t *testing.T, body func(t *testing.T, target T), modes ...Mode[T]) {
	t.Helper()
	if len(modes) == 1 {
		body(t, modes[0].Start(t))
		return
	}
	RunEach(t, body, modes...)
}

// RunEach is Run with a subtest per mode even when there is one, for modes found at run time
// (the Node.js runtimes a machine has), so that a result's name does not depend on how many.
func RunEach[T any](t *testing.T, body func(t *testing.T, target T), modes ...Mode[T]) {
	t.Helper()
	for _, m := range modes {
		t.Run(m.Name, func(t *testing.T) { body(t, m.Start(t)) })
	}
}

// Measurement is a claim measured on one target, before its verdict.
type Measurement struct {
	Target      Target // what ran; its Mode goes into the result, and it is recorded as is
	Broken      string // what a sensitivity test broke on purpose; its result goes under results/sensitivity
	Statement   string // this run's wording of the claim; default: the catalog's statements
	StartedAt   time.Time
	Headline    string // our key figures in one line
	Parameters  any
	Summary     any
	Trials      any
	Environment results.Environment
	Evidence    stats.Proportion // the trials that could speak to the claim, of all
	// NotEvidence says why the other trials could not, counted by reason ("2 the first REPORT
	// has no Init Duration: not a cold start; 1 ..."); an inconclusive verdict for too little
	// evidence names it (verdict.DecideWith). "" where the claim has no reasons to give.
	NotEvidence string
	// Cut says why the test ran fewer trials than its settings asked for (none, or some), to
	// fit the time go test gave it; "" where it ran them all. Where the verdict is then
	// inconclusive and the claim's expectation does not allow that, Check writes the result
	// and skips the test naming why and what to do, rather than failing a claim for want of
	// evidence its time did not allow; a decided verdict is asserted as ever.
	Cut    string
	Checks []verdict.Check
}

// Decide gives m its verdict (verdict.Decide), writes its result under results/<group> (or
// results/sensitivity/<group> when m.Broken says what was broken; Record) and returns it. It does not
// assert: a sensitivity test reads a failing verdict from it.
func (c Claim) Decide(t testing.TB, m Measurement) results.Result {
	t.Helper()
	published, err := results.PublishedFor(c.IDs)
	if err != nil {
		t.Fatalf("claim %v: %v", c.IDs, err)
	}
	statement := m.Statement
	if statement == "" {
		var parts []string
		for _, id := range c.IDs {
			cl, _ := catalog.Lookup(id) // PublishedFor found each
			parts = append(parts, cl.Statement)
		}
		statement = strings.Join(parts, " ")
	}
	started := m.StartedAt
	if started.IsZero() {
		started = time.Now()
	}
	res := results.Result{
		Experiment:  t.Name(),
		Family:      c.Family,
		Claims:      c.IDs,
		Claim:       statement,
		Mode:        m.Target.Mode(),
		Broken:      m.Broken,
		StartedAt:   started.UTC(),
		FinishedAt:  time.Now().UTC(),
		Headline:    m.Headline,
		Parameters:  m.Parameters,
		Target:      m.Target,
		Summary:     m.Summary,
		Verdict:     verdict.DecideWith(m.Evidence, m.NotEvidence, m.Checks...),
		Expected:    c.on(m.Target.Mode()).recorded(),
		Published:   published,
		Environment: m.Environment,
		Trials:      m.Trials,
	}
	if Judges(res.Mode) {
		res.ModelPrediction = c.Expect.prediction()
	}
	Record(t, res)
	return res
}

// Assert asserts of res what c expects on res's platform (Claim.on): for Holds each check,
// then the verdict; for Refuted the verdict fail. Where the platform judges the model, the
// article's claim is asserted and the model's prediction is said beside the verdict.
func (c Claim) Assert(t testing.TB, res results.Result) {
	t.Helper()
	e := c.on(res.Mode)
	switch e.outcome {
	case "":
		model := ""
		if p := res.ModelPrediction; p != nil {
			model = fmt.Sprintf("; the model predicted %s", p.Outcome)
			if p.Why != "" {
				model += ": " + p.Why
			}
			if p.Disagrees(res.Verdict.Outcome) {
				t.Logf("%v: the platform's verdict is %s, the model predicted %s: a finding about the model (%s)", res.Claims, res.Verdict.Outcome, p.Outcome, res.Verdict.Reason)
			}
		}
		for _, ch := range res.Verdict.Checks {
			// An inconclusive verdict's checks decided nothing: said, not failed, so that the
			// failure reads as the verdict's, with its reason, and not as checks that failed.
			if !ch.Pass && (ch.Undecided || res.Verdict.Outcome == verdict.Inconclusive) {
				t.Logf("%v: not decided: %s", res.Claims, ch)
				continue
			}
			assert.True(t, ch.Pass, "%v: %s", res.Claims, ch)
		}
		assert.Equal(t, verdict.Pass, res.Verdict.Outcome, "verdict for %v = %s; want pass, the article's claim: %s (%s%s)",
			res.Claims, res.Verdict.Outcome, res.Claim, res.Verdict.Reason, model)
	case verdict.Fail:
		if e.orInconclusive {
			if assert.NotEqual(t, verdict.Pass, res.Verdict.Outcome,
				"verdict for %v = pass; want fail or inconclusive, the claim not borne out here because %s (%s)", res.Claims, e.why, res.Verdict.Reason) {
				t.Logf("%v not borne out (%s), as measured before: %s; evidence: %s", res.Claims, res.Verdict.Outcome, e.why, res.Verdict.Reason)
			}
			return
		}
		if assert.Equal(t, verdict.Fail, res.Verdict.Outcome,
			"verdict for %v = %s; want fail, the claim refuted here because %s (%s)", res.Claims, res.Verdict.Outcome, e.why, res.Verdict.Reason) {
			t.Logf("%v refuted, as measured before: %s; evidence: %s", res.Claims, e.why, res.Verdict.Reason)
		}
	}
}

// Check decides m and asserts the claim: the last line of a claim test. The run notes that the
// claim was checked, for Main's end-of-run checks.
func (c Claim) Check(t testing.TB, m Measurement) results.Result {
	t.Helper()
	res := c.Decide(t, m)
	if m.Cut != "" && res.Verdict.Outcome == verdict.Inconclusive && !c.on(res.Mode).orInconclusive {
		t.Skipf("%v inconclusive on a plan cut to fit go test's time, its result written (%s): %s", res.Claims, res.Verdict.Reason, m.Cut)
	}
	c.Assert(t, res)
	thisRun.checked(t.Name(), c, res.Mode)
	return res
}

// key is what tells one claim test's claim from another's: its family and IDs (P11's slot count
// and its thread count decide the same IDs from different measurements).
func (c Claim) key() string { return c.Family + " " + strings.Join(c.IDs, " ") }
