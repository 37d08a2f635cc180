// Package family holds the types of the result families: what a claim test writes as a result's
// parameters, target, summary and trials (harness/claim/results keeps the envelope around them),
// one file per family. The experiments write these types, the report decodes into them, and
// functions/getitem answers with Call and Answer (results/family/getitem), so a family is
// declared once; the JSON Schema (results/schema) is generated from them, with a field's rule in
// its jsonschema tag, and the family documentation of results/README.md is checked against each
// part's top-level fields (readme_test.go).
//
// A reader links it (cmd/report): it imports no SDK and no testing, only the small packages whose
// types a result holds (harness/claim/stats, harness/workload/record, harness/sys/runtimes), as
// docs/layout.md's import order has it.
package family

import "reflect"

// Parts are the Go types of a family's four typed parts of a result; the checks skip a nil one.
type Parts struct {
	Parameters, Target, Summary, Trials reflect.Type
}

// Of is the reflect.Type of T, for a Parts literal.
func Of[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Families are the result families by the name a result's family field carries, with the types
// of their parts: what the schema check walks, and what a reader may decode into.
var Families = map[string]Parts{}

// register adds a family; each file registers its own in an init.
func register(name string, p Parts) {
	if _, dup := Families[name]; dup {
		panic("family " + name + " registered twice")
	}
	Families[name] = p
}
