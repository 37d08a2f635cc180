package claimtest

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// Main is an experiment package's TestMain body: it reads and checks the settings and runs the
// tests (each reads them again with Settings and hands them down), or, when a setting makes no sense (by settings.FromEnv, or by one of the package's own
// checks), says so naming the variable and returns exit status 2 before any test (and any
// process) starts. what names the package in that message.
//
// After a run whose tests passed it checks the tests themselves, the way os/exec's TestMain
// reports a helper command no test used. Every test that checked a claim must be a claim test
// that catalog.Tests lists with that claim, so that a new claim test cannot miss the matrix and
// the Makefile's selections, which are made from that list or checked against it. And when the
// run was a full one, every claim it checked must have a broken case (BrokenCases). Either
// failure fails the run, naming the test or the claim. A run is full when -run selects nothing
// and its build declares broken cases: the cases are declared at package level, so a run that
// leaves the tests of the tests out (-skip TestCatchesBroken) is checked too, while a run of a
// few tests (-run), or of a build with no cases (-tags lambda in experiments/coldstart, whose
// cases break the local model), is not.
func Main(m *testing.M, what string, checks ...func(settings.Settings) error) int {
	// The checks read the testing flags (-run selects what prebuild builds and what the live
	// estimate counts), which m.Run would parse only after them.
	flag.Parse()
	s, err := settings.FromEnv()
	if err == nil {
		for _, check := range checks {
			if err = check(s); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		return 2
	}
	code := m.Run()
	if code == 0 && !thisRun.end(os.Stderr, flagValue("test.run") == "") {
		code = 1
	}
	return code
}

// Settings are the run's settings, for a test to pass on as a value: Main checked them before
// any test ran, so an error here is a setting a test changed (t.Setenv) into one that makes no
// sense.
func Settings(t testing.TB) settings.Settings {
	t.Helper()
	s, err := settings.FromEnv()
	if err != nil {
		t.Fatalf("the run's settings = %v; want the ones Main checked", err)
	}
	return s
}

// flagValue is the value of the testing flag name ("test.run"), "" where there is none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// run is what the tests of one test binary checked and broke on purpose.
type run struct {
	mu     sync.Mutex
	claims map[string]checkedClaim // the claims checked, by Claim.key
	tests  map[claimTest][]string  // the IDs each claim test checked
	broken map[string]bool         // the claims a broken case was declared for, by Claim.key
}

// claimTest is a top-level test of an experiment package, as catalog.Tests names it.
type claimTest struct{ pkg, name string }

// checkedClaim is a claim a test checked, with the first test that did.
type checkedClaim struct {
	claim Claim
	test  string
}

// thisRun is this test binary's run.
var thisRun = newRun()

func newRun() *run {
	return &run{claims: map[string]checkedClaim{}, tests: map[claimTest][]string{}, broken: map[string]bool{}}
}

// checked notes that test (t.Name()) checked c against a target of mode. Its package is its
// family's first word, as its results folder is (results.Group). A claim checked on AWS is not
// asked for a broken case: what breaks its test on purpose runs against the stand-ins.
func (r *run) checked(test string, c Claim, mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	top, _, _ := strings.Cut(test, "/")
	ct := claimTest{pkg: results.Group(c.Family), name: top}
	for _, id := range c.IDs {
		if !slices.Contains(r.tests[ct], id) {
			r.tests[ct] = append(r.tests[ct], id)
		}
	}
	if mode == results.ModeLive {
		return
	}
	if _, ok := r.claims[c.key()]; !ok {
		r.claims[c.key()] = checkedClaim{claim: c, test: test}
	}
}

// declared notes a broken case of c.
func (r *run) declared(c Claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.broken[c.key()] = true
}

// isDeclared reports whether a broken case of c was declared.
func (r *run) isDeclared(c Claim) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broken[c.key()]
}

// end writes to w each test that checked a claim catalog.Tests does not list it with, and each
// claim checked in a full run that has no broken case, and reports whether there was none. full
// says whether -run selected no test; a run in which no broken case was declared is not a full
// one either.
func (r *run) end(w io.Writer, full bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var missing []string
	for ct, ids := range r.tests {
		listed, ok := catalog.LookupTest(ct.pkg, ct.name)
		var unlisted []string
		for _, id := range ids {
			if !ok || !slices.Contains(listed.Claims, id) {
				unlisted = append(unlisted, id)
			}
		}
		if len(unlisted) > 0 {
			missing = append(missing, fmt.Sprintf("claimtest: claims of %s (experiments/%s) in catalog.Tests = without %s, which it checked; want it listed deciding them (catalog/tests.go), from which the runtime matrix and the Makefile's selections are made or checked",
				ct.name, ct.pkg, strings.Join(unlisted, " ")))
		}
	}
	if full && len(r.broken) > 0 {
		missing = append(missing, r.withoutBrokenCase()...)
	}
	slices.Sort(missing)
	for _, m := range missing {
		fmt.Fprintln(w, m)
	}
	return len(missing) == 0
}

// withoutBrokenCase says of each claim checked that no broken case was declared for.
func (r *run) withoutBrokenCase() []string {
	var missing []string
	for key, c := range r.claims {
		if !r.broken[key] {
			missing = append(missing, fmt.Sprintf("claimtest: broken cases of %s (family %s, checked by %s) = none; want one among the package's broken cases (claimtest.BrokenCases), to show that its test can fail",
				strings.Join(c.claim.IDs, " "), c.claim.Family, c.test))
		}
	}
	return missing
}
