//go:build !linux

package main

import (
	"errors"
	"time"
)

// sinceProcessStart needs Linux: /proc/self/stat and CLOCK_BOOTTIME are Linux's. The function
// runs on Lambda's Linux; built elsewhere (a vet on macOS), measureInit falls back to Go's clock.
func sinceProcessStart() (time.Duration, error) {
	return 0, errors.New("needs Linux: the process's start time comes from /proc/self/stat and CLOCK_BOOTTIME")
}
