// Package schema generates the JSON Schema of a result, claims-result-v2.json, from the Go
// types a result is written from: the envelope (harness/claim/results.Result) and each family's
// parts (results/family.Families), reflected by invopop/jsonschema. A field's doc comment is its
// description, encoding/json's omitempty says what is optional, and a field's jsonschema tag
// holds the rest of its rule (a minimum, a pattern); nothing here names a field of a family.
//
// `go generate ./results/schema` writes the file; TestSchemaIsGenerated fails when it is stale.
package schema

//go:generate go run write.go

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/workload/record"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/getitem"
)

// File is the generated schema's name in this folder; results.SchemaFile names it from the
// repository's root.
const File = "claims-result-v2.json"

// module is the import path the Go sources below are found under, for their doc comments.
const module = "github.com/serverless-claims/claims"

// commentDirs are the folders whose doc comments describe the result's types, relative to this
// package's folder (go generate and go test both run in it).
var commentDirs = []string{"../family", "../../harness/claim", "../../harness/lambda", "../../harness/workload", "../../harness/sys/runtimes", "../../catalog"}

// enumer is a string type that lists its values; its schema is their enum.
type enumer interface{ Enum() []string }

// fieldEnums are string fields whose values a package declares as a list, outside a type of
// their own.
var fieldEnums = map[reflect.Type]map[string][]string{
	reflect.TypeFor[results.Result](): {"mode": results.Modes, "schema": {results.Schema}},
	reflect.TypeFor[verdict.Bound]():  {"side": verdict.Sides},
	reflect.TypeFor[family.Build]():   {"language": catalog.FunctionLanguages},
	reflect.TypeFor[getitem.Stack]():  {"language": catalog.FunctionLanguages},
	reflect.TypeFor[family.Step]():    {"kind": record.Kinds},
	reflect.TypeFor[record.Request](): {"kind": record.Kinds},
}

// Generate is the schema, as the file holds it.
func Generate() ([]byte, error) {
	named := map[string]reflect.Type{}
	r := &jsonschema.Reflector{Anonymous: true, Mapper: mapped, Namer: func(t reflect.Type) string {
		n := qualifiedName(t)
		if n != "" {
			named[n] = t
		}
		return n
	}}
	for _, d := range commentDirs {
		if err := r.AddGoComments(module+"/results/schema", d); err != nil {
			return nil, fmt.Errorf("doc comments of %s: %w", d, err)
		}
	}
	defs := jsonschema.Definitions{}
	reflectInto := func(t reflect.Type) (*jsonschema.Schema, error) {
		s := r.ReflectFromType(t)
		for name, d := range s.Definitions {
			if had, ok := defs[name]; ok && !sameSchema(had, d) {
				return nil, fmt.Errorf("two types are named %s in the schema", name)
			}
			defs[name] = d
		}
		s.Definitions, s.Version = nil, ""
		return s, nil
	}

	top, err := reflectInto(reflect.TypeFor[results.Result]())
	if err != nil {
		return nil, err
	}
	envelope := defs[qualifiedName(reflect.TypeFor[results.Result]())]
	delete(defs, qualifiedName(reflect.TypeFor[results.Result]()))
	if envelope == nil || top.Ref == "" {
		return nil, fmt.Errorf("results.Result reflected as %+v; want a reference to its definition", top)
	}

	names := slices.Sorted(maps.Keys(family.Families))
	familyProp, _ := envelope.Properties.Get("family")
	familyProp.Enum = nil
	for _, n := range names {
		familyProp.Enum = append(familyProp.Enum, n)
	}
	for _, n := range names {
		p := family.Families[n]
		then := &jsonschema.Schema{Properties: jsonschema.NewProperties()}
		for _, part := range []struct {
			key string
			t   reflect.Type
		}{{"parameters", p.Parameters}, {"target", p.Target}, {"summary", p.Summary}, {"trials", p.Trials}} {
			if part.t == nil {
				continue
			}
			s, err := reflectInto(part.t)
			if err != nil {
				return nil, fmt.Errorf("family %s %s: %w", n, part.key, err)
			}
			then.Properties.Set(part.key, s)
		}
		envelope.AllOf = append(envelope.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: props("family", &jsonschema.Schema{Const: n})},
			Then: then,
		})
	}

	for name, def := range defs {
		writesNull(named[name], def)
	}
	writesNull(reflect.TypeFor[results.Result](), envelope)
	for t, fields := range fieldEnums {
		def := envelope
		if t != reflect.TypeFor[results.Result]() {
			def = defs[qualifiedName(t)]
		}
		for field, values := range fields {
			prop, ok := def.Properties.Get(field)
			if !ok {
				return nil, fmt.Errorf("%v has no field %s to list the values of", t, field)
			}
			prop.Enum = nil
			for _, v := range values {
				prop.Enum = append(prop.Enum, v)
			}
		}
	}

	envelope.Version = jsonschema.Version
	envelope.ID = jsonschema.ID(File)
	envelope.Title = results.Schema + ": one experiment's record"
	envelope.Definitions = defs
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(envelope); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// props is a properties map of one key.
func props(key string, s *jsonschema.Schema) *orderedmap.OrderedMap[string, *jsonschema.Schema] {
	p := jsonschema.NewProperties()
	p.Set(key, s)
	return p
}

// qualifiedName names a type's definition by its package and name ("stats.Summary"), since
// the families' packages reuse short names.
func qualifiedName(t reflect.Type) string {
	if t.Name() == "" || t.PkgPath() == "" {
		return ""
	}
	return path.Base(t.PkgPath()) + "." + t.Name()
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
)

// mapped is the schema of the types the reflector cannot read from their fields: a string type
// with its values. A type that encodes itself is refused
// (the reflector would describe its fields, not its text), except time.Time, which it knows.
func mapped(t reflect.Type) *jsonschema.Schema {
	if e, ok := reflect.Zero(t).Interface().(enumer); ok && t.Kind() == reflect.String {
		s := &jsonschema.Schema{Type: "string"}
		for _, v := range e.Enum() {
			s.Enum = append(s.Enum, v)
		}
		return s
	}
	if t.PkgPath() != "time" && (t.Implements(textMarshaler) || t.Implements(jsonMarshaler)) {
		panic(fmt.Sprintf("%v encodes itself; give it a schema here", t))
	}
	return nil
}

// writesNull lets the fields of struct t that encoding/json writes as null be null: a pointer
// without omitempty, and a slice's pointer elements. (A slice that may be nil says so in its
// jsonschema tag, nullable: the type cannot tell a nil slice from an empty one.)
func writesNull(t reflect.Type, def *jsonschema.Schema) {
	if t == nil || t.Kind() != reflect.Struct || def.Properties == nil {
		return
	}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		prop, ok := def.Properties.Get(name)
		if !ok || !f.IsExported() {
			continue
		}
		switch {
		case f.Type.Kind() == reflect.Pointer && !slices.Contains(strings.Split(opts, ","), "omitempty"):
			def.Properties.Set(name, orNull(prop))
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Pointer && prop.Items != nil:
			prop.Items = orNull(prop.Items)
		}
	}
}

// orNull is s, or null.
func orNull(s *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{s, {Type: "null"}}}
}

// sameSchema says whether two definitions are the same JSON.
func sameSchema(a, b *jsonschema.Schema) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
