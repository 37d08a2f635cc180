package dynalite

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/tlsca"
)

// listTables sends DynamoDB's ListTables over the TLS front, as an SDK would (the stand-in checks
// that a request is signed in form, not the signature).
func listTables(t *testing.T, s *Server, client *http.Client) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.Endpoint, strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=00")
	return client.Do(req)
}

func trusting(s *Server) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}}}
}

func TestStandInAnswersOverTLSWithTheRunTimeCA(t *testing.T) {
	for _, key := range tlsca.KeyKinds() {
		t.Run(string(key), func(t *testing.T) {
			s := Start(t, Options{Key: key})
			assert.True(t, strings.HasPrefix(s.Endpoint, "https://127.0.0.1:"), "endpoint = %s; want https on loopback", s.Endpoint)
			resp, err := listTables(t, s, trusting(s))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "ListTables status = %d; want 200 (%s)", resp.StatusCode, body)
			assert.Contains(t, string(body), "TableNames")
			assert.Equal(t, 1, s.Handshakes(), "handshakes the stand-in counted")
			require.NotEmpty(t, resp.TLS.PeerCertificates)
			assert.Equal(t, keyAlgorithm(key), resp.TLS.PeerCertificates[0].PublicKeyAlgorithm.String())
		})
	}
}

func keyAlgorithm(k tlsca.KeyKind) string {
	if k == tlsca.RSA2048 {
		return "RSA"
	}
	return "ECDSA"
}

// TestHandshakeDelayHoldsEachNewConnectionsHandshake: with a HandshakeDelay, a new connection's
// handshake ends no sooner than the delay after it began (the sleep's lower bound, not a
// timing), and a request on the pooled connection after it makes no handshake to hold.
func TestHandshakeDelayHoldsEachNewConnectionsHandshake(t *testing.T) {
	const delay = 200 * time.Millisecond
	s := Start(t, Options{HandshakeDelay: delay})
	client := trusting(s)
	var first time.Duration
	for i := range 2 {
		began := time.Now()
		resp, err := listTables(t, s, client)
		require.NoError(t, err, "request %d", i)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if i == 0 {
			first = time.Since(began)
		}
	}
	assert.GreaterOrEqual(t, first, delay, "the first request, with its handshake, took %v; want at least the delay %v", first, delay)
	assert.Equal(t, 1, s.Handshakes(), "handshakes = %d; want 1, the second request on the pooled connection", s.Handshakes())
}

func TestAClientWithoutTheCAIsRefused(t *testing.T) {
	s := Start(t, Options{})
	_, err := listTables(t, s, &http.Client{Timeout: 10 * time.Second})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate", "error = %v; want a certificate error", err)
}

func TestDownRefusesAndUpRestores(t *testing.T) {
	s := Start(t, Options{})
	client := trusting(s)
	resp, err := listTables(t, s, client)
	require.NoError(t, err)
	resp.Body.Close()

	s.Down()
	_, err = net.DialTimeout("tcp", strings.TrimPrefix(s.Endpoint, "https://"), time.Second)
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "dial while down: %v; want connection refused", err)
	client.CloseIdleConnections()
	_, err = listTables(t, s, client)
	assert.Error(t, err, "a request while down must fail")

	require.NoError(t, s.Up())
	resp, err = listTables(t, s, client)
	require.NoError(t, err, "a request after Up")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestStallAcceptsAndNeverAnswers(t *testing.T) {
	s := Start(t, Options{})
	require.NoError(t, s.Stall())
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	require.NoError(t, err, "a stalled stand-in still accepts")
	defer c.Close()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	tc := tls.Client(c, &tls.Config{RootCAs: s.CA.Pool(), ServerName: "127.0.0.1"})
	err = tc.Handshake()
	var ne net.Error
	assert.True(t, errors.As(err, &ne) && ne.Timeout(), "handshake with a stalled stand-in: %v; want a timeout", err)

	require.NoError(t, s.Up())
	resp, err := listTables(t, s, trusting(s))
	require.NoError(t, err, "a request after Up")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestABadKeyKindIsRefused(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Start(ft, Options{Key: "dsa"})
	}()
	assert.Contains(t, ft.msg, `key = "dsa"`, "the failure names the setting")
}

// fatalRecorder catches Fatalf, so a test can read the message of a start that must fail.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

// sdkClient is the SDK's DynamoDB client of the stand-in, trusting its CA, with static
// credentials (dynalite checks that a request is signed in form only).
func sdkClient(t *testing.T, s *Server) *dynamodb.Client {
	t.Helper()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDCLAIMSSTANDIN", "claims-standin-secret", ""),
		HTTPClient:   trusting(s),
		Retryer:      aws.NopRetryer{},
	})
}

// TestDenyAnswersAccessDeniedUntilItLifts: while Deny says so the front answers DynamoDB's
// AccessDeniedException, which the SDK decodes by its code with the request id, on the same
// connection as often as asked; once Deny lifts, the next request reaches dynalite.
func TestDenyAnswersAccessDeniedUntilItLifts(t *testing.T) {
	var denied atomic.Bool
	denied.Store(true)
	s := Start(t, Options{Deny: denied.Load})
	c := sdkClient(t, s)

	for i := range 2 {
		_, err := c.ListTables(t.Context(), &dynamodb.ListTablesInput{})
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "ListTables %d while denied: error = %v; want an API error", i, err)
		assert.Equal(t, "AccessDeniedException", api.ErrorCode(), "error code = %s; want AccessDeniedException (%v)", api.ErrorCode(), err)
		assert.Contains(t, api.ErrorMessage(), "dynamodb:ListTables", "the message names the action")
		var re *awshttp.ResponseError
		require.True(t, errors.As(err, &re), "error = %v; want an HTTP response error", err)
		assert.Equal(t, http.StatusBadRequest, re.HTTPStatusCode(), "status of AccessDeniedException")
		assert.Len(t, re.ServiceRequestID(), 52, "request id = %q; want DynamoDB's 52 characters", re.ServiceRequestID())
	}

	denied.Store(false)
	out, err := c.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err, "ListTables once Deny lifted")
	assert.NotNil(t, out.TableNames, "dynalite's answer")
}

// TestDeniedAnswersKeepTheConnection: the front answers denied requests on the connection they
// came on, which is forwarded to dynalite, byte for byte, from the first request allowed.
func TestDeniedAnswersKeepTheConnection(t *testing.T) {
	var denied atomic.Bool
	denied.Store(true)
	s := Start(t, Options{Deny: denied.Load})
	client := trusting(s)
	send := func(want int) {
		t.Helper()
		resp, err := listTables(t, s, client)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body) // read to its end, so the connection is reused
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, want, resp.StatusCode, "ListTables status = %d; want %d (%s)", resp.StatusCode, want, body)
		if want == http.StatusBadRequest {
			assert.Contains(t, string(body), `"__type":"com.amazonaws.dynamodb.v20120810#AccessDeniedException"`)
			assert.Equal(t, "application/x-amz-json-1.0", resp.Header.Get("Content-Type"))
			assert.NotEmpty(t, resp.Header.Get("x-amzn-RequestId"), "the request id header")
		}
	}
	send(http.StatusBadRequest)
	send(http.StatusBadRequest)
	denied.Store(false)
	send(http.StatusOK)
	send(http.StatusOK)
	assert.Equal(t, 1, s.Handshakes(), "handshakes = %d; want 1 (one connection, denied and then forwarded)", s.Handshakes())
}
