package report

import (
	"cmp"
	"slices"

	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Judgement is one result of a platform that judges the local model (AWS): the article's claim,
// what the model predicted of it there, and the platform's verdict, side by side.
type Judgement struct {
	Claims     []string
	Experiment string // the test, its language subtest included
	Article    string // the claim as the article states it, which the test asserted there
	Model      string // the model's prediction: "pass", or the refutation with why
	Platform   verdict.Outcome
	// Disagrees says the platform's verdict is not what the model predicted: a finding about
	// the model.
	Disagrees bool
	Source    string
}

// Judgements are the results of s that carry the model's prediction, those where the model and
// the platform disagree first, each group in the summary's order.
func Judgements(s Set) []Judgement {
	var out []Judgement
	for _, e := range s.Entries {
		r := e.Result
		p := r.ModelPrediction
		if p == nil {
			continue
		}
		model := string(p.Outcome)
		if p.OrInconclusive {
			model += " or inconclusive"
		}
		if p.Why != "" {
			model += ": " + p.Why
		}
		out = append(out, Judgement{Claims: r.Claims, Experiment: r.Experiment, Article: r.Claim, Model: model,
			Platform: r.Verdict.Outcome, Disagrees: p.Disagrees(r.Verdict.Outcome), Source: e.Path})
	}
	slices.SortStableFunc(out, func(a, b Judgement) int {
		return cmp.Compare(boolRank(a.Disagrees), boolRank(b.Disagrees))
	})
	return out
}

// boolRank sorts true first.
func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}
