package live

import "regexp"

// accountInARN is the account field of an ARN: arn:partition:service:region:ACCOUNT:resource.
var accountInARN = regexp.MustCompile(`(arn:aws[-a-z]*:[a-z0-9-]*:[a-z0-9-]*:)\d{12}(:)`)

// RedactARN replaces the account id in every ARN in s with <account>, so that a message or a
// result can name a resource without naming the account:
// arn:aws:lambda:us-east-1:123456789012:function:x becomes arn:aws:lambda:us-east-1:<account>:function:x.
func RedactARN(s string) string {
	return accountInARN.ReplaceAllString(s, "${1}<account>${2}")
}

// redacted is an error whose text has its ARNs' account ids redacted; errors.Is and As still see
// the SDK's typed error beneath.
type redacted struct{ err error }

func (r redacted) Error() string { return RedactARN(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

// redact wraps err so that its text names no account; nil stays nil.
func redact(err error) error {
	if _, done := err.(redacted); err == nil || done {
		return err
	}
	return redacted{err}
}
