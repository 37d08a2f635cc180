package proc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readyOn(word string) func(string) (bool, error) {
	return func(line string) (bool, error) { return strings.HasPrefix(line, word), nil }
}

func TestStartWaitsForReadyAndStopEndsTheGroup(t *testing.T) {
	// The shell starts a grandchild, as the Go probe's launcher does, and says READY with its pid.
	p := Start(t, Spec{
		Name:  "sh",
		Path:  "/bin/sh",
		Args:  []string{"-c", `echo oops >&2; sleep 60 & echo "READY $!"; wait`},
		Ready: readyOn("READY"),
	})
	child, err := strconv.Atoi(strings.Fields(p.ReadyLine())[1])
	require.NoError(t, err)
	require.True(t, Alive(child), "grandchild should run")
	assert.Contains(t, Descendants(p.Pid()), child, "Descendants(sh) = %v; want its grandchild %d", Descendants(p.Pid()), child)

	require.NoError(t, p.Stop())
	assert.True(t, p.Exited())
	assert.Eventually(t, func() bool { return !Alive(child) }, 2*time.Second, 10*time.Millisecond,
		"grandchild %d outlived Stop", child)
	assert.NotContains(t, LiveGroups(), p.Pid())
	assert.Contains(t, p.Log(), "stderr: oops")
	assert.NoError(t, p.Stop(), "a second Stop is a no-op")
}

func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	p := Start(t, Spec{
		Name:  "stubborn",
		Path:  "/bin/sh",
		Args:  []string{"-c", `trap '' TERM; echo READY; while :; do sleep 0.01; done`},
		Ready: readyOn("READY"),
		Grace: 200 * time.Millisecond,
	})
	err := p.Stop()
	assert.ErrorContains(t, err, "did not end within")
	assert.True(t, p.Exited())
}

// TestStopSignalsTheWholeGroup: SIGTERM reaches every member of the group, not only the leader,
// and a member that outlives it is killed with the group once the grace period is over, though
// the leader is what the grace period waits for.
func TestStopSignalsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "term")
	// The child notes SIGTERM, runs on, and says READY once it listens; the leader survives
	// SIGTERM too (a trap, not an ignored signal, which the child would inherit).
	child := filepath.Join(dir, "child.sh")
	require.NoError(t, os.WriteFile(child, []byte(`trap 'echo TERM >> "$1"' TERM; echo "READY $$"; while :; do sleep 0.01; done`+"\n"), 0o644))
	p := Start(t, Spec{
		Name:  "group",
		Path:  "/bin/sh",
		Args:  []string{"-c", `trap : TERM; sh "$0" "$1" & while :; do sleep 0.01; done`, child, marker},
		Ready: readyOn("READY"),
		Grace: 300 * time.Millisecond,
	})
	pid, err := strconv.Atoi(strings.Fields(p.ReadyLine())[1])
	require.NoError(t, err)
	require.True(t, Alive(pid), "the child should run")
	t.Cleanup(func() {
		if Alive(pid) { // a Stop that failed; the group cannot be reused while the child is in it
			_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		}
	})

	err = p.Stop()

	assert.ErrorContains(t, err, "did not end within 300ms of SIGTERM")
	got, _ := os.ReadFile(marker)
	assert.Equal(t, "TERM\n", string(got), "the child's record of signals = %q; want TERM (the group's SIGTERM)", got)
	assert.Eventually(t, func() bool { return !Alive(pid) }, 2*time.Second, 10*time.Millisecond,
		"child %d, which outlives SIGTERM, outlived Stop", pid)
}

// TestInterruptKillsLiveGroups runs this test binary again as a helper that starts a process and
// waits; Ctrl-C (SIGINT) to the helper must end that process too, and the helper must still die
// of the signal, as a test binary without this package would.
func TestInterruptKillsLiveGroups(t *testing.T) {
	if os.Getenv("PROC_TEST_INTERRUPT_HELPER") == "1" {
		// The child ignores SIGTERM, so the parent-death signal cannot end it: only the
		// interrupt handler's SIGKILL can.
		p := Start(t, Spec{Name: "sleeper", Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; echo READY; exec sleep 60"}, Ready: readyOn("READY")})
		fmt.Printf("CHILD %d\n", p.Pid())
		time.Sleep(time.Minute)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptKillsLiveGroups$", "-test.v")
	// The helper dies by a signal, before its clean-ups: its temporary folders go under this test's.
	cmd.Env = append(os.Environ(), "PROC_TEST_INTERRUPT_HELPER=1", "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	var child int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "CHILD %d", &child); err == nil {
			break
		}
	}
	require.NotZero(t, child, "helper never printed its child's pid")
	require.True(t, Alive(child))

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	go io.Copy(io.Discard, out)
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	ws := exit.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "helper ended with %v; want death by SIGINT", ws)
	assert.Eventually(t, func() bool { return !Alive(child) }, 2*time.Second, 10*time.Millisecond,
		"child %d outlived the interrupted test binary", child)
}

func TestStartFailures(t *testing.T) {
	never := time.Now().Add(time.Minute)
	cases := []struct {
		name string
		spec Spec
		by   time.Time
		want string
	}{
		{"exits first", Spec{Path: "/bin/sh", Args: []string{"-c", "echo starting; exit 3"}, Ready: readyOn("READY")}, never, "exited before it was ready"},
		{"says wrong", Spec{Path: "/bin/sh", Args: []string{"-c", "echo READY garbage; sleep 60"}, Ready: func(string) (bool, error) { return false, os.ErrInvalid }}, never, "invalid argument"},
		{"too slow", Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 60"}, Ready: readyOn("READY")}, time.Now().Add(300 * time.Millisecond), "not ready within"},
		{"no such command", Spec{Path: "/nonexistent/probe"}, never, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := start(context.Background(), c.spec, c.by)
			if p != nil {
				t.Cleanup(func() { _ = p.Stop() })
			}
			assert.ErrorContains(t, err, c.want)
		})
	}
}

func TestCleanEnv(t *testing.T) {
	t.Setenv("CLAIMS_SECRET_OF_THE_SHELL", "x")
	env := CleanEnv("GOMAXPROCS=2")
	assert.Contains(t, env, "GOMAXPROCS=2")
	assert.Contains(t, env, "PATH="+os.Getenv("PATH"))
	for _, kv := range env {
		assert.NotContains(t, kv, "CLAIMS_SECRET_OF_THE_SHELL")
	}
}

func TestRun(t *testing.T) {
	t.Run("returns stdout of a program that exits", func(t *testing.T) {
		out, err := Run(t, Spec{Name: "sh", Path: "/bin/sh", Args: []string{"-c", "echo one; echo two >&2; echo three"}}, 0)
		require.NoError(t, err)
		assert.Equal(t, []string{"one", "three"}, out)
	})
	t.Run("an exit status is an error carrying stderr", func(t *testing.T) {
		_, err := Run(t, Spec{Name: "sh", Path: "/bin/sh", Args: []string{"-c", "echo why >&2; exit 3"}}, 0)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "exit status 3")
		assert.Contains(t, err.Error(), "why")
	})
	t.Run("a program that runs too long is killed", func(t *testing.T) {
		started := time.Now()
		_, err := Run(t, Spec{Name: "sleeper", Path: "/bin/sh", Args: []string{"-c", "sleep 60"}, Grace: 100 * time.Millisecond}, 200*time.Millisecond)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "did not exit within")
		assert.Less(t, time.Since(started), 10*time.Second, "Run returned only after the sleep")
		assert.Empty(t, LiveGroups(), "the killed group is still tracked")
	})
}

func TestVarsAreSortedEntries(t *testing.T) {
	assert.Equal(t, []string{"A=1", "B=two", "C="}, Vars(map[string]string{"C": "", "A": "1", "B": "two"}))
	assert.Empty(t, Vars(nil))
}

// TestLaunchReturnsTheFailure: a process that exits before it is ready is Launch's error, not
// the test's failure, and nothing of it is left running.
func TestLaunchReturnsTheFailure(t *testing.T) {
	p, err := Launch(t, Spec{
		Name:  "quitter",
		Path:  "/bin/sh",
		Args:  []string{"-c", `sleep 60 & echo "CHILD $!"; exit 3`},
		Ready: readyOn("READY"),
		Grace: 200 * time.Millisecond,
	})
	assert.Nil(t, p, "process of a failed Launch")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "start quitter: exited before it was ready", "Launch error = %v; want it to name the process and why", err)
	assert.False(t, t.Failed(), "a failed Launch failed the test")
	assert.Empty(t, LiveGroups(), "groups left running after a failed Launch")
}
