package claimtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/serverless-claims/claims/harness/sys/settings"
)

// Main is an experiment package's TestMain body: it reads the settings into s and runs the
// tests, or, when a setting makes no sense (by settings.FromEnv, or by one of the package's own
// checks), says so naming the variable and returns exit status 2 before any test (and any
// process) starts. what names the package in that message.
func Main(m *testing.M, what string, s *settings.Settings, checks ...func(settings.Settings) error) int {
	var err error
	if *s, err = settings.FromEnv(); err == nil {
		for _, check := range checks {
			if err = check(*s); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		return 2
	}
	return m.Run()
}
