package main

// The suites: which experiment packages and claim tests run on each kind of runtime, from the
// catalog.

import (
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
)

// functionKind is the kind of the shards and suites of a function's language, beside catalog.Node
// and catalog.Go.
const functionKind = "function"

// suite is the tests of one experiment package that one kind of runtime runs.
type suite struct {
	kind     string   // catalog.Node, catalog.Go or functionKind
	language string   // a function suite's language: the only subtests it runs
	pkg      string   // the package, from the repository root
	tests    []string // its claim tests
	skip     string   // go test -skip: the subtests of the other kinds and function languages
}

// suites are every claim test of the default build that concerns a runtime (catalog.Tests), by
// the runtime and then the package, in the catalog's order, and then the function languages'.
// T7 is a benchmark read with benchstat (`make bench`), not a verdict, so the catalog names no
// runtime for it; the tests that check the tests (TestCatchesBroken...) are not claim tests, and
// the routing claims' need -tags lambda.
var suites = suitesOf(catalog.Tests())

// experimentPackages are the packages under experiments/ with claim tests, in the matrix's order.
var experimentPackages = []string{"eventloop", "threadpool", "coldstart"}

// suitesOf makes the suites of tests: one per runtime kind and package, whose tests with more
// than one kind of runtime skip the subtests of the others, and whose tests with a function per
// language skip, on Go, the other languages' subtests; then one per function language (other than
// Go) and package, which runs that language's subtests alone.
func suitesOf(tests []catalog.Test) []suite {
	var out []suite
	for _, kind := range []string{catalog.Node, catalog.Go} {
		for _, pkg := range experimentPackages {
			s := suite{kind: kind, pkg: "./experiments/" + pkg}
			var split []string  // the tests with subtests that other columns run
			var others []string // those subtests' names
			for _, t := range tests {
				if t.Package != pkg || t.Kind == catalog.Live || !slices.Contains(t.Runtimes, kind) {
					continue
				}
				s.tests = append(s.tests, t.Name)
				var not []string
				if len(t.Runtimes) > 1 {
					not = append(not, t.Runtimes...)
				}
				// The Go columns run the Go function, built with their toolchain; each other
				// language's subtest is its function column's.
				if kind == catalog.Go {
					not = append(not, t.Functions...)
				}
				not = slices.DeleteFunc(not, func(n string) bool { return n == kind })
				if len(not) == 0 {
					continue
				}
				split = append(split, t.Name)
				for _, n := range not {
					if !slices.Contains(others, n) {
						others = append(others, n)
					}
				}
			}
			if len(s.tests) == 0 {
				continue
			}
			// One -skip for them all, as go test takes one: level by level it also names a test
			// with some of the names of another's subtests, which skips nothing of it, as each
			// test's subtests are named by the runtimes or languages it lists.
			if len(split) > 0 {
				s.skip = "^" + alternatives(split) + "$/^" + alternatives(others) + "$"
			}
			out = append(out, s)
		}
	}
	for _, l := range FunctionLanguages {
		for _, pkg := range experimentPackages {
			s := suite{kind: functionKind, language: l, pkg: "./experiments/" + pkg}
			for _, t := range tests {
				if t.Package == pkg && t.Kind != catalog.Live && slices.Contains(t.Functions, l) {
					s.tests = append(s.tests, t.Name)
				}
			}
			if len(s.tests) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// runs says whether s is a suite of shard sh: of its kind, and for a function's, of its language.
func (s suite) runs(sh shard) bool {
	return s.kind == sh.kind && (s.kind != functionKind || s.language == sh.arg)
}

// runPattern is go test's -run of tests, of s: exactly them, and in a function's suite only its
// language's subtests, which each other column skips or leaves out.
func (s suite) runPattern(tests []string) string {
	p := "^(" + strings.Join(tests, "|") + ")$"
	if s.language != "" {
		p += "/^" + s.language + "$"
	}
	return p
}

// testArgs are go test's arguments for tests of s.
func (s suite) testArgs(tests []string) []string {
	args := []string{"test", "-count=1", "-p", "1", "-timeout", "30m", "-run", s.runPattern(tests)}
	if s.skip != "" {
		args = append(args, "-skip", s.skip)
	}
	return append(args, s.pkg)
}

// alternatives is a regular expression's alternation of names, in parentheses where there are
// several.
func alternatives(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "(" + strings.Join(names, "|") + ")"
}

// selected are s's tests among only (all of them when only is empty).
func (s suite) selected(only []string) []string {
	if len(only) == 0 {
		return s.tests
	}
	var out []string
	for _, t := range s.tests {
		if slices.Contains(only, t) {
			out = append(out, t)
		}
	}
	return out
}
