package protocol_test

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/workload/probe"
	"github.com/serverless-claims/claims/harness/workload/protocol"
)

// docPath is the protocol's document, relative to the repository root. The tests read its tables,
// so that the document, the message types and the probes cannot drift apart unnoticed.
const docPath = "docs/protocol.md"

// spec is what the document's tables say.
type spec struct {
	ready   []field            // READY fields every probe must send
	extras  map[string][]field // the built-in probes' extra READY fields, by probe
	answers []answerField
	modes   map[string][]mode // the modes each built-in probe serves, by probe
	bad     []badInput
	vars    []string // the variables that put another program under the tests
}

// field is one row of a field table.
type field struct{ name, typ string }

// answerField is a row of the answer table: the field, and the kinds of answer that carry it.
type answerField struct {
	field
	in []string // ping, cpu, error
}

// mode is a row of the mode table.
type mode struct {
	name    string
	atLeast bool // the handler runs at least N ms by the clock, else about N ms (calibrated)
}

// badInput is a row of the error table.
type badInput struct {
	method, path string
	status       string // an exact status, or 4xx
	names        string // what the error must name
}

// answerKinds are the kinds of answer the answer table's "in answers to" column names.
var answerKinds = map[string]string{"/ping": "ping", "/cpu": "cpu", "errors": "error"}

// types are the field types the document may use.
var types = []string{"string", "string or null", "integer", "number"}

// readSpec reads the document's tables; a table that is missing or malformed fails the test.
func readSpec(t *testing.T) spec {
	t.Helper()
	path, err := repo.Path(docPath)
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(raw)

	s := spec{extras: map[string][]field{}, modes: map[string][]mode{}}
	for _, r := range table(t, doc, "READY field", 3) {
		s.ready = append(s.ready, field{r[0], r[1]})
	}
	for _, r := range table(t, doc, "extra READY field", 4) {
		s.extras[r[1]] = append(s.extras[r[1]], field{r[0], r[2]})
	}
	for _, r := range table(t, doc, "answer field", 4) {
		f := answerField{field: field{r[0], r[1]}}
		for _, in := range strings.Split(r[2], ",") {
			kind, ok := answerKinds[strings.Trim(strings.TrimSpace(in), "`")]
			require.True(t, ok, "%s: answer field %s is in answers to %q; want a list of %v", docPath, r[0], r[2], slices.Sorted(maps.Keys(answerKinds)))
			f.in = append(f.in, kind)
		}
		s.answers = append(s.answers, f)
	}
	for _, r := range table(t, doc, "probe", 4) {
		require.Contains(t, []string{"at least N ms", "about N ms"}, r[2], "%s: handler time of %s mode %s", docPath, r[0], r[1])
		s.modes[r[0]] = append(s.modes[r[0]], mode{name: r[1], atLeast: r[2] == "at least N ms"})
	}
	for _, r := range table(t, doc, "request", 3) {
		method, path, ok := strings.Cut(r[0], " ")
		require.True(t, ok, "%s: bad request %q; want METHOD /path", docPath, r[0])
		s.bad = append(s.bad, badInput{method: method, path: path, status: r[1], names: r[2]})
	}
	for _, r := range table(t, doc, "variable", 2) {
		name, _, _ := strings.Cut(r[0], "=")
		s.vars = append(s.vars, name)
	}
	for _, f := range append(slices.Clone(s.ready), slices.Concat(slices.Collect(maps.Values(s.extras))...)...) {
		require.Contains(t, types, f.typ, "%s: type of READY field %s", docPath, f.name)
	}
	for _, f := range s.answers {
		require.Contains(t, types, f.typ, "%s: type of answer field %s", docPath, f.name)
	}
	return s
}

// table returns the rows of the Markdown table whose header's first cell is first, each with
// width cells, backquotes around a whole cell taken off.
func table(t *testing.T, doc, first string, width int) [][]string {
	t.Helper()
	var rows [][]string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			if in {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i, c := range cells {
			c = strings.TrimSpace(c)
			if strings.Count(c, "`") == 2 && strings.HasPrefix(c, "`") && strings.HasSuffix(c, "`") {
				c = strings.Trim(c, "`")
			}
			cells[i] = c
		}
		switch {
		case !in && cells[0] == first:
			in = true
			require.Len(t, cells, width, "%s: header of the %q table", docPath, first)
		case in && strings.Trim(cells[0], "-:") == "":
			// the separator row
		case in:
			require.Len(t, cells, width, "%s: row %q of the %q table", docPath, line, first)
			rows = append(rows, cells)
		}
	}
	require.NotEmpty(t, rows, "%s: no table headed %q", docPath, first)
	return rows
}

// names are the fields' names, sorted.
func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	slices.Sort(out)
	return out
}

// answerFields are the fields the document says an answer of kind carries, sorted.
func (s spec) answerFields(kind string) []string {
	var out []string
	for _, f := range s.answers {
		if slices.Contains(f.in, kind) {
			out = append(out, f.name)
		}
	}
	slices.Sort(out)
	return out
}

// answerType is the type the document gives an answer field.
func (s spec) answerType(name string) string {
	for _, f := range s.answers {
		if f.name == name {
			return f.typ
		}
	}
	return ""
}

// jsonNames are the JSON names of v's fields, sorted; fields tagged "-" are left out.
func jsonNames(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// hasType says whether a decoded JSON value is of a type the document names. Numbers may come as
// float64 or json.Number.
func hasType(v any, typ string) bool {
	switch typ {
	case "string or null":
		if v == nil {
			return true
		}
		fallthrough
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		switch n := v.(type) {
		case json.Number:
			_, err := n.Int64()
			return err == nil
		case float64:
			return n == math.Trunc(n)
		}
	case "number":
		switch v.(type) {
		case json.Number, float64:
			return true
		}
	}
	return false
}

// TestDocumentMatchesMessageTypes checks the document's field tables against the Go types the
// harness decodes: a field in one and not the other fails, and ParseReady requires exactly the
// READY fields the document lists.
func TestDocumentMatchesMessageTypes(t *testing.T) {
	s := readSpec(t)

	docReady, goReady := names(s.ready), jsonNames(protocol.Ready{})
	assert.Equal(t, goReady, docReady, "READY fields in %s = %v; want protocol.Ready's JSON fields %v", docPath, docReady, goReady)
	var answerFields []field
	for _, f := range s.answers {
		answerFields = append(answerFields, f.field)
	}
	docAnswer, goAnswer := names(answerFields), jsonNames(protocol.Answer{})
	assert.Equal(t, goAnswer, docAnswer, "answer fields in %s = %v; want protocol.Answer's JSON fields %v", docPath, docAnswer, goAnswer)

	// A READY line with every documented field parses, and one without any of them does not.
	example := map[string]any{}
	for _, f := range s.ready {
		example[f.name] = map[string]any{"string": "x", "string or null": "x", "integer": 1, "number": 1.5}[f.typ]
	}
	line, err := json.Marshal(example)
	require.NoError(t, err)
	_, err = protocol.ParseReady(protocol.ReadyPrefix + string(line))
	assert.NoError(t, err, "ParseReady(%s) with the fields %s lists", line, docPath)
	for _, f := range s.ready {
		without := maps.Clone(example)
		delete(without, f.name)
		line, err := json.Marshal(without)
		require.NoError(t, err)
		_, err = protocol.ParseReady(protocol.ReadyPrefix + string(line))
		assert.Error(t, err, "ParseReady(%s) without %s = no error; want one (%s requires it)", line, f.name, docPath)
	}

	assert.ElementsMatch(t, []string{probe.NodeProbeEnv, probe.GoProbeEnv, "CLAIMS_NODE"}, s.vars, "variables in %s = %v; want harness/workload/probe's and harness/sys/runtimes'", docPath, s.vars)
	assert.ElementsMatch(t, []string{"node", "go"}, slices.Collect(maps.Keys(s.modes)), "probes in %s's mode table", docPath)
	assert.ElementsMatch(t, []string{"node", "go"}, slices.Collect(maps.Keys(s.extras)), "probes in %s's extra READY table", docPath)
}
