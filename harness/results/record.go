package results

import (
	"path/filepath"
	"testing"

	"github.com/serverless-claims/claims/harness/repo"
)

// Record writes an experiment's result under Dir/group (results/eventloop, results/threadpool)
// as FileName(res.Experiment), and logs the verdict and where it went. A result that cannot be
// written fails the test: an experiment whose evidence is lost has not run.
func Record(t testing.TB, group string, res Result) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	path, err := Write(filepath.Join(Dir(root), group), FileName(res.Experiment), res)
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	t.Logf("%v %s: %s -> %s", res.Claims, res.Verdict.Outcome, res.Verdict.Reason, path)
	return path
}
