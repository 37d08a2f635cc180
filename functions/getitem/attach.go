//go:build !brokentrace

package main

import (
	"context"
	"net/http/httptrace"
)

// attach puts the trace on the context the SDK's call runs with, so that its hooks see the SDK's
// own connection.
func attach(ctx context.Context, ct *httptrace.ClientTrace) context.Context {
	return httptrace.WithClientTrace(ctx, ct)
}
