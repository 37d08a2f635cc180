package claimtest

import (
	"testing"

	"github.com/serverless-claims/claims/harness/claim/results"
)

// Record writes an experiment's result (results.Save) and logs the verdict and where it went, as
// a results.Event, the line cmd/progress reads.
// A result that cannot be written, does not validate, or holds a secret fails the test, and
// nothing is written: an experiment whose evidence is lost or malformed has not run.
func Record(t testing.TB, res results.Result) string {
	t.Helper()
	path, err := results.Save(res)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Logf("%s", results.Event{Claims: res.Claims, Outcome: res.Verdict.Outcome, Reason: res.Verdict.Reason, Path: path}.Format())
	return path
}
