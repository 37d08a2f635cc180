//go:build brokenserialize

package main

import (
	"net/http"
	"sync"
)

// This file builds a deliberately broken probe for the experiments' sensitivity tests: every
// request holds one mutex for its whole handler, so /ping waits behind /cpu the way a
// single-threaded event loop would. TestGoPingDoesNotWait must fail against it.

var serial sync.Mutex

func wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serial.Lock()
		defer serial.Unlock()
		h.ServeHTTP(w, r)
	})
}
