package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaFile is the JSON Schema of this version, relative to the repository root, generated from
// the result types (go generate ./results/schema).
const SchemaFile = "results/schema/claims-result-v2.json"

// Validator checks a result before it is written and after it is read: against the JSON Schema,
// for figures of time whose names carry no unit, and for published figures that are not the
// catalog's.
type Validator struct{ schema *jsonschema.Schema }

// NewValidator compiles the schema under the repository root.
func NewValidator(root string) (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(filepath.Join(root, filepath.FromSlash(SchemaFile)))
	if err != nil {
		return nil, fmt.Errorf("result schema: %w", err)
	}
	return &Validator{schema: s}, nil
}

// Validate checks one result file's bytes.
func (v *Validator) Validate(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := v.schema.Validate(doc); err != nil {
		return fmt.Errorf("against %s: %w", SchemaFile, err)
	}
	var r struct {
		Published []Published `json:"published"`
		Claims    []string    `json:"claims"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	if err := publishedAsCatalogued(r.Claims, r.Published); err != nil {
		return err
	}
	m := doc.(map[string]any)
	for _, part := range []string{"parameters", "target", "summary", "trials"} {
		if err := unitsNamed(part, m[part]); err != nil {
			return err
		}
	}
	return nil
}

// publishedAsCatalogued says whether published quotes the catalog's figure for each of claims,
// and nothing else.
func publishedAsCatalogued(claims []string, published []Published) error {
	want, err := PublishedFor(claims)
	if err != nil {
		return err
	}
	if !slices.Equal(want, published) {
		return fmt.Errorf("published = %+v; want the catalog's %+v", published, want)
	}
	return nil
}

// timeName is a field name that says it holds a time but not in what unit: "offset", "latency",
// "initDuration". A number under such a name is ambiguous (the first format wrote nanoseconds
// under "offset"), so a figure of time names its unit: offsetMs, latencyMs.
var timeName = regexp.MustCompile(`(?i)(offset|duration|latency|time|delay|wait|period|timeout|elapsed|interval)$`)

// unitsNamed walks v and refuses a number whose field name says time without a unit.
func unitsNamed(path string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, isNumber := e.(json.Number); isNumber && timeName.MatchString(k) {
				return fmt.Errorf("%s.%s = %v: a figure of time names its unit (%sMs, %sUs)", path, k, e, k, k)
			}
			if err := unitsNamed(path+"."+k, e); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := unitsNamed(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	}
	return nil
}
