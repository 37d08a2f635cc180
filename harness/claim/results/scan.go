package results

import (
	"fmt"
	"regexp"
	"slices"
)

// A key's name followed by its value, in JSON ("name": "value", "name": 123) or in an
// environment-style line (NAME=value): what the key-named rules below read.
const keyValue = `"?\s*[:=]\s*"?`

// secretRules are what must never be written out, each with the name a finding gives.
var secretRules = []struct {
	kind string
	re   *regexp.Regexp
}{
	// An access key id is a token of its own, 20 characters: inside a longer run of capitals and
	// digits (an SDK error's 52-character RequestID) the same letters are chance, which a run's
	// dozens of request ids hit now and then.
	{"AWS access key id", regexp.MustCompile(`(?:^|[^A-Z0-9])(?P<m>(A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16})(?:[^A-Z0-9]|$)`)},
	// A secret access key is 40 characters of base64; only under a key named like one, since
	// 40 hex characters (a commit id) are also base64.
	{"secret access key", regexp.MustCompile(`(?i)[a-z0-9_.-]*secret[a-z0-9_.-]*` + keyValue + `[A-Za-z0-9/+]{40}([^A-Za-z0-9/+=]|$)`)},
	// Session tokens are hundreds of base64 characters; 80 and more leaves out hex digests.
	{"session token", regexp.MustCompile(`(?i)[a-z0-9_.-]*(token|session)[a-z0-9_.-]*` + keyValue + `[A-Za-z0-9/+=]{80,}`)},
	// STS session tokens start with these (the base64 of their binary header).
	{"session token", regexp.MustCompile(`IQoJb3JpZ2lu|FwoGZXIvYXdz`)},
	{"credential field", regexp.MustCompile(`"(?i:secret_?access_?key|session_?token|aws_secret[a-z_]*)"\s*:`)},
	{"account id in an ARN", regexp.MustCompile(`arn:aws[-a-z]*:[a-z0-9-]*:[a-z0-9-]*:[0-9]{12}:`)},
	{"account id", regexp.MustCompile(`(?i)[a-z0-9_.-]*account[a-z0-9_.-]*` + keyValue + `[0-9]{12}([^0-9]|$)`)},
	{"signed URL", regexp.MustCompile(`X-Amz-(Signature|Credential|Security-Token)=`)},
	// A query-signed URL of the older kind (S3's v2, CloudFront): Signature= and Expires= in one
	// URL. encoding/json writes & as \u0026.
	{"signed URL", regexp.MustCompile(`(\?|&|\\u0026)(Expires=[^"\s]*(&|\\u0026)Signature=|Signature=[^"\s]*(&|\\u0026)Expires=)`)},
}

// ScanSecrets names each credential, account id or signed URL in data: AWS access key ids,
// secret access keys and session tokens, 12-digit account ids in ARNs and under keys named like
// account, and signed URLs. A finding says what it is, where (byte offset) and the first
// characters of the match only, so that reporting a leak does not repeat it. Placeholders such
// as arn:aws:lambda:us-east-1:<account>:function:x are clean.
func ScanSecrets(data []byte) []string {
	type hit struct {
		at   int
		what string
	}
	var hits []hit
	for _, r := range secretRules {
		// A rule whose match is bounded by what is around it names the part that is the secret.
		g := max(0, r.re.SubexpIndex("m"))
		for _, loc := range r.re.FindAllSubmatchIndex(data, -1) {
			from, to := loc[2*g], loc[2*g+1]
			hits = append(hits, hit{from, fmt.Sprintf("%s at byte %d (%s…)", r.kind, from, prefix(data[from:to]))})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.what)
	}
	return slices.Compact(out)
}

// prefix is the start of a match, short enough to say where it is without giving it away.
func prefix(m []byte) string {
	const n = 6
	if len(m) > n {
		m = m[:n]
	}
	return string(m)
}
