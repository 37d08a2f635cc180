package claimtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
)

func TestSelectionNamesTheTestsOfAClaimAndALanguage(t *testing.T) {
	for _, tc := range []struct {
		name        string
		only, langs []string
		want        string
	}{
		// T6 is decided by two tests; T1 by one of them.
		{"a claim", []string{"T6"}, nil, "^(TestPhasesAreTheSDKsOwnConnection|TestFirstCallDominatedByTLS)$"},
		{"a claim in a language", []string{"T1"}, []string{"rust"}, "^(TestFirstCallDominatedByTLS)$/^(rust)$"},
		// T8 runs no GetItem function: a language leaves it out.
		{"a language", nil, []string{"python"}, "^(TestPhasesAreTheSDKsOwnConnection|TestWarmupFailureDoesNotFailInit|TestFirstCallDominatedByTLS|" +
			"TestFirstInvocationIsSlow|TestWarmupRemovesHandshake|TestHandshakeScalesWithCPU|TestInitIsNotThrottled)$/^(python)$"},
		{"a claim with no language", []string{"T8"}, nil, "^(TestThrottleSlices)$"},
	} {
		got, err := Selection("coldstart", tc.only, tc.langs, catalog.Both)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, "%s: Selection(%v, %v)", tc.name, tc.only, tc.langs)
	}
}

func TestSelectionRefusesWhatTheCatalogDoesNotHave(t *testing.T) {
	for _, tc := range []struct {
		name        string
		only, langs []string
		want        []string
	}{
		{"an unknown claim", []string{"T99"}, nil, []string{OnlyEnv, `no claim "T99"`}},
		{"an unknown language", nil, []string{"java"}, []string{LanguagesEnv, `"java" is not a function language`}},
		{"a claim of another package", []string{"W2"}, nil, []string{"no claim test of experiments/coldstart", "T6"}},
		{"a claim with no language, in a language", []string{"T8"}, []string{"go"}, []string{"no claim test of experiments/coldstart"}},
	} {
		_, err := Selection("coldstart", tc.only, tc.langs, catalog.Both)
		if assert.Error(t, err, "%s: Selection(%v, %v); want refused", tc.name, tc.only, tc.langs) {
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w, tc.name)
			}
		}
	}
}
