package lambdaapi

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// updateMemory changes name's memory size and its variables, and waits until the update is done.
func updateMemory(t *testing.T, c *lambda.Client, name string, memory int32) {
	t.Helper()
	_, err := c.UpdateFunctionConfiguration(t.Context(), &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String(name), MemorySize: aws.Int32(memory),
		Environment: &types.Environment{Variables: map[string]string{"CLAIMS_COLD_START": fmt.Sprint(memory)}},
	})
	require.NoError(t, err)
	waitUpdated(t, c, name)
}

// alive says whether pid runs (a zombie counts as ended), and its state letter.
func alive(pid int) (bool, string) {
	state, ok := processState(pid)
	return ok && state != "Z", state
}

// TestFunctionsInTurnKeepTheirEnvironmentsWhereUpdatesKeepThem: two functions invoked in turn,
// each updated before each of its invokes after the first. With KeepEnvironmentsOnUpdate, each
// keeps its environment: the other's invoke freezes it (its process stopped, taking no CPU)
// and its own next invoke thaws it, served warm by the same process, its count of invocations
// going on. Without, every invoke is a cold start in a fresh process, the other function's
// environment ended. A frozen environment is ended on Delete and when the server ends.
func TestFunctionsInTurnKeepTheirEnvironmentsWhereUpdatesKeepThem(t *testing.T) {
	names := []string{"claims-0badcafe-turn-a", "claims-0badcafe-turn-b"}
	const rounds = 3
	// inTurn creates both functions and invokes them in turn, rounds times, each update before
	// an invoke's round; it returns each function's invokes and asserts on the other's
	// environment after each, with check.
	inTurn := func(t *testing.T, c *lambda.Client, check func(t *testing.T, other tailed)) map[string][]tailed {
		t.Helper()
		for _, n := range names {
			create(t, c, n)
		}
		got := map[string][]tailed{}
		for round := range rounds {
			for i, n := range names {
				if round > 0 {
					updateMemory(t, c, n, int32(128+64*round))
				}
				inv := invoke(t, c, n)
				require.NotZero(t, inv.pid, "invoke %d of %s answered no pid (%q)", round+1, n, inv.log)
				got[n] = append(got[n], inv)
				if other := got[names[1-i]]; len(other) > 0 {
					check(t, other[len(other)-1])
				}
			}
		}
		return got
	}

	t.Run("KeepEnvironmentsOnUpdate", func(t *testing.T) {
		var frozen []int
		t.Run("in turn", func(t *testing.T) {
			s, c := start(t, func(o *Options) { o.KeepEnvironmentsOnUpdate = true })
			got := inTurn(t, c, func(t *testing.T, other tailed) {
				running, state := alive(other.pid)
				assert.True(t, running && (state == "T" || state == "t"), "state of the other function's process %d = %q (running %v); want stopped (T): frozen, taking no CPU", other.pid, state, running)
			})
			for _, n := range names {
				first := got[n][0]
				assert.True(t, reportOf(t, first).Cold(), "%s's first invoke cold = false; want Init Duration (%q)", n, first.log)
				for i, inv := range got[n][1:] {
					assert.Equal(t, first.pid, inv.pid, "%s's invoke %d pid = %d; want %d, its kept environment", n, i+2, inv.pid, first.pid)
					assert.False(t, reportOf(t, inv).Cold(), "%s's invoke %d cold = true; want no Init Duration (%q)", n, i+2, inv.log)
					assert.Equal(t, i+2, inv.invocations, "%s's invoke %d: the process's invocations = %d; want %d", n, i+2, inv.invocations, i+2)
				}
				frozen = append(frozen, first.pid)
			}
			assert.Equal(t, 2, s.Environments(), "environments of two functions in turn = %d; want 2, one frozen", s.Environments())

			// Delete the frozen one (a, since b ran last): its process ends, stopped as it was.
			_, err := c.DeleteFunction(t.Context(), &lambda.DeleteFunctionInput{FunctionName: aws.String(names[0])})
			require.NoError(t, err)
			running, state := alive(frozen[0])
			assert.False(t, running, "%s's frozen process %d after DeleteFunction: state %q; want ended", names[0], frozen[0], state)
			assert.Equal(t, 1, s.Environments(), "environments after deleting the frozen one = %d; want 1", s.Environments())

			// Freeze b too, behind a third function, for the server's end to find.
			create(t, c, "claims-0badcafe-turn-c")
			running, state = alive(frozen[1])
			require.True(t, running && (state == "T" || state == "t"), "%s's process %d after another create: state %q; want stopped (T)", names[1], frozen[1], state)
		})
		running, state := alive(frozen[1])
		assert.False(t, running, "%s's frozen process %d after the server ended: state %q; want ended", names[1], frozen[1], state)
	})

	t.Run("default", func(t *testing.T) {
		s, c := start(t)
		got := inTurn(t, c, func(t *testing.T, other tailed) {
			running, state := alive(other.pid)
			assert.False(t, running, "the other function's process %d: state %q; want ended, one environment at a time", other.pid, state)
		})
		pids := map[int]bool{}
		for _, n := range names {
			for i, inv := range got[n] {
				assert.True(t, reportOf(t, inv).Cold(), "%s's invoke %d cold = false; want Init Duration (%q)", n, i+1, inv.log)
				assert.Equal(t, 1, inv.invocations, "%s's invoke %d: the process's invocations = %d; want 1, a fresh environment", n, i+1, inv.invocations)
				assert.False(t, pids[inv.pid], "%s's invoke %d pid %d served before; want a fresh process", n, i+1, inv.pid)
				pids[inv.pid] = true
			}
		}
		assert.Equal(t, 1, s.Environments(), "environments of two functions in turn = %d; want 1", s.Environments())
	})
}

// interruptHelperEnv makes TestFrozenEnvironmentsEndOnInterrupt, run by itself as a child, the
// test binary to interrupt: it freezes an environment, writes its processes' pids to the file
// the variable names, and waits.
const interruptHelperEnv = "LAMBDAAPI_INTERRUPT_PIDS"

// TestFrozenEnvironmentsEndOnInterrupt: Ctrl-C to a test binary whose stand-in holds a frozen
// environment ends its processes too: a stopped process is delivered no SIGTERM, and the
// runtime is not in the emulator's process group, which harness/sys/proc kills.
func TestFrozenEnvironmentsEndOnInterrupt(t *testing.T) {
	if file := os.Getenv(interruptHelperEnv); file != "" {
		s, c := start(t, func(o *Options) { o.KeepEnvironmentsOnUpdate = true })
		create(t, c, "claims-0badcafe-intr-a")
		invoke(t, c, "claims-0badcafe-intr-a")
		create(t, c, "claims-0badcafe-intr-b") // freezes a's environment
		s.envMu.Lock()
		var pids []string
		for _, f := range s.live {
			for _, pid := range f.frozen {
				pids = append(pids, strconv.Itoa(pid))
			}
		}
		s.envMu.Unlock()
		require.NoError(t, os.WriteFile(file+".tmp", []byte(strings.Join(pids, " ")), 0o644))
		require.NoError(t, os.Rename(file+".tmp", file))
		time.Sleep(time.Minute) // the parent's SIGINT ends this binary long before
		return
	}
	file := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFrozenEnvironmentsEndOnInterrupt$", "-test.count=1")
	// The helper dies by the signal, before its clean-ups: its temporary folders go under this
	// test's, which this test removes.
	cmd.Env = append(os.Environ(), interruptHelperEnv+"="+file, "TMPDIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	var pids []int
	for deadline := time.Now().Add(time.Minute); len(pids) == 0; {
		if b, err := os.ReadFile(file); err == nil {
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				require.NoError(t, err, "pids file %q", b)
				pids = append(pids, pid)
			}
			require.NotEmpty(t, pids, "the helper froze no process; its output:\n%s", &out)
			break
		}
		require.True(t, time.Now().Before(deadline), "the helper froze no environment within a minute; its output:\n%s", &out)
		time.Sleep(20 * time.Millisecond)
	}
	assert.GreaterOrEqual(t, len(pids), 2, "frozen processes = %v; want the emulator and the runtime", pids)
	for _, pid := range pids {
		running, state := alive(pid)
		require.True(t, running && (state == "T" || state == "t"), "frozen pid %d: state %q; want stopped before the interrupt", pid, state)
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the helper did not end within 30 s of SIGINT; its output:\n%s", &out)
	}
	// SIGKILL is immediate; reaping by whoever inherits them is not.
	for _, pid := range pids {
		deadline := time.Now().Add(5 * time.Second)
		for running, _ := alive(pid); running && time.Now().Before(deadline); running, _ = alive(pid) {
			time.Sleep(10 * time.Millisecond)
		}
		running, state := alive(pid)
		assert.False(t, running, "frozen pid %d after the binary's SIGINT: state %q; want ended", pid, state)
		if running {
			_ = syscall.Kill(pid, syscall.SIGKILL) // not to leave it behind
		}
	}
}
