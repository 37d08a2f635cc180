package results

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

var validator = sync.OnceValues(func() (*Validator, error) {
	root, err := repo.Root()
	if err != nil {
		return nil, err
	}
	return NewValidator(root)
})

// Group is the results folder of a family: its first word (eventloop for eventloop.routing), which
// is also the experiment package that writes it.
func Group(family string) string {
	group, _, _ := strings.Cut(family, ".")
	return group
}

// Save writes an experiment's result under Dir/<its family's Group> (results/eventloop,
// results/threadpool), beside it under Dir/<mode> when it is not local, or under
// Dir/sensitivity/<group> when its target was broken on purpose, as FileName(res.Experiment),
// and returns where it went. The result is checked against the schema first. A result that
// cannot be written, does not validate, or holds a secret (ScanSecrets) is an error, and nothing
// is written: an experiment whose evidence is lost or malformed has not run.
func Save(res Result) (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", fmt.Errorf("writing the result: %v", err)
	}
	res.Schema = Schema
	data, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("writing the result: %v", err)
	}
	if found := ScanSecrets(data); len(found) > 0 {
		return "", fmt.Errorf("result of %s holds what looks like a credential, account id or signed URL, not written: %s",
			res.Experiment, strings.Join(found, "; "))
	}
	v, err := validator()
	if err != nil {
		return "", fmt.Errorf("writing the result: %v", err)
	}
	if err := v.Validate(data); err != nil {
		return "", fmt.Errorf("result of %s does not validate, not written: %v", res.Experiment, err)
	}
	group := Group(res.Family)
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
		return "", fmt.Errorf("writing the result: %v", err)
	}
	return path, nil
}
