package claimtest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// The variables that select an experiment package's claim tests by claim and by function
// language, in place of -run, so that a user names what the catalog names (`make live
// CLAIMS_ONLY=T1 CLAIMS_LANGUAGES=rust`) rather than test functions.
const (
	OnlyEnv      = "CLAIMS_ONLY"      // claim IDs, comma-separated: T1,T5
	LanguagesEnv = "CLAIMS_LANGUAGES" // function languages (catalog.FunctionLanguages), comma-separated
)

// SelectFromEnv is a check for Main: where OnlyEnv or LanguagesEnv is set, it sets the run's
// -test.run to the claim tests of package pkg (catalog.Tests) of one of kinds that decide one of
// the claims, on one of the languages, and prints what it selected. A claim or a language the
// catalog does not know, a selection no test of pkg matches, and a -run given beside it are
// errors naming the variable. A test with no function languages (T8's busy loop) is selected
// only where LanguagesEnv is not set.
func SelectFromEnv(pkg string, kinds ...catalog.Kind) func(settings.Settings) error {
	return func(settings.Settings) error {
		only, langs := envList(OnlyEnv), envList(LanguagesEnv)
		if only == nil && langs == nil {
			return nil
		}
		pattern, err := Selection(pkg, only, langs, kinds...)
		if err != nil {
			return err
		}
		if run := flagValue("test.run"); run != "" {
			return fmt.Errorf("%s and %s select tests, and so does -run %q: give one or the other", OnlyEnv, LanguagesEnv, run)
		}
		if err := flag.Set("test.run", pattern); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s=%s %s=%s select -run %q\n", OnlyEnv, os.Getenv(OnlyEnv), LanguagesEnv, os.Getenv(LanguagesEnv), pattern)
		return nil
	}
}

// Selection is the -run pattern of the claim tests of package pkg of one of kinds that decide
// one of the claims only names (any, where it is empty), restricted to the function languages
// langs where it is not empty. It is an error where a claim or a language is unknown or nothing
// matches.
func Selection(pkg string, only, langs []string, kinds ...catalog.Kind) (string, error) {
	var errs []error
	for _, id := range only {
		if _, err := catalog.Lookup(id); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", OnlyEnv, err))
		}
	}
	for _, l := range langs {
		if !slices.Contains(catalog.FunctionLanguages, l) {
			errs = append(errs, fmt.Errorf("%s: %q is not a function language; want one of %v", LanguagesEnv, l, catalog.FunctionLanguages))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	var names, decidable []string
	for _, t := range catalog.Tests() {
		if t.Package != pkg || !slices.Contains(kinds, t.Kind) {
			continue
		}
		decidable = append(decidable, t.Claims...)
		if only != nil && !slices.ContainsFunc(t.Claims, func(id string) bool { return slices.Contains(only, id) }) {
			continue
		}
		if langs != nil && !slices.ContainsFunc(t.Functions, func(l string) bool { return slices.Contains(langs, l) }) {
			continue
		}
		names = append(names, regexp.QuoteMeta(t.Name))
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%s=%s %s=%s: no claim test of experiments/%s here decides them; its claims: %s, in the languages %v",
			OnlyEnv, strings.Join(only, ","), LanguagesEnv, strings.Join(langs, ","), pkg, strings.Join(decidable, ","), catalog.FunctionLanguages)
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	if langs != nil {
		pattern += "/^(" + strings.Join(langs, "|") + ")$"
	}
	return pattern, nil
}

// envList is the comma-separated variable name's elements, nil where it is unset or empty.
func envList(name string) []string {
	var out []string
	for _, f := range strings.Split(os.Getenv(name), ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
