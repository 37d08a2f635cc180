package results

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

var validator = sync.OnceValues(func() (*Validator, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	return NewValidator(root)
})

// Record writes an experiment's result under Dir/group (results/eventloop, results/threadpool),
// or Dir/sensitivity/group when its target was broken on purpose, as FileName(res.Experiment),
// and logs the verdict and where it went. The result is checked against the schema first. A
// result that cannot be written, does not validate, or holds a secret (ScanSecrets) fails the
// test, and nothing is written: an experiment whose evidence is lost or malformed has not run.
func Record(t testing.TB, group string, res Result) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	res.Schema = Schema
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	if found := ScanSecrets(data); len(found) > 0 {
		t.Fatalf("result of %s holds what looks like a credential, account id or signed URL, not written: %s",
			res.Experiment, strings.Join(found, "; "))
	}
	v, err := validator()
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	if err := v.Validate(data); err != nil {
		t.Fatalf("result of %s does not validate, not written: %v", res.Experiment, err)
	}
	dir := filepath.Join(Dir(root), group)
	if res.Mode != ModeLocal {
		// Live results sit beside the local ones, not over them, so both can be compared.
		dir = filepath.Join(Dir(root), res.Mode, group)
	}
	if res.Broken != "" {
		dir = filepath.Join(Dir(root), SensitivityDir, group)
	}
	path, err := Write(dir, FileName(res.Experiment), res)
	if err != nil {
		t.Fatalf("writing the result: %v", err)
	}
	t.Logf("%s", Event{Claims: res.Claims, Outcome: res.Verdict.Outcome, Reason: res.Verdict.Reason, Path: path}.Format())
	return path
}
