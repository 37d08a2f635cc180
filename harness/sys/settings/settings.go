// Package settings reads the experiments' run settings from the environment and refuses any that
// make no sense, naming the variable, before anything starts. Unset variables take the article's
// values; `make test` sets fewer trials (see the README).
package settings

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// The variables.
const (
	TrialsEnv = "CLAIMS_TRIALS"   // trials per pattern; the article ran 20
	SpinEnv   = "CLAIMS_SPIN_MS"  // how long each /cpu spins; the article's 500
	PauseEnv  = "CLAIMS_PAUSE_MS" // pause between trials; the article's 500
	// PeriodEnv is the CFS period of the CPU quota that stands in for a Lambda memory size's
	// CPU share (the cold-start claims); 20 ms unless set, as Lambda's has been measured
	// (DefaultCPUPeriod).
	PeriodEnv = "CLAIMS_CPU_PERIOD_MS"
	// ColdStartsEnv is the number of cold starts per variant and memory size of the claims
	// about a CPU share; the article forced four.
	ColdStartsEnv = "CLAIMS_COLD_STARTS"
	// FunctionTimeoutEnv is the cold-start claims' local platform's function timeout, in whole
	// seconds as Lambda takes one. No claim rests on it; a machine much slower than the one the
	// default was set for (the runner stand-in's guest under QEMU's TCG, docs/runner.md) sets a
	// longer one.
	FunctionTimeoutEnv = "CLAIMS_FUNCTION_TIMEOUT_S"
)

// Settings are one run's parameters.
type Settings struct {
	Trials int           `json:"trials"`
	SpinMs int           `json:"spinMs"`
	Pause  time.Duration `json:"-"`
	// CPUPeriod is the CPU quota's CFS period.
	CPUPeriod time.Duration `json:"-"`
	// ColdStarts is the number of cold starts per variant and memory size where a CPU quota
	// decides the claim. Under a quota a phase's time holds a whole number of throttles, so
	// these claims are decided on means with bootstrap intervals, which need more samples than
	// an ordering does: the default is 20 even where CLAIMS_TRIALS is lower.
	ColdStarts int `json:"coldStarts"`
	// FunctionTimeout is the local platform's function timeout; zero, where FunctionTimeoutEnv
	// is unset, leaves the platform its own (harness/lambda/lambdalocal's DefaultTimeout).
	FunctionTimeout time.Duration `json:"-"`
}

// DefaultCPUPeriod is Lambda's CPU period as far as it has been measured: a busy loop's stalls on
// Lambda end on a 20 ms grid (the pwrdrvr/lambda-throttling project, run of 2025-03-01; its
// author says so in pwrdrvr/lambda-dispatch issue 246). Claim T8 measures the model against it.
const DefaultCPUPeriod = 20 * time.Millisecond

// Article is the source article's parameters, and Lambda's measured CPU period, which the
// article could not see.
func Article() Settings {
	return Settings{Trials: 20, SpinMs: 500, Pause: 500 * time.Millisecond, CPUPeriod: DefaultCPUPeriod, ColdStarts: 20}
}

// Limits of each setting. The spin must outlast the "all busy" pattern's 65 ms of offsets by a
// clear margin, or the /ping would not arrive while both /cpu run.
const (
	maxTrials = 1000
	minSpinMs = 100
	maxSpinMs = 10_000
	maxPause  = 60_000
	// The kernel takes CFS periods from 1 ms to 1 s. Whether a memory size's quota (its share
	// of the period) reaches the kernel's 1 ms minimum is checked where the quota is made.
	minPeriodMs = 1
	maxPeriodMs = 1000
)

// MaxFunctionTimeout is Lambda's largest function timeout, 15 minutes: the most that
// FunctionTimeoutEnv takes, and that the local platform (harness/lambda/lambdalocal) gives a
// function.
const MaxFunctionTimeout = 900 * time.Second

// MinColdStarts is the fewest cold starts per variant and size that CLAIMS_COLD_STARTS takes,
// and that a claim about a CPU share is decided on: fewer leave a bootstrap interval too wide
// to decide.
const MinColdStarts = 5

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
	periodMs, err := intVar(PeriodEnv, int(s.CPUPeriod/time.Millisecond), minPeriodMs, maxPeriodMs)
	if err != nil {
		return Settings{}, err
	}
	s.CPUPeriod = time.Duration(periodMs) * time.Millisecond
	if s.ColdStarts, err = intVar(ColdStartsEnv, s.ColdStarts, MinColdStarts, maxTrials); err != nil {
		return Settings{}, err
	}
	timeoutS, err := intVar(FunctionTimeoutEnv, 0, 1, int(MaxFunctionTimeout/time.Second))
	if err != nil {
		return Settings{}, err
	}
	s.FunctionTimeout = time.Duration(timeoutS) * time.Second
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
