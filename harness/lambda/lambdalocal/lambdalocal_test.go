package lambdalocal

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

func echoBootstrap(t *testing.T) string {
	t.Helper()
	p, err := build.Go("testdata/lambdalocal/echo")
	require.NoError(t, err)
	return p
}

type echoAnswer struct {
	Event    map[string]any `json:"event"`
	PID      int            `json:"pid"`
	MemoryMB string         `json:"memoryMB"`
}

func invoke(t *testing.T, e *Environment, event string) (Invocation, echoAnswer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inv, err := e.Invoke(ctx, []byte(event))
	require.NoError(t, err)
	require.Equal(t, 200, inv.Status, "invoke status = %d; want 200 (%s)", inv.Status, inv.Body)
	var a echoAnswer
	require.NoError(t, json.Unmarshal(inv.Body, &a), "answer %s", inv.Body)
	return inv, a
}

func TestOneEnvironmentInitialisesOnce(t *testing.T) {
	e := Start(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 256})

	first, a1 := invoke(t, e, `{"n":1}`)
	second, a2 := invoke(t, e, `{"n":2}`)

	assert.Equal(t, float64(1), a1.Event["n"], "the event reaches the handler")
	assert.Equal(t, "256", a1.MemoryMB, "the memory size reaches the function")
	assert.Equal(t, a1.PID, a2.PID, "both invokes ran in one process")
	assert.True(t, first.Report.Cold(), "first REPORT has no Init Duration: %v", first.Report.Fields)
	assert.False(t, second.Report.Cold(), "second REPORT has an Init Duration: %v", second.Report.Fields)
	require.NotNil(t, second.Report.Duration)
	assert.Equal(t, first.RequestID, first.Report.RequestID, "the REPORT is the invoke's own")
}

func TestQuotaHoldsTheEmulatorAndTheFunction(t *testing.T) {
	if where, err := cgroup.Available(); err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	} else {
		t.Logf("cgroup: %s", where)
	}
	e := Start(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 128, Quota: true})
	_, a := invoke(t, e, `{}`)

	require.NotNil(t, e.Group)
	members, err := e.Group.Procs()
	require.NoError(t, err)
	assert.Contains(t, members, a.PID, "function pid %d not in the group's members %v", a.PID, members)
	assert.Contains(t, members, e.proc.Pid(), "emulator pid %d not in the group's members %v", e.proc.Pid(), members)
	assert.Contains(t, e.Group.Describe(), strconv.Itoa(7236), "quota for 128 MB: %s", e.Group.Describe())

	require.NoError(t, e.Stop())
	assert.NotContains(t, cgroup.Live(), e.Group.Path(), "the group outlives Stop")
}

// TestInitBurstEndsWhenTheRuntimeAsksForAnEvent: with InitShare, the environment starts at one
// CPU's quota and is at 128 MB's once the function has answered, through the proxy that the
// wrapper bootstrap points the runtime at.
func TestInitBurstEndsWhenTheRuntimeAsksForAnEvent(t *testing.T) {
	if _, err := cgroup.Available(); err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	}
	e := Start(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 128, Quota: true, InitShare: 1})
	require.NotNil(t, e.Group)
	assert.Contains(t, e.Group.Describe(), "=100000 ", "quota before the first invoke: %s; want one CPU's, 100000µs", e.Group.Describe())
	assert.False(t, e.InitEnded(), "InitEnded before any invoke")

	_, a := invoke(t, e, `{"n":1}`)
	assert.Equal(t, float64(1), a.Event["n"], "the event reaches the handler through the proxy")
	assert.True(t, e.InitEnded(), "InitEnded after an answer = false; want true")
	assert.Contains(t, e.Group.Describe(), "=7236 ", "quota after the first invoke: %s; want 128 MB's, 7236µs", e.Group.Describe())
	_, a2 := invoke(t, e, `{"n":2}`)
	assert.Equal(t, a.PID, a2.PID, "both invokes ran in one process")
}

func TestInitShareWithoutQuotaIsRefused(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Start(ft, Options{Bootstrap: "/nonexistent", MemoryMB: 128, InitShare: 1})
	}()
	assert.Contains(t, ft.msg, "InitShare", "message = %q; want it to name InitShare", ft.msg)
}

func TestABadMemorySizeIsRefused(t *testing.T) {
	for _, mb := range []int{64, 10241} {
		ft := &fatalRecorder{TB: t}
		func() {
			defer func() { _ = recover() }()
			Start(ft, Options{Bootstrap: "/nonexistent", MemoryMB: mb})
		}()
		assert.Contains(t, ft.msg, "memory = "+strconv.Itoa(mb)+" MB", "the failure names the setting")
	}
}

// fatalRecorder catches Fatalf, so a test can read the message of a start that must fail.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

// TestLaunchReturnsTheFailure: Launch's bad settings are its error, not the test's failure, so a
// stand-in's HTTP handler can answer with it.
func TestLaunchReturnsTheFailure(t *testing.T) {
	e, err := Launch(t, Options{Bootstrap: "/nonexistent", MemoryMB: 64})
	assert.Nil(t, e)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "memory = 64 MB", "Launch error = %v; want it to name the setting", err)
	assert.False(t, t.Failed(), "a failed Launch failed the test")
}

func TestLaunchStartsAnEnvironment(t *testing.T) {
	NeedLinux(t)
	e, err := Launch(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 128})
	require.NoError(t, err)
	_, a := invoke(t, e, `{"n":1}`)
	assert.Equal(t, float64(1), a.Event["n"], "the event reaches the handler")
}

func TestTimeoutIsLambdasOrRefusedByName(t *testing.T) {
	d, err := Options{}.timeout()
	if assert.NoError(t, err) {
		assert.Equal(t, DefaultTimeout, d, "timeout of zero Options = %v; want DefaultTimeout", d)
	}
	d, err = Options{Timeout: 300 * time.Second}.timeout()
	if assert.NoError(t, err) {
		assert.Equal(t, 300*time.Second, d, "timeout of 300s = %v; want 300s", d)
	}
	for _, bad := range []time.Duration{-time.Second, 500 * time.Millisecond, 1500 * time.Millisecond, settings.MaxFunctionTimeout + time.Second} {
		_, err := Options{Timeout: bad}.timeout()
		if assert.Error(t, err, "timeout %v: want refused", bad) {
			assert.Contains(t, err.Error(), "Timeout = ")
		}
	}
}
