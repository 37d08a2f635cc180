package sigv4check

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuthorizeNamesWhyAndTheServicesCode: Authorize passes a request signed for the service
// and region it is asked about, and refuses each other one with its Reason, Verify's error
// under it, and the code a service's Codes give that reason; a wrong service or region takes
// the code of a bad signature.
func TestAuthorizeNamesWhyAndTheServicesCode(t *testing.T) {
	codes := Codes{Unsigned: "unsigned", UnknownKey: "unknown", BadSignature: "bad"}
	refusals := make(chan *Refusal, 1)
	var service, region string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		refusals <- keys.Authorize(r, body, service, region)
	}))
	t.Cleanup(s.Close)
	for _, c := range []struct {
		name, service, region string
		secret                string
		tamper                func(*http.Request)
		reason                Reason
		err                   error
		code, says            string
	}{
		{name: "accepted", service: "lambda", region: "us-east-1", secret: secret},
		{name: "unsigned", service: "lambda", region: "us-east-1", secret: secret, tamper: func(r *http.Request) { r.Header.Del("Authorization") },
			reason: Unsigned, err: ErrUnsigned, code: "unsigned", says: "missing Authentication Token"},
		{name: "unknown key", service: "lambda", region: "us-east-1", secret: secret, tamper: func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), keyID, "AKIDSOMEONEELSE", 1))
		}, reason: UnknownKey, err: ErrUnknownKey, code: "unknown", says: "security token"},
		{name: "wrong secret", service: "lambda", region: "us-east-1", secret: "not-the-secret",
			reason: BadSignature, err: ErrBadSignature, code: "bad", says: "does not match"},
		{name: "another service", service: "iam", region: "us-east-1", secret: secret,
			reason: WrongScope, code: "bad", says: "'iam', not \"lambda\""},
		{name: "another region", service: "lambda", region: "eu-west-1", secret: secret,
			reason: WrongScope, code: "bad", says: "not \"us-east-1\"; this endpoint is signed for eu-west-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			service, region = c.service, c.region
			resp, err := http.DefaultClient.Do(signed(t, s.URL+"/x", c.secret, `{"a":1}`, c.tamper))
			require.NoError(t, err)
			_ = resp.Body.Close()
			f := <-refusals
			if c.reason == 0 {
				assert.Nil(t, f, "Authorize of a request signed for %s in %s = %v; want nil", c.service, c.region, f)
				return
			}
			require.NotNil(t, f, "Authorize = nil; want a refusal for %s", c.name)
			assert.Equal(t, c.reason, f.Reason, "Reason = %d; want %d (%v)", f.Reason, c.reason, f)
			assert.Equal(t, c.code, f.Code(codes), "Code = %q; want %q (%v)", f.Code(codes), c.code, f)
			assert.Contains(t, f.Error(), c.says, "message")
			if c.err != nil {
				assert.True(t, errors.Is(f, c.err), "errors.Is(%v, %v) = false; want true", f, c.err)
			} else {
				assert.Nil(t, errors.Unwrap(f), "a wrong scope wraps no Verify error")
			}
		})
	}
}
