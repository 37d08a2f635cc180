//go:build brokentrace

package main

import (
	"context"
	"net/http/httptrace"
)

// attach, in the deliberately broken build (-tags brokentrace), leaves the trace off the SDK's
// call: the function then reports phases of no connection at all, which the T6 claim test must
// catch (experiments/coldstart's sensitivity test).
func attach(ctx context.Context, _ *httptrace.ClientTrace) context.Context {
	return ctx
}
