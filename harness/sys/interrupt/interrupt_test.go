package interrupt

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary re-runs itself as the helper: it registers two hooks that each write a file,
// then interrupts itself.
const helperEnv = "INTERRUPT_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		OnSignal(func() { _ = os.WriteFile(filepath.Join(dir, "first"), nil, 0o644) })
		OnSignal(func() { _ = os.WriteFile(filepath.Join(dir, "second"), nil, 0o644) })
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(10 * time.Second) // the signal ends the helper long before this
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestEveryHookRunsAndTheSignalStillKills(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	err := cmd.Run()

	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "helper error = %v; want death by SIGINT", err)
	status := exit.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled() && status.Signal() == syscall.SIGINT, "helper ended with %v; want killed by SIGINT", status)
	assert.FileExists(t, filepath.Join(dir, "first"), "the first hook did not run")
	assert.FileExists(t, filepath.Join(dir, "second"), "the second hook did not run")
}
