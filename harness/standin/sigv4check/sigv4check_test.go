package sigv4check

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	keyID  = "AKIDCLAIMSSTANDIN"
	secret = "claims-standin-secret"
)

var keys = Keys{keyID: secret}

// verified is what the server saw of one request.
type verified struct {
	scope Scope
	err   error
}

// server answers every request with 200 after verifying it, and sends what it found on the
// returned channel.
func server(t *testing.T) (*httptest.Server, <-chan verified) {
	t.Helper()
	seen := make(chan verified, 16)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			seen <- verified{err: err}
			return
		}
		scope, err := keys.Verify(r, body)
		seen <- verified{scope, err}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{"TableNames":[]}`))
	}))
	t.Cleanup(s.Close)
	return s, seen
}

// signed builds a request to url signed with the given secret; tamper, when set, changes the
// request after signing.
func signed(t *testing.T, url, sec string, body string, tamper func(*http.Request)) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Custom", "a  b")
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: sec}
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, r, hex.EncodeToString(sum[:]), "lambda", "us-east-1", time.Now()))
	if tamper != nil {
		tamper(r)
	}
	return r
}

func send(t *testing.T, r *http.Request, seen <-chan verified) verified {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return <-seen
}

func TestTheSDKClientsSignaturePasses(t *testing.T) {
	s, seen := server(t)
	c := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secret, ""),
	})
	_, err := c.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	v := <-seen
	assert.NoError(t, v.err, "Verify of the SDK's own request")
	assert.Equal(t, Scope{AccessKeyID: keyID, Date: time.Now().UTC().Format("20060102"), Region: "us-east-1", Service: "dynamodb"}, v.scope)
}

func TestVerify(t *testing.T) {
	s, seen := server(t)
	// An ARN in the path, escaped as the Lambda client escapes ListTags's, and a query.
	url := s.URL + "/2017-03-31/tags/arn%3Aaws%3Alambda%3Aus-east-1%3A123456789012%3Afunction%3Ax?Marker=a%2Fb&MaxItems=2"
	for _, c := range []struct {
		name   string
		secret string
		tamper func(*http.Request)
		want   error
	}{
		{name: "valid", secret: secret},
		{name: "wrong secret", secret: "not-the-secret", want: ErrBadSignature},
		{name: "unknown key", secret: secret, want: ErrUnknownKey, tamper: func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), keyID, "AKIDSOMEONEELSE", 1))
		}},
		{name: "no header", secret: secret, want: ErrUnsigned, tamper: func(r *http.Request) { r.Header.Del("Authorization") }},
		{name: "garbled header", secret: secret, want: ErrUnsigned, tamper: func(r *http.Request) { r.Header.Set("Authorization", "Bearer x") }},
		{name: "signed header changed", secret: secret, want: ErrBadSignature, tamper: func(r *http.Request) { r.Header.Set("X-Custom", "c") }},
		{name: "body changed", secret: secret, want: ErrBadSignature, tamper: func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader([]byte(`{"a":2}`))), 7
		}},
		{name: "query changed", secret: secret, want: ErrBadSignature, tamper: func(r *http.Request) { r.URL.RawQuery = "Marker=a%2Fb&MaxItems=3" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := send(t, signed(t, url, c.secret, `{"a":1}`, c.tamper), seen)
			if c.want == nil {
				assert.NoError(t, v.err, "Verify of a valid request")
				assert.Equal(t, "lambda", v.scope.Service, "scope = %+v; want service lambda", v.scope)
				return
			}
			assert.True(t, errors.Is(v.err, c.want), "Verify error = %v; want %v", v.err, c.want)
		})
	}
}
