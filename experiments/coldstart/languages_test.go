package coldstart

// Where a cold-start claim does not hold on a language's function in the local model of Lambda:
// the article measured a Rust function, and its advice is given for every runtime. Each entry
// was measured on every run of the claim on that language (the results say with what figures);
// the claim test then asserts the refutation locally and through the stand-ins, as P7's does,
// and fails the day the claim holds there. It is the model's prediction: on a platform that
// judges the model (claimtest.Judges: AWS) the test asserts the article's claim instead and
// records the prediction beside its verdict.

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// refutedOn is what the test of a claim, by its first ID, asserts on the function in a language
// where the claim does not hold there, and why: refuted (a fail, far from its bound), or not
// borne out (fail or inconclusive: the effect sits at the claim's bound).
var refutedOn = map[string]map[lambdazip.Language]claimtest.Expectation{
	"T1": {
		lambdazip.Rust: claimtest.Refuted("rustls with ring needs well under a millisecond of CPU for the handshake, less than 128 MB's quota of one CFS period, " +
			"so the quota seldom stretches it: at 128 MB it is not several times slower than unthrottled, and the article's 745 ms cannot be this handshake alone (summary.setup.article)"),
		lambdazip.Node: claimtest.Refuted("Node.js's own socket set-up, in the TCP phase between tls.connect and the socket's 'connect' event, costs about as much CPU as OpenSSL's handshake, " +
			"so at 128 MB the handshake is well under 90% of the set-up's CPU; and the SDK's first-call work outweighs the set-up (summary.setup.article)"),
	},
	"T2": {
		lambdazip.Rust: claimtest.Refuted("a Rust function's first invocation takes a few ms, about as long as its Init: with a handshake that fits in the quota nothing in it is slow at 128 MB"),
		lambdazip.Python: claimtest.Refuted("Init imports boto3 and botocore, hundreds of ms even with Init's burst of CPU, about as long as the first invocation: " +
			"on Python the first invocation is not twice Init, though it is many times a warm one"),
	},
	"T5": {
		lambdazip.Rust: claimtest.NotBorneOut("a handshake that fits within one period's quota is stretched only where it meets the quota's end, " +
			"so at 128 MB it is a mix of unthrottled and stretched handshakes whose mean is a few times the unthrottled one at most, not the share's inverse: " +
			"fail or inconclusive, run by run"),
	},
}

// coldStartFactor is how many times the run's cold starts (CLAIMS_COLD_STARTS) the claims about
// a CPU share take on a language's function, where not once: a Rust cold start lasts a few ms,
// and its handshake, well under a period's quota, is stretched only where it meets the quota's
// end, so its figures are a mix of two and their means need more cold starts to settle; three
// times as many cost less than Go's.
var coldStartFactor = map[lambdazip.Language]int{lambdazip.Rust: 3}

// withColdStartsFor is s with the cold starts the claims take on l's function.
func withColdStartsFor(s settings.Settings, l lambdazip.Language) settings.Settings {
	if f, ok := coldStartFactor[l]; ok {
		s.ColdStarts *= f
	}
	return s
}

// coldStartsOn is the cold starts the claims about a CPU share take on p: its settings'
// CLAIMS_COLD_STARTS, times its language's factor.
func coldStartsOn(p lambdaPlatform) int {
	return withColdStartsFor(p.Settings(), p.Language()).ColdStarts
}

// on is c as the test on language l's function asserts it: as refutedOn says, where it names l.
func on(c claimtest.Claim, l lambdazip.Language) claimtest.Claim {
	if e, ok := refutedOn[c.IDs[0]][l]; ok {
		c.Expect = e
	}
	return c
}

// TestRefutationsNameKnownClaimsAndLanguages: each entry of refutedOn is a claim of this package
// on a language other than Go's, whose function the article's advice was measured beside.
func TestRefutationsNameKnownClaimsAndLanguages(t *testing.T) {
	claims := map[string]bool{}
	for _, c := range []claimtest.Claim{firstCallClaim, firstInvocationClaim, warmupClaim, scalingClaim, ownConnectionClaim, warmupFailureClaim} {
		claims[c.IDs[0]] = true
	}
	for id, langs := range refutedOn {
		assert.True(t, claims[id], "refutedOn[%s] = a claim this package does not decide", id)
		for l, e := range langs {
			assert.Contains(t, lambdazip.Languages, l, "refutedOn[%s] names language %q", id, l)
			assert.NotEqual(t, lambdazip.Go, l, "refutedOn[%s][go]: the Go function's claims hold or fail on their own", id)
			assert.NotEqual(t, claimtest.Holds, e, "refutedOn[%s][%s] = holds; want a refutation with its reason", id, l)
		}
	}
}
