//go:build lambda

package eventloop

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/proc"
)

// TestWebRunInterruptedLeavesNothing: Ctrl-C while a routing claim runs against the local router
// ends every process the run started (the probes behind the router, the Go probe's launcher and
// binary) and leaves no temporary file.
func TestWebRunInterruptedLeavesNothing(t *testing.T) {
	if os.Getenv(standInEnv) != "1" {
		t.Skipf("interrupts a run against the local router: needs %s=1", standInEnv)
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWebLowerConcurrencyFewerCoLocated$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, results.DirEnv+"="+t.TempDir(), "CLAIMS_TRIALS=50")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start(), "starting the run")
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})

	// W12 runs the Go probe behind its Node launcher: two environments are four processes.
	var started []int
	require.Eventually(t, func() bool {
		started = proc.Descendants(cmd.Process.Pid)
		return len(started) >= 4
	}, 2*time.Minute, 20*time.Millisecond, "the run started %v within 2 minutes; want both environments' launcher and probe; its output:\n%s", started, &out)
	time.Sleep(time.Second) // into the trials: the router is up and a /cpu is spinning
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("the interrupted run did not end within a minute; its output:\n%s", &out)
	}
	assert.NotZero(t, cmd.ProcessState.ExitCode(), "exit status = 0; want the interrupt's")
	for _, pid := range started {
		assert.Eventually(t, func() bool { return !proc.Alive(pid) }, 10*time.Second, 20*time.Millisecond,
			"process %d the run started is alive 10 s after the run was interrupted", pid)
	}
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "files left in the run's TMPDIR after the interrupt")
}
