package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// TestTheModelJudgedListsDisagreementsFirst: the results of a platform that judges the model are
// shown with the article's claim, the model's prediction and the platform's verdict side by side,
// those where the model and the platform disagree first, in the Markdown summary and on the page;
// a result with no prediction (the local platform's) is not among them.
func TestTheModelJudgedListsDisagreementsFirst(t *testing.T) {
	judged := func(exp string, predicted, got verdict.Outcome) Entry {
		r := results.Result{Experiment: exp, Claims: []string{"T2"}, Claim: "the first invocation is slow", Mode: results.ModeLive,
			Verdict: verdict.Verdict{Outcome: got}, ModelPrediction: &results.Prediction{Outcome: predicted}}
		if predicted == verdict.Fail {
			r.ModelPrediction.Why = "the model's reason"
		}
		return Entry{Path: "live/coldstart/" + exp + ".json", Result: r}
	}
	s := Set{Dir: "results", Entries: []Entry{
		judged("TestFirstInvocationIsSlow/go", verdict.Pass, verdict.Pass),
		judged("TestFirstInvocationIsSlow/rust", verdict.Fail, verdict.Pass),
		{Path: "coldstart/local.json", Result: results.Result{Experiment: "TestFirstInvocationIsSlow/node", Claims: []string{"T2"}, Mode: results.ModeLocal}},
	}}
	js := Judgements(s)
	require.Len(t, js, 2, "judgements; want the two results with a prediction")
	assert.Equal(t, "TestFirstInvocationIsSlow/rust", js[0].Experiment, "the first judgement; want the one where the model and the platform disagree")
	assert.True(t, js[0].Disagrees, "rust: predicted fail, verdict pass: disagrees")
	assert.Equal(t, "fail: the model's reason", js[0].Model, "rust: the model's prediction as shown")
	assert.False(t, js[1].Disagrees, "go: predicted pass, verdict pass: agrees")

	var md, page strings.Builder
	require.NoError(t, WriteMarkdown(&md, s))
	require.NoError(t, WriteHTML(&page, s, time.Now()))
	for form, out := range map[string]string{"Markdown": md.String(), "HTML": page.String()} {
		rust, golang := strings.Index(out, "TestFirstInvocationIsSlow/rust"), strings.Index(out, "TestFirstInvocationIsSlow/go")
		assert.True(t, rust >= 0 && golang > rust, "%s: the disagreeing rust row at %d, the agreeing go row at %d; want rust first", form, rust, golang)
		assert.Contains(t, out, "the model disagrees", "%s: the disagreement must be named", form)
		summary := strings.Index(out, "| claims | experiment | mode |")
		if form == "HTML" {
			summary = strings.Index(out, `id="summary"`)
		}
		assert.Less(t, strings.Index(out, "The model, judged"), summary, "%s: the model's judgement must come before the summary", form)
	}

	var cmp strings.Builder
	require.NoError(t, WriteComparison(&cmp, Compare(Set{Dir: "old"}, s)))
	rust, golang := strings.Index(cmp.String(), "TestFirstInvocationIsSlow/rust"), strings.Index(cmp.String(), "TestFirstInvocationIsSlow/go")
	assert.True(t, rust >= 0 && golang > rust, "make compare: the disagreeing rust line at %d, the agreeing go line at %d; want rust first:\n%s", rust, golang, cmp.String())
	assert.Contains(t, cmp.String(), "model: fail: the model's reason / platform: pass (the model disagrees)", "make compare: article / model / platform side by side")
}
