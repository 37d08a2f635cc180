package report

import (
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Summary is one result as the summary table shows it.
type Summary struct {
	Claims     []string
	Statement  string // the claim as this run tested it
	Experiment string
	Mode       string
	Runtimes   string // the runtime it ran on: the function's language and stack, or the probe's runtime (Entry.Runtime)
	Outcome    verdict.Outcome
	// Asserted is what the test asserts of the verdict: "holds", or for a claim these runtimes
	// do not bear out, "refuted: why". A fail that its test asserts is a finding, not a red test.
	Asserted  string
	Ours      string // our key figures: the result's headline
	Published string // the articles' figures, each with its claim where there are several
	Reason    string
	Source    string // the result file, relative to the set's folder
	Machine   string
}

// Summaries is every entry of s in the summary's order.
func Summaries(s Set) []Summary {
	out := make([]Summary, 0, len(s.Entries))
	for _, e := range s.Entries {
		r := e.Result
		asserted := "holds"
		if r.Expected != nil {
			asserted = "refuted: " + r.Expected.Why
		}
		out = append(out, Summary{
			Claims: r.Claims, Statement: r.Claim, Experiment: r.Experiment, Mode: r.Mode,
			Runtimes: e.Runtime(), Outcome: r.Verdict.Outcome, Asserted: asserted,
			Ours: r.Headline, Published: published(e), Reason: r.Verdict.Reason,
			Source: e.Path, Machine: e.Machine(),
		})
	}
	return out
}

// published is the articles' figures for e's claims, each with its claim where e has several.
func published(e Entry) string {
	var parts []string
	for _, p := range e.Result.Published {
		if p.Figure == "" {
			continue
		}
		if len(e.Result.Published) > 1 {
			parts = append(parts, p.Claim+": "+p.Figure)
		} else {
			parts = append(parts, p.Figure)
		}
	}
	if len(parts) == 0 {
		return "(none published)"
	}
	return strings.Join(parts, "; ")
}

// Uncovered are the catalog's claims that no result in s speaks to, each with why when the
// catalog says (a claim still pending, or one only a live run decides).
func Uncovered(s Set) []catalog.Claim {
	var out []catalog.Claim
	for _, c := range catalog.All() {
		if !slices.ContainsFunc(s.Entries, func(e Entry) bool { return slices.Contains(e.Result.Claims, c.ID) }) {
			out = append(out, c)
		}
	}
	return out
}
