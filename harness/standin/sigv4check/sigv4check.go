// Package sigv4check verifies the AWS Signature Version 4 on a request a stand-in received,
// with the SDK's own signer: the request is signed again, with the secret of the access key it
// names, over the same headers, time, scope and payload hash, and the two signatures must be
// equal. A stand-in that checks signatures this way refuses what AWS refuses (a wrong secret, a
// body changed after signing), so a client that passes here signs as AWS expects.
//
// Authorize is the decision each stand-in makes with it: the signature, then its service and
// region, as a Refusal whose Reason the stand-in answers with its own service's code.
package sigv4check

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Errors Verify returns, wrapped with what was wrong; test them with errors.Is.
var (
	// ErrUnsigned: no Authorization header, or one that is not a SigV4 header that can be read.
	ErrUnsigned = errors.New("sigv4check: request not signed with SigV4")
	// ErrUnknownKey: the access key id is not one of the Keys.
	ErrUnknownKey = errors.New("sigv4check: unknown access key id")
	// ErrBadSignature: the signature does not match, or the scope, date or headers are wrong.
	ErrBadSignature = errors.New("sigv4check: signature does not match")
)

// algorithm is the only signing algorithm the SDK's v4 signer makes.
const algorithm = "AWS4-HMAC-SHA256"

// amzDateFormat is X-Amz-Date's layout.
const amzDateFormat = "20060102T150405Z"

// Keys maps each accepted access key id to its secret access key.
type Keys map[string]string

// Scope is the credential scope a valid signature was made for.
type Scope struct{ AccessKeyID, Date, Region, Service string }

// header is a parsed Authorization header.
type header struct {
	scope         Scope
	signedHeaders []string
	signature     string
}

// parse reads "AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/<service>/aws4_request,
// SignedHeaders=a;b, Signature=<hex>".
func parse(auth string) (header, error) {
	rest, ok := strings.CutPrefix(auth, algorithm+" ")
	if !ok {
		return header{}, fmt.Errorf("%w: Authorization does not start with %s", ErrUnsigned, algorithm)
	}
	var h header
	var cred, signed string
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return header{}, fmt.Errorf("%w: Authorization part %q has no '='", ErrUnsigned, part)
		}
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			signed = v
		case "Signature":
			h.signature = v
		}
	}
	f := strings.Split(cred, "/")
	if len(f) != 5 || f[4] != "aws4_request" || slices.Contains(f, "") {
		return header{}, fmt.Errorf("%w: Credential %q is not <key>/<date>/<region>/<service>/aws4_request", ErrUnsigned, cred)
	}
	h.scope = Scope{AccessKeyID: f[0], Date: f[1], Region: f[2], Service: f[3]}
	if signed == "" || h.signature == "" {
		return header{}, fmt.Errorf("%w: Authorization lacks SignedHeaders or Signature", ErrUnsigned)
	}
	h.signedHeaders = strings.Split(signed, ";")
	return h, nil
}

// Verify checks r's SigV4 Authorization header against k, body being the request's body (which
// the caller has read). It returns the credential scope the request was signed for; the caller
// checks Region and Service as its service needs.
func (k Keys) Verify(r *http.Request, body []byte) (Scope, error) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return Scope{}, fmt.Errorf("%w: no Authorization header", ErrUnsigned)
	}
	h, err := parse(auth)
	if err != nil {
		return Scope{}, err
	}
	secret, ok := k[h.scope.AccessKeyID]
	if !ok {
		return h.scope, fmt.Errorf("%w: %q", ErrUnknownKey, h.scope.AccessKeyID)
	}
	amzDate := r.Header.Get("X-Amz-Date")
	at, err := time.Parse(amzDateFormat, amzDate)
	if err != nil {
		return h.scope, fmt.Errorf("%w: X-Amz-Date %q is not %s", ErrBadSignature, amzDate, amzDateFormat)
	}
	if d := at.Format("20060102"); d != h.scope.Date {
		return h.scope, fmt.Errorf("%w: credential date %s is not X-Amz-Date's day %s", ErrBadSignature, h.scope.Date, d)
	}
	if !slices.Contains(h.signedHeaders, "host") || !slices.Contains(h.signedHeaders, "x-amz-date") {
		return h.scope, fmt.Errorf("%w: SignedHeaders %v lack host or x-amz-date", ErrBadSignature, h.signedHeaders)
	}
	sum := sha256.Sum256(body)
	actual := hex.EncodeToString(sum[:])
	payloadHash := actual
	if v := r.Header.Get("X-Amz-Content-Sha256"); v != "" {
		// The SDK sends the hash it signed; a body that does not match it was changed on the way.
		if v != actual && v != "UNSIGNED-PAYLOAD" {
			return h.scope, fmt.Errorf("%w: X-Amz-Content-Sha256 %s is not the body's %s", ErrBadSignature, v, actual)
		}
		payloadHash = v
	}

	// The copy carries exactly the signed headers, so the signer signs those and no others.
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	c := &http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}
	for _, name := range h.signedHeaders {
		switch name {
		case "host":
		case "content-length":
			c.ContentLength = int64(len(body))
		default:
			if vs := r.Header.Values(name); len(vs) > 0 {
				c.Header[http.CanonicalHeaderKey(name)] = slices.Clone(vs)
			}
		}
	}
	creds := aws.Credentials{AccessKeyID: h.scope.AccessKeyID, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, c, payloadHash, h.scope.Service, h.scope.Region, at); err != nil {
		return h.scope, fmt.Errorf("%w: signing the copy: %v", ErrBadSignature, err)
	}
	want, err := parse(c.Header.Get("Authorization"))
	if err != nil {
		return h.scope, fmt.Errorf("%w: reading the copy's signature: %v", ErrBadSignature, err)
	}
	if !slices.Equal(want.signedHeaders, h.signedHeaders) {
		return h.scope, fmt.Errorf("%w: SignedHeaders %v; the request carries %v of them", ErrBadSignature, h.signedHeaders, want.signedHeaders)
	}
	if subtle.ConstantTimeCompare([]byte(want.signature), []byte(h.signature)) != 1 {
		return h.scope, fmt.Errorf("%w: for access key %s (scope %s/%s/%s)", ErrBadSignature, h.scope.AccessKeyID, h.scope.Date, h.scope.Region, h.scope.Service)
	}
	return h.scope, nil
}
