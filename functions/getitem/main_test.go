package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainHelperEnv makes the test binary run main instead of the tests, so that main's exits can
// be tested without building the bootstrap.
const mainHelperEnv = "GETITEM_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainHelperEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMainRejectsBadSettingsBeforeStart: a wrong setting ends the process with status 2 and a
// message naming it, before lambda.Start (which, outside Lambda, would fail for another reason:
// no runtime API).
func TestMainRejectsBadSettingsBeforeStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"unknown variant", []string{"CLAIMS_VARIANT=lukewarm", "CLAIMS_TABLE=t", `CLAIMS_KEY={"pk":"a"}`}, `getitem: CLAIMS_VARIANT = "lukewarm"; want "cold" or "warm"`},
		{"no variant", []string{"CLAIMS_TABLE=t", `CLAIMS_KEY={"pk":"a"}`}, `getitem: CLAIMS_VARIANT = ""`},
		{"bad CA file", []string{"CLAIMS_VARIANT=cold", "CLAIMS_TABLE=t", `CLAIMS_KEY={"pk":"a"}`, "CLAIMS_CA_FILE=/nonexistent/ca.pem", "AWS_REGION=ap-northeast-1"}, "getitem: CLAIMS_CA_FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append([]string{mainHelperEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.WaitDelay = time.Second
			err := cmd.Run()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "run = %v; want an exit status (stderr %q)", err, stderr.String())
			assert.Equal(t, 2, exit.ExitCode(), "exit status = %d; want 2 (stderr %q)", exit.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
			assert.NotContains(t, stderr.String(), "AWS_LAMBDA_RUNTIME_API", "it reached lambda.Start")
		})
	}
}

// TestStartTicks reads starttime from /proc/PID/stat text, including a command name with spaces
// and parentheses, which would shift a naive split.
func TestStartTicks(t *testing.T) {
	stat := "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615"
	got, err := startTicks(stat)
	require.NoError(t, err)
	assert.Equal(t, uint64(987654), got, "starttime = %d; want 987654", got)

	_, err = startTicks("4242 (short) S 1 2")
	assert.ErrorContains(t, err, "fields after the command name")
	_, err = startTicks("garbage")
	assert.ErrorContains(t, err, "no command name")
}

// TestMeasureInitFromTheKernelsStart: this test process started before its tests, so the
// kernel's start is at least as early as goStart (less one clock tick, its resolution), and not
// long before.
func TestMeasureInitFromTheKernelsStart(t *testing.T) {
	m := measureInit(time.Now())
	require.Equal(t, "proc", m.From, "initFrom = %q; want proc", m.From)
	assert.GreaterOrEqual(t, m.Ms, m.GoMs-1000.0/clockTicks, "initMs = %v; want at least initGoMs %v less a tick", m.Ms, m.GoMs)
	assert.Less(t, m.Ms, m.GoMs+60_000, "initMs = %v; want within a minute of initGoMs %v", m.Ms, m.GoMs)
}
