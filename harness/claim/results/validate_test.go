package results

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// validResult is a result as an event-loop claim test wrote it (testdata/eventloop-result.json).
func validResult(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/eventloop-result.json")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func newValidator(t *testing.T) *Validator {
	t.Helper()
	root, err := repo.Root()
	require.NoError(t, err)
	v, err := NewValidator(root)
	require.NoError(t, err, "compiling %s", SchemaFile)
	return v
}

func encode(t *testing.T, m map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	require.NoError(t, err)
	return data
}

func TestSchemaAcceptsAResultAsWritten(t *testing.T) {
	assert.NoError(t, newValidator(t).Validate(encode(t, validResult(t))))
}

// TestSchemaRefusesMalformedResults breaks one thing at a time in a valid result; each must be
// refused, naming what is wrong.
func TestSchemaRefusesMalformedResults(t *testing.T) {
	v := newValidator(t)
	for name, c := range map[string]struct {
		breakIt func(m map[string]any)
		says    string
	}{
		"no headline":        {func(m map[string]any) { delete(m, "headline") }, "headline"},
		"the old schema":     {func(m map[string]any) { m["schema"] = "claims-result/v1" }, "schema"},
		"an unknown mode":    {func(m map[string]any) { m["mode"] = "lambda" }, "mode"},
		"a field not in it":  {func(m map[string]any) { m["note"] = "x" }, "note"},
		"an unregistered ID": {func(m map[string]any) { m["claims"] = []string{"W99"} }, "W99"},
		"a figure not the catalog's": {func(m map[string]any) {
			m["published"].([]any)[0].(map[string]any)["figure"] = "p50 1 ms"
		}, "catalog"},
		"a step's offset without its unit": {func(m map[string]any) {
			step := m["parameters"].(map[string]any)["steps"].([]any)[0].(map[string]any)
			step["offset"] = step["offsetMs"]
			delete(step, "offsetMs")
		}, "offset"},
		"a time without its unit in an open object": {func(m map[string]any) {
			m["target"].(map[string]any)["env"].(map[string]any)["latency"] = 3
		}, "latency"},
		"a verdict outside the three": {func(m map[string]any) {
			m["verdict"].(map[string]any)["outcome"] = "ok"
		}, "outcome"},
	} {
		t.Run(name, func(t *testing.T) {
			m := validResult(t)
			c.breakIt(m)
			err := v.Validate(encode(t, m))
			if assert.Error(t, err, "Validate = nil; want %s refused", name) {
				assert.Contains(t, err.Error(), c.says)
			}
		})
	}
}
