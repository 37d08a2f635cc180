package coldstart

// The time plan. go test gives a package's test binary one -timeout for all its tests (10 minutes
// unless set), and kills the binary one minute after it, counted from the binary's start, so
// that TestMain's installs and builds spend the tests' time too. The claim tests share what is
// left by their planned cold starts: each, as it starts, plans as many of its cold starts as its
// share holds (at each language's cost per cold start, measured in this run where it has run,
// else the prior below, plus what the platform adds: onThisPlatform), keeps to that share as it
// runs, and says in its result (parameters.cut) and its output where it planned fewer than its
// settings asked for. A share that cannot hold the fewest cold starts that decide a claim starts
// none: the result is inconclusive, saying so, and the test skips naming what to do. On the
// live platform (-tags lambda) the run's estimate of its time is printed beside its cost before
// anything is made (plannedTime), with what the plan will shorten.

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/settings"
	"github.com/serverless-claims/claims/results/family"
)

// localStopMargin is how long before the package's deadline the local platform starts no cold
// start: one round in flight and the clean-up after it. Ending an emulator and removing its
// cgroup takes well under a second, and the longest round here (T5's five sizes of the Rust
// function, or a T4 cold start waiting out its stall) a few seconds; 30 s is ten times that, for
// a machine busy with other work. The live platform's deletions need stopMargin.
const localStopMargin = 30 * time.Second

// killGrace is how long after -timeout cmd/go kills a test binary (its testKillTimeout), counted
// from the binary's start rather than from m.Run, where the binary's own alarm starts.
const killGrace = time.Minute

// timedTest is a test the plan shares the time among: a claim test's cold starts in each
// language, at the run's settings, which it cuts where the time is short; or the fixed time of
// a test that cuts nothing (the broken cases, T8), which is kept for it in full.
type timedTest struct {
	// test is the test function; the plan knows it by its name (testName).
	test func(*testing.T)
	// coldStarts is the test's cold starts in language l at the settings s, every arm's
	// together; nil for a fixed test.
	coldStarts func(s settings.Settings, l lambdazip.Language) int
	// perColdStart is what one of them cost here, by language (measured, below).
	perColdStart map[lambdazip.Language]time.Duration
	fixed        time.Duration
}

// timedTests are the tests the plan knows, by top-level name (testName), with what each cost on
// this machine (2 cores, Debian 12, shared with other work's builds): measured on a run of the
// whole package at c18ed6b with the article's settings (go test -json's times, builds excluded),
// its time over its cold starts, rounded up to 10 ms. A run scales them all by how its own cold
// starts compare with them so far (timeBudget.speed), so that a slower or busier machine plans
// for its own speed.
var timedTests = map[string]timedTest{}

// init fills timedTests with the claim tests and the plan's own test; the local platform's broken
// cases add theirs where they are declared (sensitivity_test.go). Each entry names its test by
// the function itself, so that a renamed test takes its entry with it; a package-level
// initializer that named the tests would be an initialization cycle, as the tests read the plan.
func init() {
	addTimedTests(
		// T6's Go and Rust figures are T1's: T6's time in that run held their functions' builds.
		timedTest{test: TestPhasesAreTheSDKsOwnConnection, coldStarts: trials, perColdStart: perLanguage(210, 110, 420, 550)},
		// Every other cold start of T4 is stalled: it waits out the warm-up's bound and the stall;
		// Python's SDK retries a refused connection for some 26 s before it answers.
		timedTest{test: TestWarmupFailureDoesNotFailInit, coldStarts: trials, perColdStart: perLanguage(710, 1740, 870, 13640)},
		timedTest{
			test: TestFirstCallDominatedByTLS,
			coldStarts: func(s settings.Settings, l lambdazip.Language) int {
				return t1Arms(l) * t1ColdStarts * coldStartsIn(s, l)
			},
			perColdStart: perLanguage(210, 110, 600, 850),
		},
		// Four warm invocations each.
		timedTest{test: TestFirstInvocationIsSlow, coldStarts: coldStartsIn, perColdStart: perLanguage(500, 300, 1470, 1200)},
		timedTest{
			test:         TestWarmupRemovesHandshake,
			coldStarts:   func(s settings.Settings, l lambdazip.Language) int { return 2 * warmupColdStarts(s, l, localPlatform) },
			perColdStart: perLanguage(300, 150, 800, 830),
		},
		timedTest{
			test:         TestHandshakeScalesWithCPU,
			coldStarts:   func(s settings.Settings, l lambdazip.Language) int { return len(scalingSizes) * coldStartsIn(s, l) },
			perColdStart: perLanguage(160, 110, 470, 640),
		},
		// Not measured at c18ed6b, which had no T9: T5's figures, whose cold starts are the same
		// function's cold variant across memory sizes.
		timedTest{
			test:         TestInitIsNotThrottled,
			coldStarts:   func(s settings.Settings, l lambdazip.Language) int { return len(initBurstSizes) * coldStartsIn(s, l) },
			perColdStart: perLanguage(160, 110, 470, 640),
		},
		// T8's busy loops of 2 s at six sizes, each in a fresh environment.
		timedTest{test: TestThrottleSlices, fixed: 18 * time.Second},
		// A test binary of its own: its build of the Go function, dynalite and the result.
		timedTest{test: TestAPlanWithNoRoomForItsClaimIsInconclusive, fixed: 20 * time.Second},
	)
}

// addTimedTests adds tts to timedTests, each by its test's name.
func addTimedTests(tts ...timedTest) {
	for _, tt := range tts {
		timedTests[testName(tt.test)] = tt
	}
}

// testName is test function f's name, as go test runs it: what -run matches, and t.Name()'s
// first element.
func testName(f func(*testing.T)) string {
	full := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return full[strings.LastIndexByte(full, '.')+1:]
}

// platformTime is what the platform the claim tests run on adds to timedTests' costs, which
// were measured on this machine's local platform: the local platform adds nothing; the live one
// (modes_live_test.go) forcing each cold start through the API and making and deleting what
// each test runs.
type platformTime struct {
	// margin is how long before the package's deadline no cold start starts.
	margin time.Duration
	// forceCold is added to each cold start's cost.
	forceCold time.Duration
	// perTest is each test's (and each language's) own, which cannot be cut.
	perTest time.Duration
	// why says where forceCold and perTest come from; "" where both are zero.
	why string
	// longer says how to run the whole plan where it was cut.
	longer string
}

// added says what the platform adds to the measured costs, "" where it adds nothing.
func (pt platformTime) added() string {
	if pt.why == "" {
		return ""
	}
	return fmt.Sprintf("%v for forcing each cold start and %v for each test's making and deleting what it runs (%s)", pt.forceCold, pt.perTest, pt.why)
}

// perLanguage is a cost per cold start in ms of Go, Rust, Node.js and Python.
func perLanguage(goMs, rustMs, nodeMs, pythonMs int) map[lambdazip.Language]time.Duration {
	return map[lambdazip.Language]time.Duration{lambdazip.Go: time.Duration(goMs) * time.Millisecond, lambdazip.Rust: time.Duration(rustMs) * time.Millisecond,
		lambdazip.Node: time.Duration(nodeMs) * time.Millisecond, lambdazip.Python: time.Duration(pythonMs) * time.Millisecond}
}

// trials is the cold starts at s of the claims that do not depend on a CPU share.
func trials(s settings.Settings, _ lambdazip.Language) int { return s.Trials }

// minMeasured is how much of the measured costs this run's cold starts must have repeated
// before their speed replaces the measure's (1).
const minMeasured = 10 * time.Second

// coldStartFactor is how many times the run's cold starts (CLAIMS_COLD_STARTS) the claims about
// a CPU share take on a language's function, where not once: a Rust cold start lasts a few ms,
// and its handshake, well under a period's quota, is stretched only where it meets the quota's
// end, so its figures are a mix of two and their means need more cold starts to settle; three
// times as many cost less than Go's.
var coldStartFactor = map[lambdazip.Language]int{lambdazip.Rust: 3}

// withColdStartsFor is s with the cold starts the claims take on l's function.
func withColdStartsFor(s settings.Settings, l lambdazip.Language) settings.Settings {
	if f, ok := coldStartFactor[l]; ok {
		s.ColdStarts *= f
	}
	return s
}

// coldStartsOn is the cold starts the claims about a CPU share take on p: its settings'
// CLAIMS_COLD_STARTS, times its language's factor.
func coldStartsOn(p lambdaPlatform) int {
	return withColdStartsFor(p.Settings(), p.Language()).ColdStarts
}

// coldStartsIn is the cold starts at s of the claims about a CPU share in language l.
func coldStartsIn(s settings.Settings, l lambdazip.Language) int {
	return withColdStartsFor(s, l).ColdStarts
}

// timeBudget is the package's time, as the plan knows it.
type timeBudget struct {
	mu sync.Mutex
	// mainStart is when TestMain began, testsStart when it called m.Run: -timeout's clock
	// starts at the second, cmd/go's kill at the first.
	mainStart, testsStart time.Time
	// begun are the timed tests that have started, by name (Top/language for a claim test).
	begun map[string]bool
	// expected is what this run's cold starts so far cost when measured (timedTests), spent
	// what they cost now.
	expected, spent time.Duration
}

// budget is this binary's.
var budget = &timeBudget{begun: map[string]bool{}}

// deadline is when the package's tests must be done: the binary's -timeout, brought forward by
// what TestMain took beyond cmd/go's minute of grace. ok is false with no timeout.
func (b *timeBudget) deadline(t *testing.T) (time.Time, bool) {
	d, ok := t.Deadline()
	if !ok {
		return time.Time{}, false
	}
	if setup := b.testsStart.Sub(b.mainStart); !b.mainStart.IsZero() && setup > killGrace {
		d = d.Add(killGrace - setup)
	}
	return d, true
}

// speed is how this run's cold starts compare with the measured costs: spent over expected,
// once minMeasured of them ran, else 1; measured says which.
func (b *timeBudget) speed() (ratio float64, measured bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.expected < minMeasured {
		return 1, false
	}
	return float64(b.spent) / float64(b.expected), true
}

// cost is one cold start of test top in language l at this run's speed.
func (b *timeBudget) cost(top string, l lambdazip.Language) time.Duration {
	ratio, _ := b.speed()
	return time.Duration(ratio * float64(priorCost(top, l)))
}

// priorCost is one cold start of test top in language l as measured (timedTests), with what
// the platform adds to it.
func priorCost(top string, l lambdazip.Language) time.Duration {
	return timedTests[top].perColdStart[l] + onThisPlatform.forceCold
}

// took adds cold starts that cost expected when measured and spent now.
func (b *timeBudget) took(expected, spent time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected += expected
	b.spent += spent
}

// begin notes that the timed test name started; the plan keeps no time for it after.
func (b *timeBudget) begin(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.begun[name] = true
}

// still is the time the timed tests that have not started and that the run selects will need
// at the run's settings s, and the part of it that is fixed (cannot be cut).
func (b *timeBudget) still(s settings.Settings, except string) (all, fixed time.Duration, tests int) {
	for top, tt := range timedTests {
		if !runsHere(top) {
			continue
		}
		if tt.coldStarts == nil {
			if top != except && !b.hasBegun(top) && selected(top) {
				own := tt.fixed + onThisPlatform.perTest
				all, fixed, tests = all+own, fixed+own, tests+1
			}
			continue
		}
		for _, l := range lambdazip.Languages {
			name := top + "/" + string(l)
			if name == except || b.hasBegun(name) || !selected(top, string(l)) {
				continue
			}
			all += time.Duration(tt.coldStarts(s, l))*b.cost(top, l) + onThisPlatform.perTest
			fixed += onThisPlatform.perTest
			tests++
		}
	}
	return all, fixed, tests
}

func (b *timeBudget) hasBegun(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.begun[name]
}

// beginFixed is the start of a timed test that cuts nothing (the broken cases, T8).
func beginFixed(t *testing.T) { budget.begin(t.Name()) }

// coldStartPlan is how many rounds of cold starts a test runs, and until when.
type coldStartPlan struct {
	t    *testing.T
	lang lambdazip.Language
	what string // "cold starts", "rounds of cold starts"
	// planned is the rounds the settings ask for; n the rounds planned, which the evidence is
	// counted against; minimum the fewest that decide the claim.
	planned, n, minimum int
	arms                int // cold starts in a round
	// cut says why n < planned; refused that no round was planned at all.
	cut     string
	refused bool
	// deadline is the package's (limited: there is one); margin what the platform needs
	// after the last round; shareEnds when this test's share ends (zero: none).
	deadline  time.Time
	limited   bool
	margin    time.Duration
	shareEnds time.Time
	// began is when the first round started; ran how many have.
	began time.Time
	ran   int
	// measured is what a round cost when timedTests was measured; 0 for a test it does not
	// know, whose rounds take no part in the run's speed.
	measured time.Duration
}

// planColdStarts plans planned rounds of arms cold starts each on p, of which the claim needs at
// least minimum to be decided. A timed test's rounds are cut to its share of the time left,
// beside what the tests still to run need at p's settings; another test's are not, and only the
// deadline (with the platform's margin) stops them.
func planColdStarts(t *testing.T, p lambdaPlatform, what string, planned, arms, minimum int) *coldStartPlan {
	t.Helper()
	pl := &coldStartPlan{t: t, lang: p.Language(), what: what, planned: planned, n: planned, minimum: min(minimum, planned), arms: arms, margin: onThisPlatform.margin}
	pl.deadline, pl.limited = budget.deadline(t)
	top, _, _ := strings.Cut(t.Name(), "/")
	tt, ok := timedTests[top]
	if !ok || !pl.limited {
		return pl
	}
	now := time.Now()
	avail := pl.deadline.Sub(now) - pl.margin
	if tt.coldStarts == nil {
		// A fixed test (T8) runs whole or not at all; the broken cases' own plans, whole.
		if t.Name() == top && avail < tt.fixed {
			pl.n, pl.refused = 0, true
			pl.cut = fmt.Sprintf("none of %d %s started: go test's deadline left %v, %v of it after the clean-up's %v, and the test needs %v", planned, what, (avail + pl.margin).Round(time.Second), avail.Round(time.Second), pl.margin, tt.fixed)
			t.Logf("%s", pl.whyCut())
		}
		return pl
	}
	if t.Name() != top+"/"+string(pl.lang) {
		return pl
	}
	budget.begin(t.Name())
	pl.measured = time.Duration(arms) * priorCost(top, pl.lang)
	rest, fixed, tests := budget.still(p.Settings(), t.Name())
	_, measured := budget.speed()
	round := time.Duration(arms) * budget.cost(top, pl.lang)
	n := fitRounds(planned, pl.minimum, round, avail, rest, fixed)
	if n == planned {
		pl.shareEnds = now.Add(avail - rest)
		return pl
	}
	source := "as measured before (timedTests)"
	if measured {
		source = "as measured before, at this run's speed"
	}
	if added := onThisPlatform.added(); added != "" {
		source += ", with " + added
	}
	why := fmt.Sprintf("go test's deadline left %v, %v of it after the clean-up's %v, for this test's %d %s (%v each, %s) and the %d tests still to run (%v, %v of it fixed)",
		(avail + pl.margin).Round(time.Second), avail.Round(time.Second), pl.margin, planned, what, round.Round(time.Millisecond), source, tests, rest.Round(time.Second), fixed.Round(time.Second))
	if n == 0 {
		pl.n, pl.refused = 0, true
		pl.cut = fmt.Sprintf("none of %d %s started: the fewest that decide the claim, %d, did not fit: %s", planned, what, pl.minimum, why)
		t.Logf("%s", pl.whyCut())
		return pl
	}
	pl.n = n
	pl.shareEnds = now.Add(shareSlack(time.Duration(n) * round))
	pl.cut = fmt.Sprintf("%d of %d %s planned: %s", n, planned, what, why)
	t.Logf("the plan is cut to fit the package's time: %s", pl.cut)
	return pl
}

// plannedTime is the run's estimate of its own time before anything starts, as lines to print:
// the selected timed tests' cold starts at the run's settings s, at their prior cost (priorCost: this run has measured
// nothing yet) and each test's own time, against timeout (go test's -timeout; 0 for none) less
// the platform's margin, and, where they do not fit, how many of its cold starts each test will
// plan: fitRounds gives each the same part, as this does, so that the tests' own plans come out
// near these figures unless the run's speed differs from the prior's.
func plannedTime(s settings.Settings, timeout time.Duration) []string {
	var (
		lines      []string
		all, fixed time.Duration
		coldStarts int
	)
	type share struct {
		name   string
		n      int
		rounds time.Duration
	}
	var shares []share
	for _, top := range slices.Sorted(maps.Keys(timedTests)) {
		tt := timedTests[top]
		if !runsHere(top) {
			continue
		}
		if tt.coldStarts == nil {
			if selected(top) {
				own := tt.fixed + onThisPlatform.perTest
				all, fixed = all+own, fixed+own
				lines = append(lines, fmt.Sprintf("  %s: %v, not cut", named(top), own.Round(time.Second)))
			}
			continue
		}
		for _, l := range lambdazip.Languages {
			if !selected(top, string(l)) {
				continue
			}
			n := tt.coldStarts(s, l)
			rounds := time.Duration(n) * priorCost(top, l)
			all, fixed, coldStarts = all+rounds+onThisPlatform.perTest, fixed+onThisPlatform.perTest, coldStarts+n
			shares = append(shares, share{named(top) + "/" + string(l), n, rounds})
		}
	}
	head := fmt.Sprintf("time: about %v for the selected tests' %d cold starts, each at its cost measured on the local platform", all.Round(time.Second), coldStarts)
	if added := onThisPlatform.added(); added != "" {
		head += " with " + added
	}
	avail := timeout - onThisPlatform.margin
	part := 1.0
	var fit string
	switch {
	case timeout == 0:
		fit = "no -timeout: nothing is shortened"
	case all <= avail:
		fit = fmt.Sprintf("go test's -timeout %v leaves %v after the clean-up's %v: every test planned whole", timeout, avail, onThisPlatform.margin)
	default:
		part = max(0, float64(avail-fixed)) / float64(all-fixed)
		fit = fmt.Sprintf("go test's -timeout %v leaves %v after the clean-up's %v: each test will plan about %.0f%% of its cold starts, "+
			"and one whose part cannot hold the fewest that decide its claim starts none and is inconclusive; for the whole plan, %s",
			timeout, avail, onThisPlatform.margin, 100*part, onThisPlatform.longer)
	}
	lines = append([]string{fit}, lines...)
	for _, sh := range shares {
		line := fmt.Sprintf("  %s: %d cold starts, %v", sh.name, sh.n, sh.rounds.Round(time.Second))
		if part < 1 {
			line += fmt.Sprintf(", shortened to about %d", int(part*float64(sh.n)))
		}
		lines = append(lines, line)
	}
	return append([]string{head}, lines...)
}

// named is a timed test's name with the claims it decides.
func named(top string) string {
	if ct, ok := catalog.LookupTest("coldstart", top); ok {
		return fmt.Sprintf("%s (%s)", top, strings.Join(ct.Claims, ", "))
	}
	return top
}

// shareSlack is a cut plan's share of the time with room for what its rounds' cost leaves out:
// creating its functions and starting DynamoDB (a second or two), and a machine that runs a
// little slower than the run's speed so far says. A test that overruns it takes the time from
// the tests after it, which plan with what is left.
func shareSlack(d time.Duration) time.Duration { return d + d/10 + 2*time.Second }

// fitRounds is how many of planned rounds, each costing round, a test plans with avail left
// and rest needed by the tests still to run, fixed of it not to be cut: all of them where
// they fit beside the rest; else the same part of its rounds as every test still to run gets
// of its own, but not fewer than minimum where minimum fits beside the fixed part; else none.
func fitRounds(planned, minimum int, round, avail, rest, fixed time.Duration) int {
	self := time.Duration(planned) * round
	if self+rest <= avail {
		return planned
	}
	part := max(0, float64(avail-fixed)) / float64(self+rest-fixed)
	n := min(planned, int(part*float64(planned)))
	if n >= minimum {
		return n
	}
	if time.Duration(minimum)*round <= avail-fixed {
		return minimum
	}
	return 0
}

// mayStart says whether another round may start: within the plan, with time for it and the
// clean-up after it before the deadline, and, once the claim has the fewest cold starts that
// decide it, within the test's share. A round the share has no room for cuts the plan there.
func (pl *coldStartPlan) mayStart() bool {
	if pl.ran >= pl.n {
		return false
	}
	if pl.ran == 0 {
		pl.began = time.Now()
	}
	var next time.Duration // the next round's expected time: the mean so far
	if pl.ran > 0 {
		next = time.Since(pl.began) / time.Duration(pl.ran)
	}
	if pl.limited && time.Until(pl.deadline) <= pl.margin+next {
		return false
	}
	if !pl.shareEnds.IsZero() && pl.ran >= pl.minimum && time.Now().Add(next).After(pl.shareEnds) {
		why := fmt.Sprintf("%d of %d %s run: the test's share of the package's time ended after %v, %v a round", pl.ran, pl.planned, pl.what,
			time.Since(pl.began).Round(time.Second), next.Round(time.Millisecond))
		if pl.cut != "" {
			why += "; " + pl.cut
		}
		pl.n, pl.cut = pl.ran, why
		pl.t.Logf("the plan is cut to fit the package's time: %s", why)
		return false
	}
	return true
}

// record is the plan as a result's parameters keep it: nil where it ran whole.
func (pl *coldStartPlan) record() *family.Cut {
	if pl.cut == "" {
		return nil
	}
	return &family.Cut{Planned: pl.planned, Why: pl.cut}
}

// rounds is the rounds the result counts its evidence against: those planned, or the settings'
// where none was (every one of them then counted not started).
func (pl *coldStartPlan) rounds() int {
	if pl.refused {
		return pl.planned
	}
	return pl.n
}

// fewestColdStarts is the fewest cold starts (per arm) that decide a claim about a CPU share in
// language l: the settings' least, times l's factor.
func fewestColdStarts(l lambdazip.Language) int {
	return withColdStartsFor(settings.Settings{ColdStarts: settings.MinColdStarts}, l).ColdStarts
}

// fewestTrials is the fewest cold starts that decide T6 or T4, whose checks want every one: as
// few as a claim about a CPU share, or s's trials where they are fewer.
func fewestTrials(s settings.Settings) int { return min(settings.MinColdStarts, s.Trials) }

// selected says whether the run's -test.run and -test.skip select the test named by its
// elements (the top-level name, then a subtest's), as the testing package matches them: each
// element of a pattern (split at '/') against the name's element at its level.
func selected(names ...string) bool {
	if run := flagValue("test.run"); run != "" && !matches(run, names, true) {
		return false
	}
	if skip := flagValue("test.skip"); skip != "" && matches(skip, names, false) {
		return false
	}
	return true
}

// matches says whether pattern matches names: with partial, a pattern with more elements than
// names matches on those it has (-run selects the parents of a subtest it names); without, it
// must have no more elements than names (-skip skips a subtest only where it names it whole).
func matches(pattern string, names []string, partial bool) bool {
	elems := splitPattern(pattern)
	if !partial && len(elems) > len(names) {
		return false
	}
	for i, e := range elems {
		if i >= len(names) {
			break
		}
		re, err := regexp.Compile(e)
		if err != nil || !re.MatchString(names[i]) {
			return false
		}
	}
	return true
}

// splitPattern splits a -run pattern at the slashes outside brackets and parentheses.
func splitPattern(p string) []string {
	var elems []string
	depth, start := 0, 0
	for i, c := range p {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if depth == 0 {
				elems = append(elems, p[start:i])
				start = i + 1
			}
		}
	}
	return append(elems, p[start:])
}

// flagValue is the testing flag name's value, "" where there is none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// withCut adds to a headline that the plan was cut, where it was.
func (pl *coldStartPlan) withCut(headline string) string {
	switch {
	case pl.refused:
		return headline + "; none of " + fmt.Sprint(pl.planned) + " " + pl.what + " started: go test's time left could not hold the fewest that decide the claim (parameters.cut)"
	case pl.cut != "":
		return headline + fmt.Sprintf("; %d of %d %s planned, to fit go test's time (parameters.cut)", pl.n, pl.planned, pl.what)
	}
	return headline
}

// whyCut is why the plan was cut, with what to do for the whole plan, for
// claimtest.Measurement.Cut; "" where it was not.
func (pl *coldStartPlan) whyCut() string {
	if pl.cut == "" {
		return ""
	}
	return pl.cut + "; for the whole plan, " + onThisPlatform.longer
}

// TestTheTimePlanKnowsEveryClaimTest: each claim test of this package that the catalog lists
// (T7's benchmark aside) has its cost in timedTests, without which the plan would keep no time
// for it in the other tests' shares and would never cut it.
func TestTheTimePlanKnowsEveryClaimTest(t *testing.T) {
	for _, ct := range catalog.Tests() {
		if ct.Package != "coldstart" || !strings.HasPrefix(ct.Name, "Test") {
			continue
		}
		_, ok := timedTests[ct.Name]
		assert.True(t, ok, "timedTests[%s] (%s) = none; want the test's cost, or the plan leaves it out", ct.Name, strings.Join(ct.Claims, ", "))
	}
}

func TestPlansAreCutToTheTimeLeft(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name                     string
		planned, minimum         int
		round, avail, rest, fixd time.Duration
		want                     int
	}{
		{"all fit", 40, 10, s, 100 * s, 60 * s, 0, 40},
		{"all fit, exactly", 40, 10, s, 100 * s, 60 * s, 60 * s, 40},
		// 40 s and 80 s of rounds (20 s fixed) in 80 s: each test gets (80-20)/(40+60) of its own.
		{"cut alike", 40, 10, s, 80 * s, 80 * s, 20 * s, 24},
		{"cut to the fewest that decide", 40, 10, s, 30 * s, 200 * s, 20 * s, 10},
		{"not even the fewest beside the fixed", 40, 10, s, 30 * s, 200 * s, 25 * s, 0},
		{"no time at all", 40, 10, s, -5 * s, 0, 0, 0},
	} {
		got := fitRounds(tc.planned, tc.minimum, tc.round, tc.avail, tc.rest, tc.fixd)
		assert.Equal(t, tc.want, got, "%s: rounds of %d planned (fewest %d, %v each) in %v beside %v (%v fixed)",
			tc.name, tc.planned, tc.minimum, tc.round, tc.avail, tc.rest, tc.fixd)
	}
}

// TestNoRoundStartsInsideTheCleanUpMargin: whatever the plan, a round does not start once the
// deadline is within the platform's margin (and the mean round so far) of now: the guard for a
// run slower than its plan.
func TestNoRoundStartsInsideTheCleanUpMargin(t *testing.T) {
	margin := time.Minute
	for _, tc := range []struct {
		name  string
		until time.Duration // from now to the deadline
		want  bool
	}{
		{"well before the margin", margin + time.Hour, true},
		{"inside the margin", margin - time.Second, false},
	} {
		pl := &coldStartPlan{t: t, planned: 10, n: 10, minimum: 5, limited: true, deadline: time.Now().Add(tc.until), margin: margin}
		assert.Equal(t, tc.want, pl.mayStart(), "%s: may a round start with the deadline %v away and a margin of %v", tc.name, tc.until, margin)
	}
}

func TestPatternsSelectAsGoTestDoes(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		names   []string
		partial bool
		want    bool
	}{
		{"^TestA$", []string{"TestA", "go"}, true, true},
		{"^TestA$", []string{"TestAB"}, true, false},
		{"^(TestA|TestB)$/^(rust|node)$", []string{"TestB", "rust"}, true, true},
		{"^(TestA|TestB)$/^(rust|node)$", []string{"TestB", "go"}, true, false},
		{"^(TestA|TestB)$/^(rust|node)$", []string{"TestB"}, true, true},
		// -skip leaves a parent run where the pattern names its subtests.
		{"^(TestA|TestB)$/^(rust|node)$", []string{"TestB"}, false, false},
		{"^(TestA|TestB)$/^(rust|node)$", []string{"TestB", "node"}, false, true},
		{"TestCatchesBroken|TestLabsRejectBadInput", []string{"TestCatchesBrokenFunctions"}, false, true},
		{"[a/b]", []string{"a"}, true, true},
	} {
		assert.Equal(t, tc.want, matches(tc.pattern, tc.names, tc.partial), "matches(%q, %q, partial %t)", tc.pattern, tc.names, tc.partial)
	}
}

// TestAPlanWithNoRoomForItsClaimIsInconclusive runs a claim test in a test binary of its own
// whose -timeout leaves less than the fewest cold starts that decide it after the local clean-up
// margin: it must start none, write a valid result (results.Save checks it against the schema),
// inconclusive, that says why, and skip saying what to do. T1 on the Go function stands for the
// claims about a CPU share (family coldstart.phases: no trial), T8 for its own family (a trial
// for each memory size planned, each saying it was not started).
func TestAPlanWithNoRoomForItsClaimIsInconclusive(t *testing.T) {
	beginFixed(t)
	if !localPlatform {
		t.Skip("the time plan cuts the local platform's claim tests; with -tags lambda they run on the live one")
	}
	// Both run under a memory size's quota: without a cgroup they skip for that before their plan.
	if _, err := cgroup.Available(); err != nil {
		t.Skipf("T1 and T8, the claims whose cut plan this checks, need a CPU quota: %v", err)
	}
	// The child reads the same settings from the same environment.
	coldStarts := claimtest.Settings(t).ColdStarts
	t1, t8 := testName(TestFirstCallDominatedByTLS), testName(TestThrottleSlices)
	for _, tc := range []struct {
		run, test, result string
		planned, trials   int
	}{
		{"^" + t1 + "$/^go$", t1, t1 + "/go", t1ColdStarts * coldStarts, 0},
		{"^" + t8 + "$", t8, t8, len(throttleSizes), len(throttleSizes)},
	} {
		t.Run(tc.test, func(t *testing.T) {
			t.Parallel() // each a binary of its own that starts no cold start: nothing to measure
			res, out := runWithNoRoom(t, tc.run, tc.result)
			assert.Contains(t, out, "--- SKIP: "+tc.test, "its output:\n%s", out)
			assert.Contains(t, out, "run with a longer -timeout", "the skip must say what to do")
			assert.Contains(t, out, "inconclusive on a plan cut", "the skip must say the verdict")
			assert.Equal(t, "inconclusive", res.Verdict.Outcome, "verdict (%s)", res.Verdict.Reason)
			if assert.NotNil(t, res.Parameters.Cut, "parameters.cut") {
				assert.Equal(t, tc.planned, res.Parameters.Cut.Planned, "parameters.cut.planned")
				assert.Contains(t, res.Parameters.Cut.Why, fmt.Sprintf("none of %d", tc.planned), "parameters.cut.why")
				assert.Contains(t, res.Parameters.Cut.Why, "started: ", "parameters.cut.why")
			}
			assert.NotNil(t, res.Trials, "trials = null; want a list")
			if assert.Len(t, res.Trials, tc.trials, "trials of a run that started none") {
				for _, tr := range res.Trials {
					assert.Contains(t, string(tr), "not started", "a trial of a run that started none")
				}
			}
		})
	}
}

// childRunResult is what the tests that run this binary as a child read of its result.
type childRunResult struct {
	Mode            string
	ModelPrediction *results.Prediction
	Verdict         struct{ Outcome, Reason string }
	Parameters      struct {
		Cut *family.Cut
	}
	Trials []json.RawMessage
}

// runWithNoRoom runs this test binary on the claim test run selects, with a -timeout as long as
// the local clean-up's margin, so that no time is left for any cold start at any speed, and
// returns the result it wrote (by its name result) and its output.
func runWithNoRoom(t *testing.T, run, result string) (childRunResult, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", run, "-test.count=1", "-test.v", "-test.timeout="+localStopMargin.String())
	cmd.Env = append(os.Environ(), results.DirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the run with no room for its plan; want it to pass, skipping; its output:\n%s", out)
	data, err := os.ReadFile(filepath.Join(dir, "coldstart", results.FileName(result)))
	require.NoError(t, err, "the result; the run's output:\n%s", out)
	var res childRunResult
	require.NoError(t, json.Unmarshal(data, &res))
	return res, string(out)
}
