package settings

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromEnvDefaultsToTheArticle(t *testing.T) {
	t.Setenv(TrialsEnv, "")
	s, err := FromEnv()
	require.Error(t, err, "set but empty is not unset")

	for _, v := range []string{TrialsEnv, SpinEnv, PauseEnv, PeriodEnv, ColdStartsEnv, FunctionTimeoutEnv} {
		t.Setenv(v, "1") // registers the restore; then unset for real
	}
	unset(t, TrialsEnv, SpinEnv, PauseEnv, PeriodEnv, ColdStartsEnv, FunctionTimeoutEnv)
	s, err = FromEnv()
	require.NoError(t, err)
	assert.Equal(t, Article(), s)
}

func TestFromEnvReads(t *testing.T) {
	t.Setenv(TrialsEnv, "8")
	t.Setenv(SpinEnv, "300")
	t.Setenv(PauseEnv, "0")
	t.Setenv(PeriodEnv, "20")
	t.Setenv(ColdStartsEnv, "6")
	t.Setenv(FunctionTimeoutEnv, "300")
	s, err := FromEnv()
	require.NoError(t, err)
	assert.Equal(t, Settings{Trials: 8, SpinMs: 300, Pause: 0, CPUPeriod: 20 * time.Millisecond, ColdStarts: 6, FunctionTimeout: 300 * time.Second}, s)
}

func TestFromEnvRefusesNonsenseNamingTheVariable(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{TrialsEnv, "0"}, {TrialsEnv, "abc"}, {TrialsEnv, "1.5"}, {TrialsEnv, "1001"},
		{SpinEnv, "50"}, {SpinEnv, "-500"}, {PauseEnv, "-1"}, {PauseEnv, "5s"},
		{PeriodEnv, "0"}, {PeriodEnv, "1001"}, {PeriodEnv, "100ms"},
		{ColdStartsEnv, "4"}, {ColdStartsEnv, "x"},
		{FunctionTimeoutEnv, "0"}, {FunctionTimeoutEnv, "901"}, {FunctionTimeoutEnv, "30s"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			_, err := FromEnv()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.name)
		})
	}
}

func TestPauseMs(t *testing.T) {
	assert.Equal(t, 500, Settings{Pause: 500 * time.Millisecond}.PauseMs())
}

// unset removes variables that t.Setenv has already registered for restoring.
func unset(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		require.NoError(t, os.Unsetenv(n))
	}
}
