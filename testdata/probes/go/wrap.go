//go:build !brokenserialize

package main

import "net/http"

// wrap is the identity: every request runs in its own goroutine, as net/http does by default.
// The brokenserialize build (broken_serialize.go) replaces it to break claims W4 and W5.
func wrap(h http.Handler) http.Handler { return h }
