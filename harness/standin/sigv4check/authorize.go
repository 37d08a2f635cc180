package sigv4check

import (
	"errors"
	"fmt"
	"net/http"
)

// DefaultAccountID is the account the stand-ins' ARNs name unless told another: the account
// their test keys stand for.
const DefaultAccountID = "123456789012"

// Reason is why Authorize refused a request.
type Reason int

// The reasons, in the order Authorize checks them.
const (
	// Unsigned: no SigV4 Authorization header, or one that cannot be read (ErrUnsigned).
	Unsigned Reason = iota + 1
	// UnknownKey: the access key id is not one of the Keys (ErrUnknownKey).
	UnknownKey
	// BadSignature: the signature does not match (ErrBadSignature).
	BadSignature
	// WrongScope: a valid signature, made for another service or region than the stand-in's.
	WrongScope
)

// Codes are the error codes a service answers each Reason with. AWS answers a signature made
// for another service or region as a signature that does not match, so WrongScope takes
// BadSignature's code.
type Codes struct{ Unsigned, UnknownKey, BadSignature string }

// Refusal is a request Authorize refused: why, and the message AWS gives with it.
type Refusal struct {
	Reason Reason
	// Scope is the credential scope the request named; zero when it named none it could read.
	Scope Scope
	msg   string
	err   error
}

// Error is the refusal's message, worded as AWS words it, with what was wrong.
func (f *Refusal) Error() string { return f.msg }

// Unwrap is Verify's error (ErrUnsigned, ErrUnknownKey or ErrBadSignature wrapped); nil for
// WrongScope.
func (f *Refusal) Unwrap() error { return f.err }

// Code is the code c gives f's Reason.
func (f *Refusal) Code(c Codes) string {
	switch f.Reason {
	case Unsigned:
		return c.Unsigned
	case UnknownKey:
		return c.UnknownKey
	default:
		return c.BadSignature
	}
}

// Authorize verifies r's signature (Verify) and that it was made for service in region, the
// one decision every stand-in makes before it runs an operation. It returns nil for a request
// to serve, and otherwise the Refusal the stand-in answers, with the status and Codes of its
// service, in its service's error shape.
func (k Keys) Authorize(r *http.Request, body []byte, service, region string) *Refusal {
	scope, err := k.Verify(r, body)
	switch {
	case errors.Is(err, ErrUnsigned):
		return &Refusal{Reason: Unsigned, msg: fmt.Sprintf("Request is missing Authentication Token (%v)", err), err: err}
	case errors.Is(err, ErrUnknownKey):
		return &Refusal{Reason: UnknownKey, Scope: scope, msg: "The security token included in the request is invalid.", err: err}
	case err != nil:
		return &Refusal{Reason: BadSignature, Scope: scope, msg: fmt.Sprintf("The request signature we calculated does not match the signature you provided. (%v)", err), err: err}
	case scope.Service != service:
		return &Refusal{Reason: WrongScope, Scope: scope, msg: fmt.Sprintf("Credential should be scoped to correct service: '%s', not %q.", service, scope.Service)}
	case scope.Region != region:
		return &Refusal{Reason: WrongScope, Scope: scope, msg: fmt.Sprintf("Credential should be scoped to a valid region, not %q; this endpoint is signed for %s.", scope.Region, region)}
	}
	return nil
}
