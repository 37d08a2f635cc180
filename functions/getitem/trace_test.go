package main

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceSeesTheSDKsOwnHandshakeThenReuse is claim T6's mechanism: the hooks ride on the SDK's
// own request, so the first call shows the connection being made (a TLS handshake, not reused)
// and the second, on the same client, shows the pooled connection (reused, no handshake).
func TestTraceSeesTheSDKsOwnHandshakeThenReuse(t *testing.T) {
	fake := startFakeDynamoDB(t)
	useEndpoint(t, fake.URL)
	client, err := newClient(context.Background(), testSettings(t, fake, variantCold, nil))
	require.NoError(t, err)

	call := func() Phases {
		ctx, tr := withTrace(context.Background())
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(fakeTable), Key: mustKey(t, fakeKey)})
		tr.finish()
		require.NoError(t, err)
		require.NotEmpty(t, out.Item, "the fake's item")
		return tr.phases()
	}

	first := call()
	assert.False(t, first.Reused, "first call reused = true; want false")
	assert.Greater(t, first.TLSMs, 0.0, "first call tlsMs = %v; want > 0", first.TLSMs)
	assert.Greater(t, first.ConnectMs, 0.0, "first call connectMs = %v; want > 0", first.ConnectMs)
	assert.Zero(t, first.DNSMs, "first call dnsMs = %v; want 0 (the endpoint is an IP literal)", first.DNSMs)
	assert.Greater(t, first.TTFBMs, first.TLSMs, "first call ttfbMs = %v; want more than its tlsMs %v", first.TTFBMs, first.TLSMs)
	assert.GreaterOrEqual(t, first.TotalMs, first.TTFBMs, "first call totalMs = %v; want at least its ttfbMs %v", first.TotalMs, first.TTFBMs)
	assert.Equal(t, 1, first.Attempts, "first call attempts = %d; want 1", first.Attempts)
	assert.Equal(t, "TLS 1.3", first.TLSVersion, "first call tlsVersion = %q; want TLS 1.3", first.TLSVersion)
	assert.NotEmpty(t, first.Curve, "first call curve is empty; want the key exchange's group")
	assert.True(t, first.Pooled, "first call pooled = false; want true (writeError %q)", first.WriteError)
	assert.Empty(t, first.WriteError, "first call writeError = %q; want none", first.WriteError)
	assert.Equal(t, fake.Listener.Addr().String(), first.RemoteAddr, "first call remoteAddr = %q; want the fake's", first.RemoteAddr)

	second := call()
	assert.True(t, second.Reused, "second call reused = false; want true")
	assert.Zero(t, second.TLSMs, "second call tlsMs = %v; want 0", second.TLSMs)
	assert.Zero(t, second.ConnectMs, "second call connectMs = %v; want 0", second.ConnectMs)
	assert.Greater(t, second.TTFBMs, 0.0, "second call ttfbMs = %v; want > 0", second.TTFBMs)
	assert.Equal(t, first.TLSVersion, second.TLSVersion, "second call tlsVersion = %q; want the first's %q (same connection)", second.TLSVersion, first.TLSVersion)
	assert.Equal(t, int64(1), fake.Conns(), "connections the server accepted = %d; want 1", fake.Conns())
}

// TestTraceWithoutFinishHasNoTotal: totalMs is the caller's measure, so a tracer that was never
// finished says 0 rather than a time that keeps growing.
func TestTraceWithoutFinishHasNoTotal(t *testing.T) {
	_, tr := withTrace(context.Background())
	p := tr.phases()
	assert.Zero(t, p.TotalMs, "totalMs before finish = %v; want 0", p.TotalMs)
	assert.Zero(t, p.Attempts, "attempts with no request = %d; want 0", p.Attempts)
}

// mustKey parses a CLAIMS_KEY value.
func mustKey(t *testing.T, v string) map[string]types.AttributeValue {
	t.Helper()
	k, err := parseKey(v)
	require.NoError(t, err)
	return k
}
