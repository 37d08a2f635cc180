package cgroup

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests that make groups: cgroups, Pdeathsig and /proc are Linux's.

// needCgroup skips the test, with the reason Available gives, where no group can be made.
func needCgroup(t *testing.T) string {
	t.Helper()
	where, err := Available()
	if err != nil {
		t.Skip(err.Error())
	}
	t.Logf("cgroup %s", where)
	return where
}

// spin starts a shell that loops forever without starting anything (':' is a builtin), and
// kills it by its pid when the test ends.
func spin(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
	// A test binary killed before its cleanup runs must not leave a shell spinning forever.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return pid
}

// cpuTime is the CPU time pid has used (utime + stime in /proc/PID/stat). The kernel counts it
// in clock ticks of 10ms: USER_HZ is 100 on every architecture Go runs Linux on.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	// Fields after the command's ")": state is field 3, utime 14, stime 15.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	require.Greater(t, len(fields), 12, "short /proc/%d/stat: %s", pid, stat)
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(t, err1)
	require.NoError(t, err2)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// cpuShare is the CPU pid uses over the next d: CPU time over wall time, 1 for a process that
// has a whole CPU to itself.
func cpuShare(t *testing.T, pid int, d time.Duration) float64 {
	t.Helper()
	c0, w0 := cpuTime(t, pid), time.Now()
	time.Sleep(d)
	c1, w1 := cpuTime(t, pid), time.Now()
	return float64(c1-c0) / float64(w1.Sub(w0))
}

// inGroup reports whether /proc/PID/cgroup puts pid in g.
func inGroup(t *testing.T, pid int, g *Group) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	require.NoError(t, err)
	return strings.Contains(string(b), "/"+filepath.Base(g.Path())+"\n")
}

// wantDescribe is what Describe says for a quota, by the cgroup version in Available's answer.
func wantDescribe(where string, quota, period int) string {
	if strings.HasPrefix(where, "v2") {
		return fmt.Sprintf("cpu.max=%d %d cpu.weight=10000 (v2)", quota, period)
	}
	return fmt.Sprintf("cpu.cfs_quota_us=%d cpu.cfs_period_us=%d cpu.shares=262144 (v1)", quota, period)
}

// TestQuotaThrottlesAProcess is the package's point: a process given 0.1 of a CPU uses about
// 0.1 of a CPU. The band [0.05, 0.2] is wide on purpose: CFS hands out the quota per 100ms
// period, and a 1s window holds 10 periods, so the window's phase alone moves the result by up
// to one period's quota (0.09 to 0.11); /proc/PID/stat counts in 10ms ticks, which moves it by
// up to 0.02 more; and the kernel hands out quota in 5ms slices, so a period can overrun a
// little. Outside the band something other than the quota decides.
//
// The control is the same process in a group that differs only in the quota, which is all the
// CPUs there are: a one-thread loop then uses what one CPU gives, above 0.5. It is a group and
// not the parent's because the group's weight keeps other work on the machine from taking the
// loop's time; in the parent group the control measures the machine's load (0.06 with two
// other test binaries busy on both cores).
func TestQuotaThrottlesAProcess(t *testing.T) {
	where := needCgroup(t)
	pid := spin(t)

	unlimited, err := New(t, "unlimited", Quota{Share: float64(runtime.NumCPU())})
	require.NoError(t, err)
	require.NoError(t, unlimited.Add(pid))
	free := cpuShare(t, pid, time.Second)

	g, err := New(t, "throttle", Quota{Share: 0.1})
	require.NoError(t, err)
	assert.Equal(t, wantDescribe(where, 10000, 100000), g.Describe())
	require.NoError(t, g.Add(pid))
	members, err := g.Procs()
	require.NoError(t, err)
	require.Equal(t, []int{pid}, members, "members of %s", g.Path())
	capped := cpuShare(t, pid, time.Second)
	stat, err := g.CPUStat()
	require.NoError(t, err)

	t.Logf("CPU share with quota %d CPUs %.3f, with quota 0.1 %.3f; cpu.stat %v", runtime.NumCPU(), free, capped, stat)
	assert.Greater(t, free, 0.5, "CPU share with quota %d CPUs = %.3f; want > 0.5", runtime.NumCPU(), free)
	assert.True(t, capped >= 0.05 && capped <= 0.2, "CPU share with quota 0.1 = %.3f; want 0.05 to 0.2", capped)
	assert.Positive(t, stat["nr_throttled"], "cpu.stat nr_throttled = %d; want > 0: the quota never stopped the process", stat["nr_throttled"])
}

// share128MB is the share of one CPU that a 128 MB Lambda function gets, the article's
// (lambdalocal.ShareForMemory, which this package's tests cannot import: it imports cgroup).
const share128MB = 128.0 / 1769

// TestLambda128MB gives a process the share of a 128 MB function, the article's, and checks it
// gets about that: 0.0724, within the same allowances as TestQuotaThrottlesAProcess (a period's
// phase, 10ms ticks), which are larger relative to this smaller quota.
func TestLambda128MB(t *testing.T) {
	where := needCgroup(t)
	g, err := New(t, "lambda128", Quota{Share: share128MB})
	require.NoError(t, err)
	assert.Equal(t, wantDescribe(where, 7236, 100000), g.Describe())
	pid := spin(t)
	require.NoError(t, g.Add(pid))
	got := cpuShare(t, pid, time.Second)
	t.Logf("CPU share at 128 MB (want %.4f): %.3f", share128MB, got)
	assert.True(t, got >= 0.035 && got <= 0.145, "CPU share at 128 MB = %.3f; want 0.035 to 0.145 (0.0724 halved to doubled)", got)
}

// TestSetShareChangesTheQuotaOfARunningGroup is the Init burst's mechanism: a group made with
// one CPU's quota, with a process in it, is set to 128 MB's share, and the process then gets
// about that share (the same band as TestLambda128MB); a share the kernel refuses is an error
// naming the file, and the group keeps its quota.
func TestSetShareChangesTheQuotaOfARunningGroup(t *testing.T) {
	where := needCgroup(t)
	g, err := New(t, "setshare", Quota{Share: 1})
	require.NoError(t, err)
	pid := spin(t)
	require.NoError(t, g.Add(pid))
	burst := cpuShare(t, pid, 500*time.Millisecond)

	require.NoError(t, g.SetShare(share128MB))
	assert.Equal(t, wantDescribe(where, 7236, 100000), g.Describe())
	got := cpuShare(t, pid, time.Second)
	t.Logf("CPU share at one CPU %.3f, then at 128 MB %.3f", burst, got)
	assert.Greater(t, burst, 0.5, "CPU share with one CPU's quota = %.3f; want > 0.5", burst)
	assert.True(t, got >= 0.035 && got <= 0.145, "CPU share after SetShare(128 MB) = %.3f; want 0.035 to 0.145 (0.0724 halved to doubled)", got)

	err = g.SetShare(0.001)
	assert.ErrorIs(t, err, syscall.EINVAL, "SetShare(0.001) = %v; want the kernel's refusal", err)
	assert.Equal(t, wantDescribe(where, 7236, 100000), g.Describe(), "a refused share changed the group")
	assert.ErrorContains(t, g.SetShare(0), "Quota.Share = 0", "SetShare(0) is refused by name")
	require.NoError(t, g.Remove())
	assert.ErrorContains(t, g.SetShare(0.5), "was removed")
}

// TestChildrenStayInside checks that a process started by a member after Add is born in the
// group: a function's runtime starts its handler's process after the quota is on.
func TestChildrenStayInside(t *testing.T) {
	needCgroup(t)
	cmd := exec.Command("/bin/sh", "-c", `read go; sleep 30 & echo "$!"; wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // the shell and its sleep, by the group's id
		_ = cmd.Wait()
	})

	g, err := New(t, "children", Quota{Share: 0.5})
	require.NoError(t, err)
	require.NoError(t, g.Add(pgid))
	_, err = io.WriteString(stdin, "go\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	child, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "the shell printed %q; want its child's pid", line)

	assert.True(t, inGroup(t, child, g), "child %d of member %d is not in %s", child, pgid, g.Path())
	members, err := g.Procs()
	require.NoError(t, err)
	assert.ElementsMatch(t, []int{pgid, child}, members)
}

func TestRemove(t *testing.T) {
	needCgroup(t)
	t.Run("leaves nothing and is safe twice", func(t *testing.T) {
		g, err := New(t, "remove", Quota{Share: 0.2})
		require.NoError(t, err)
		require.DirExists(t, g.Path())
		assert.Contains(t, Live(), g.Path())

		require.NoError(t, g.Remove())
		assert.NoDirExists(t, g.Path())
		assert.NotContains(t, Live(), g.Path())
		stale, err := Stale()
		require.NoError(t, err)
		assert.Empty(t, stale, "stale groups")
		assert.NoError(t, g.Remove(), "a second Remove is a no-op")
		assert.ErrorContains(t, g.Add(os.Getpid()), "the group was removed")
	})
	t.Run("moves a live member out", func(t *testing.T) {
		pid := spin(t)
		g, err := New(t, "member", Quota{Share: 0.2})
		require.NoError(t, err)
		require.NoError(t, g.Add(pid))
		require.True(t, inGroup(t, pid, g))

		require.NoError(t, g.Remove())
		assert.NoDirExists(t, g.Path())
		assert.True(t, running(pid), "the member %d did not survive Remove", pid)
		assert.False(t, inGroup(t, pid, g), "/proc/%d/cgroup still names the removed group", pid)
	})
}

// TestKernelRefusal asks for a quota of 100µs per period, which the kernel refuses (it takes
// no less than 1ms): the error must name the file and the value, and no group may be left.
func TestKernelRefusal(t *testing.T) {
	where := needCgroup(t)
	g, err := New(t, "refused", Quota{Share: 0.001})
	assert.Nil(t, g)
	if strings.HasPrefix(where, "v2") {
		assert.ErrorContains(t, err, `cpu.max = "100 100000"`)
	} else {
		assert.ErrorContains(t, err, `cpu.cfs_quota_us = "100"`)
	}
	assert.ErrorIs(t, err, syscall.EINVAL)
	t.Logf("refused: %v", err)
	assert.Empty(t, Live())
	stale, err := Stale()
	require.NoError(t, err)
	assert.Empty(t, stale, "stale groups")
}

// helperEnv makes this test binary, run again, a helper that makes a group, adds the process
// whose pid is the variable's value, prints the group's path, and waits to be signalled.
const helperEnv = "CGROUP_TEST_HELPER_MEMBER"

func TestHelperMakesAGroupAndWaits(t *testing.T) {
	member := os.Getenv(helperEnv)
	if member == "" {
		t.Skip("runs only as the helper of TestInterruptRemovesLiveGroups and TestSIGKILLLeavesAGroupNewSweeps")
	}
	pid, err := strconv.Atoi(member)
	require.NoError(t, err)
	g, err := New(t, "helper", Quota{Share: 0.2})
	require.NoError(t, err)
	require.NoError(t, g.Add(pid))
	fmt.Printf("GROUP %s\n", g.Path())
	time.Sleep(time.Minute)
}

// startHelper runs the helper with member, and returns it and its group's path.
func startHelper(t *testing.T, member int) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMakesAGroupAndWaits$", "-test.v")
	// The helper is killed, before its clean-ups: its temporary folders go under this test's.
	cmd.Env = append(os.Environ(), helperEnv+"="+strconv.Itoa(member), "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var path string
	sc := bufio.NewScanner(out)
	for path == "" && sc.Scan() {
		path, _ = strings.CutPrefix(sc.Text(), "GROUP ")
		if path == sc.Text() {
			path = ""
		}
	}
	require.NotEmpty(t, path, "the helper never printed its group")
	go func() { _, _ = io.Copy(io.Discard, out) }()
	require.DirExists(t, path)
	return cmd, path
}

// TestInterruptRemovesLiveGroups: Ctrl-C (SIGINT) to a test binary removes its group, members
// and all, and the binary still dies of the signal, as it would without this package.
func TestInterruptRemovesLiveGroups(t *testing.T) {
	needCgroup(t)
	member := spin(t)
	cmd, path := startHelper(t, member)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	ws := exit.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "helper ended with %v; want death by SIGINT", ws)
	assert.NoDirExists(t, path, "the interrupted helper's group")
	assert.True(t, running(member), "the member %d did not survive", member)
}

// TestSIGKILLLeavesAGroupNewSweeps: nothing runs in a SIGKILLed binary, so its group stays,
// member and all; Stale finds it and the next New removes it, moving the member out.
func TestSIGKILLLeavesAGroupNewSweeps(t *testing.T) {
	needCgroup(t)
	member := spin(t)
	cmd, path := startHelper(t, member)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait() // reaped: its pid no longer runs
	require.DirExists(t, path, "the SIGKILLed helper's group")
	stale, err := Stale()
	require.NoError(t, err)
	assert.Contains(t, stale, path)

	_, err = New(t, "sweeper", Quota{Share: 0.2})
	require.NoError(t, err)
	assert.NoDirExists(t, path, "the stale group after New")
	assert.True(t, running(member), "the member %d did not survive the sweep", member)
	stale, err = Stale()
	require.NoError(t, err)
	assert.Empty(t, stale, "stale groups after New")
}
