package family

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
)

// schemaDir is results/schema, from this package's folder.
const schemaDir = "../schema"

// schemas are the schema files by name, as JSON values.
type schemas map[string]map[string]any

func loadSchemas(t *testing.T) schemas {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no schema files in %s", schemaDir)
	s := schemas{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc), "%s", f)
		s[filepath.Base(f)] = doc
	}
	return s
}

// node is a place in a schema file: the file, its JSON pointer, and the value there.
type node struct {
	file, at string
	v        map[string]any
}

func (n node) String() string { return n.file + "#" + n.at }

// ref follows a $ref: "#/$defs/x" in the same file, "other.json" or "other.json#/$defs/x".
func (s schemas) ref(from node, ref string) (node, error) {
	file, ptr, _ := strings.Cut(ref, "#")
	if file == "" {
		file = from.file
	}
	doc, ok := s[file]
	if !ok {
		return node{}, fmt.Errorf("%s: $ref %q: no schema file %s", from, ref, file)
	}
	var v any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if part == "" {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return node{}, fmt.Errorf("%s: $ref %q: %s is not an object", from, ref, part)
		}
		if v, ok = m[part]; !ok {
			return node{}, fmt.Errorf("%s: $ref %q: no %s", from, ref, part)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return node{}, fmt.Errorf("%s: $ref %q is not a schema object", from, ref)
	}
	return node{file: file, at: ptr, v: m}, nil
}

// view is what a schema says of a value, with $ref, allOf and oneOf merged: the types it allows,
// the properties of an object (a property of one oneOf branch only is never required), the
// schema of a map's values, an array's items, and an enum.
type view struct {
	at         []node
	types      map[string]bool
	props      map[string][]node
	required   map[string]bool
	additional []node
	items      []node
	enum       []string
	hasEnum    bool
}

func (s schemas) view(n node) (view, error) {
	v := view{types: map[string]bool{}, props: map[string][]node{}, required: map[string]bool{}}
	return v, s.merge(&v, n, true)
}

// merge adds n to v; binding says n's required properties are required of the value (false in
// a oneOf branch).
func (s schemas) merge(v *view, n node, binding bool) error {
	v.at = append(v.at, n)
	if r, ok := n.v["$ref"].(string); ok {
		m, err := s.ref(n, r)
		if err != nil {
			return err
		}
		if err := s.merge(v, m, binding); err != nil {
			return err
		}
	}
	switch t := n.v["type"].(type) {
	case string:
		v.types[t] = true
	case []any:
		for _, e := range t {
			v.types[e.(string)] = true
		}
	}
	if c, ok := n.v["const"]; ok {
		v.types[jsonType(c)] = true
	}
	if e, ok := n.v["enum"].([]any); ok {
		v.hasEnum = true
		for _, x := range e {
			v.types[jsonType(x)] = true
			if str, ok := x.(string); ok {
				v.enum = append(v.enum, str)
			}
		}
	}
	if p, ok := n.v["properties"].(map[string]any); ok {
		for k, pv := range p {
			m, ok := pv.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: property %s is not a schema object", n, k)
			}
			v.props[k] = append(v.props[k], node{file: n.file, at: n.at + "/properties/" + k, v: m})
		}
	}
	if r, ok := n.v["required"].([]any); ok && binding {
		for _, k := range r {
			v.required[k.(string)] = true
		}
	}
	if a, ok := n.v["additionalProperties"].(map[string]any); ok {
		v.additional = append(v.additional, node{file: n.file, at: n.at + "/additionalProperties", v: a})
	}
	if it, ok := n.v["items"].(map[string]any); ok {
		v.items = append(v.items, node{file: n.file, at: n.at + "/items", v: it})
	}
	for _, key := range []string{"allOf", "oneOf", "anyOf"} {
		list, _ := n.v[key].([]any)
		for i, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: %s[%d] is not a schema object", n, key, i)
			}
			if err := s.merge(v, node{file: n.file, at: fmt.Sprintf("%s/%s/%d", n.at, key, i), v: m}, binding && key == "allOf"); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonType is the JSON Schema type of a decoded JSON value.
func jsonType(x any) string {
	switch v := x.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case nil:
		return "null"
	case []any:
		return "array"
	}
	return "object"
}

// goField is a struct field as encoding/json writes it.
type goField struct {
	name      string
	t         reflect.Type
	omitempty bool
	goName    string
}

// jsonFields are t's fields as encoding/json sees them: embedded structs without a tag
// flattened, "-" left out. (A shallower field hides a deeper one of the same name.)
func jsonFields(t reflect.Type) []goField {
	var out []goField
	seen := map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		var deeper []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					deeper = append(deeper, f)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, goField{name: name, t: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), goName: prefix + f.Name})
			}
		}
		for _, f := range deeper {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			walk(ft, prefix+f.Name+".")
		}
	}
	walk(t, t.Name()+".")
	return out
}

// enumer is a Go type that lists its values, which the schema's enum must be.
type enumer interface{ Enum() []string }

// compare checks the Go type t against the schema at n and returns each difference, naming the
// Go field and the schema's place.
func (s schemas) compare(t reflect.Type, n node, path string, nullable bool) []string {
	v, err := s.view(n)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	var errs []string
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s (schema %s): %s", path, n, fmt.Sprintf(format, args...)))
	}
	if t.Kind() == reflect.Pointer {
		if nullable && len(v.types) > 0 && !v.types["null"] {
			bad("Go %v is written as null when nil (no omitempty); the schema's type %v has no null", t, keys(v.types))
		}
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return errs // any: the schema says what it is
	}
	if e, ok := reflect.Zero(t).Interface().(enumer); ok {
		want := slices.Sorted(slices.Values(e.Enum()))
		got := slices.Sorted(slices.Values(v.enum))
		if !slices.Equal(want, got) {
			bad("enum = %q; want %q (%v.Enum)", got, want, t)
		}
	}
	want := goJSONType(t)
	if len(v.types) > 0 && !v.types[want] {
		bad("type = %v; want %s (Go %v)", keys(v.types), want, t)
	}
	if want == "string" && t.Kind() != reflect.String {
		return errs // a TextMarshaler: its text is its own
	}
	switch t.Kind() {
	case reflect.Struct:
		fields := jsonFields(t)
		names := map[string]bool{}
		for _, f := range fields {
			names[f.name] = true
			props, ok := v.props[f.name]
			if !ok {
				bad("field %s (%s, Go %s) is not among the schema's properties %v", f.name, f.goName, f.t, keys(v.props))
				continue
			}
			if !f.omitempty && !v.required[f.name] {
				bad("field %s (%s) is always written (no omitempty) but the schema does not require it", f.name, f.goName)
			}
			if f.omitempty && v.required[f.name] {
				bad("field %s (%s) is omitempty but the schema requires it", f.name, f.goName)
			}
			for _, p := range props {
				errs = append(errs, s.compare(f.t, p, path+"."+f.name, !f.omitempty)...)
			}
		}
		for _, k := range keys(v.props) {
			if !names[k] {
				bad("schema property %s is no field of Go %v", k, t)
			}
		}
		for _, k := range keys(v.required) {
			if !names[k] && v.props[k] == nil {
				bad("schema requires %s, which is no field of Go %v", k, t)
			}
		}
	case reflect.Map:
		if t.Elem().Kind() != reflect.Interface {
			for _, a := range v.additional {
				errs = append(errs, s.compare(t.Elem(), a, path+"[key]", true)...)
			}
		}
	case reflect.Slice, reflect.Array:
		for _, it := range v.items {
			errs = append(errs, s.compare(t.Elem(), it, path+"[]", true)...)
		}
	}
	return errs
}

// goJSONType is the JSON Schema type encoding/json writes t as: a string for a TextMarshaler
// (time.Time).
func goJSONType(t reflect.Type) string {
	if t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// familyNode is the schema of a family: the definition in its group's file (eventloop.json for
// eventloop.routing) whose family is that name, as a oneOf branch or an if/then.
func (s schemas) familyNode(name string) (node, error) {
	group, _, _ := strings.Cut(name, ".")
	file := group + ".json"
	doc, ok := s[file]
	if !ok {
		return node{}, fmt.Errorf("no schema file %s for family %s", file, name)
	}
	top := node{file: file, v: doc}
	names := func(m map[string]any) []string {
		p, _ := m["properties"].(map[string]any)
		f, _ := p["family"].(map[string]any)
		if c, ok := f["const"].(string); ok {
			return []string{c}
		}
		return nil
	}
	for _, e := range append(anyList(doc["oneOf"]), anyList(doc["anyOf"])...) {
		m := e.(map[string]any)
		n := node{file: file, v: m}
		if r, ok := m["$ref"].(string); ok {
			var err error
			if n, err = s.ref(top, r); err != nil {
				return node{}, err
			}
		}
		if slices.Contains(names(n.v), name) {
			return n, nil
		}
	}
	for _, e := range anyList(doc["allOf"]) {
		m := e.(map[string]any)
		cond, _ := m["if"].(map[string]any)
		then, _ := m["then"].(map[string]any)
		if cond == nil || then == nil || !slices.Contains(names(cond), name) {
			continue
		}
		n := node{file: file, at: "/allOf/then", v: then}
		if r, ok := then["$ref"].(string); ok {
			return s.ref(top, r)
		}
		return n, nil
	}
	return node{}, fmt.Errorf("%s names no family %s (a oneOf branch whose family is const %q, or an if/then on it)", file, name, name)
}

func anyList(v any) []any { l, _ := v.([]any); return l }

// partNode is the schema of one part of a family's results: the family's definition's, else the
// group file's own (coldstart.json's target).
func (s schemas) partNode(name, part string) (node, error) {
	n, err := s.familyNode(name)
	if err != nil {
		return node{}, err
	}
	for _, where := range []node{n, {file: n.file, v: s[n.file]}} {
		v, err := s.view(where)
		if err != nil {
			return node{}, err
		}
		if ps := v.props[part]; len(ps) > 0 {
			return ps[0], nil
		}
	}
	return node{}, fmt.Errorf("the schema of family %s (%s) has no %s", name, n, part)
}

// TestSchemaMatchesTypes checks every family's Go types against results/schema field by field:
// each field a property, each property a field, required exactly where the field is always
// written, the same JSON type, a null allowed where a nil pointer is written, and the enum of a
// type that lists its values. A field added to a family's type fails here until the schema has
// it.
func TestSchemaMatchesTypes(t *testing.T) {
	s := loadSchemas(t)
	for _, name := range keys(Families) {
		p := Families[name]
		for _, part := range []struct {
			key string
			t   reflect.Type
		}{{"parameters", p.Parameters}, {"target", p.Target}, {"summary", p.Summary}, {"trials", p.Trials}} {
			if part.t == nil {
				continue
			}
			t.Run(name+"/"+part.key, func(t *testing.T) {
				n, err := s.partNode(name, part.key)
				require.NoError(t, err)
				for _, e := range s.compare(part.t, n, name+" "+part.key, false) {
					assert.Fail(t, "result schema and Go type differ", "%s", e)
				}
			})
		}
	}
}

// TestEnvelopeMatchesSchema checks the envelope every result shares (results.Result) against
// results/schema/claims-result-v2.json the same way; its typed parts are the families'.
func TestEnvelopeMatchesSchema(t *testing.T) {
	s := loadSchemas(t)
	top := node{file: filepath.Base(results.SchemaFile), v: s[filepath.Base(results.SchemaFile)]}
	require.NotNil(t, top.v, "no %s", results.SchemaFile)
	for _, e := range s.compare(reflect.TypeFor[results.Result](), top, "results.Result", false) {
		assert.Fail(t, "result envelope schema and Go type differ", "%s", e)
	}
}

// TestEveryFamilyHasASchema checks that the schema names no family without Go types, and that
// each family's part types are registered.
func TestEveryFamilyHasASchema(t *testing.T) {
	s := loadSchemas(t)
	for _, name := range keys(Families) {
		_, err := s.familyNode(name)
		assert.NoError(t, err, "family %s", name)
	}
	for _, file := range keys(s) {
		if file == filepath.Base(results.SchemaFile) {
			continue
		}
		group := strings.TrimSuffix(file, ".json")
		var named []string
		for _, e := range append(anyList(s[file]["oneOf"]), anyList(s[file]["allOf"])...) {
			m := e.(map[string]any)
			if r, ok := m["$ref"].(string); ok {
				n, err := s.ref(node{file: file, v: s[file]}, r)
				require.NoError(t, err)
				m = n.v
			}
			if cond, ok := m["if"].(map[string]any); ok {
				m = cond
			}
			p, _ := m["properties"].(map[string]any)
			f, _ := p["family"].(map[string]any)
			if c, ok := f["const"].(string); ok {
				named = append(named, c)
			}
		}
		for _, name := range named {
			_, ok := Families[name]
			assert.True(t, ok, "%s describes family %s; want its types in results/family (family.Families)", file, name)
		}
		assert.NotEmpty(t, named, "%s names no family of group %s", file, group)
	}
}
