// Package settings reads the experiments' run settings from the environment and refuses any that
// make no sense, naming the variable, before anything starts. Unset variables take the article's
// values; `make test` sets fewer trials (see the README).
package settings

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// The variables.
const (
	TrialsEnv = "CLAIMS_TRIALS"   // trials per pattern; the article ran 20
	SpinEnv   = "CLAIMS_SPIN_MS"  // how long each /cpu spins; the article's 500
	PauseEnv  = "CLAIMS_PAUSE_MS" // pause between trials; the article's 500
)

// Settings are one run's parameters.
type Settings struct {
	Trials int           `json:"trials"`
	SpinMs int           `json:"spinMs"`
	Pause  time.Duration `json:"-"`
}

// Article is the source article's parameters.
func Article() Settings { return Settings{Trials: 20, SpinMs: 500, Pause: 500 * time.Millisecond} }

// Limits of each setting. The spin must outlast the "all busy" pattern's 65 ms of offsets by a
// clear margin, or the /ping would not arrive while both /cpu run.
const (
	maxTrials = 1000
	minSpinMs = 100
	maxSpinMs = 10_000
	maxPause  = 60_000
)

// FromEnv reads the settings; an unset variable takes the article's value, and a value that is not
// an integer in its range is an error naming the variable.
func FromEnv() (Settings, error) {
	s := Article()
	var err error
	if s.Trials, err = intVar(TrialsEnv, s.Trials, 1, maxTrials); err != nil {
		return Settings{}, err
	}
	if s.SpinMs, err = intVar(SpinEnv, s.SpinMs, minSpinMs, maxSpinMs); err != nil {
		return Settings{}, err
	}
	pauseMs, err := intVar(PauseEnv, int(s.Pause/time.Millisecond), 0, maxPause)
	if err != nil {
		return Settings{}, err
	}
	s.Pause = time.Duration(pauseMs) * time.Millisecond
	return s, nil
}

func intVar(name string, def, lo, hi int) (int, error) {
	raw, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s = %q: want an integer from %d to %d", name, raw, lo, hi)
	}
	return v, nil
}

// PauseMs is the pause in milliseconds, for results.
func (s Settings) PauseMs() int { return int(s.Pause / time.Millisecond) }

// RunTests is an experiment package's TestMain body: it reads the settings into s and runs the
// tests, or, when a setting makes no sense, says so naming the variable and returns exit status
// 2 before any test (and any process) starts. what names the package in that message.
func RunTests(m *testing.M, what string, s *Settings) int {
	var err error
	if *s, err = FromEnv(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		return 2
	}
	return m.Run()
}
