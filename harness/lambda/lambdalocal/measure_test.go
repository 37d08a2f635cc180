package lambdalocal

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TestTheHarnessTimesInitAndTheHandlerAndMeasuresMemory: with MeasureInit, the first invoke's
// Init (the runtime's start to its first request for an event) and the handler's time both fit
// in the invoke's round trip, one after the other, and inside the emulator's cold Duration,
// whose clock runs from the invoke's arrival (so it holds the Init as well); the second invoke
// has no Init of its own. The peak memory is above zero, below the memory size a small Go
// function never fills, and never falls. Every bound is an ordering in one run.
func TestTheHarnessTimesInitAndTheHandlerAndMeasuresMemory(t *testing.T) {
	e := Start(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 256, MeasureInit: true})

	sent := time.Now()
	first, _ := invoke(t, e, `{"n":1}`)
	roundTrip := time.Since(sent)
	init, ok := e.TakeInit()
	require.True(t, ok, "TakeInit after the first invoke = false; want the Init that ended")
	handled, ok := e.Handled(first.RequestID)
	require.True(t, ok, "Handled(%s) = false; want the handler's time", first.RequestID)
	assert.Greater(t, init, time.Duration(0), "Init = %v; want above 0", init)
	assert.LessOrEqual(t, init+handled, roundTrip, "Init %v + handler %v; want within the round trip %v", init, handled, roundTrip)
	require.NotNil(t, first.Report.Duration, "the emulator's cold REPORT has no Duration: %v", first.Report.Fields)
	assert.GreaterOrEqual(t, *first.Report.Duration, ms(init)+ms(handled)-0.01,
		"the emulator's cold Duration = %v ms; want at least Init %v ms + handler %v ms (its clock starts before the runtime; 0.01 ms is its rounding)", *first.Report.Duration, ms(init), ms(handled))
	_, again := e.TakeInit()
	assert.False(t, again, "TakeInit a second time = true; want the Init taken once")

	m1, err := e.PeakMemory()
	require.NoError(t, err)
	assert.Greater(t, m1.Bytes, int64(0), "peak memory = %d bytes; want above 0 (%s)", m1.Bytes, m1.Source)
	assert.Less(t, m1.MB(), 256, "peak memory = %d MB; want below the memory size, 256 MB (%s)", m1.MB(), m1.Source)
	assert.NotEmpty(t, m1.Source)

	second, _ := invoke(t, e, `{"n":2}`)
	_, cold := e.TakeInit()
	assert.False(t, cold, "TakeInit after the warm invoke = true; want no Init")
	_, ok = e.Handled(second.RequestID)
	assert.True(t, ok, "Handled(%s) of the warm invoke = false; want its time", second.RequestID)
	m2, err := e.PeakMemory()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, m2.Bytes, m1.Bytes, "peak after the warm invoke = %d bytes; want at least %d: a peak does not fall", m2.Bytes, m1.Bytes)
}

// TestWithoutMeasureInitThereIsNoInit: without the wrapper and proxy, the harness saw nothing
// and says so, rather than a figure of its own.
func TestWithoutMeasureInitThereIsNoInit(t *testing.T) {
	e := Start(t, Options{Bootstrap: echoBootstrap(t), MemoryMB: 128})
	first, _ := invoke(t, e, `{}`)
	_, ok := e.TakeInit()
	assert.False(t, ok, "TakeInit without MeasureInit = true; want false")
	_, ok = e.Handled(first.RequestID)
	assert.False(t, ok, "Handled without MeasureInit = true; want false")
}

func TestMemoryMBRoundsUp(t *testing.T) {
	for bytes, want := range map[int64]int{1: 1, MiB: 1, MiB + 1: 2, 21*MiB - 1: 21, 0: 0} {
		assert.Equal(t, want, Memory{Bytes: bytes}.MB(), "MB of %d bytes", bytes)
	}
}

func TestParseVmHWM(t *testing.T) {
	n, err := parseVmHWM([]byte("Name:\tfn\nVmPeak:\t  10000 kB\nVmHWM:\t    2048 kB\nVmRSS:\t 1024 kB\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(2048*1024), n)
	n, err = parseVmHWM([]byte("Name:\tkthreadd\nState:\tS (sleeping)\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(0), n, "a process without VmHWM")
	_, err = parseVmHWM([]byte("VmHWM:\t2048 MB\n"))
	assert.Error(t, err, "a VmHWM in MB")
	self, err := os.ReadFile("/proc/self/status")
	if err == nil {
		n, err := parseVmHWM(self)
		require.NoError(t, err)
		assert.Greater(t, n, int64(0), "this process's VmHWM")
	}
}
