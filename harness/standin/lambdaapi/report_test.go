package lambdaapi

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
)

// initSleepMs is how long the test function's Init sleeps (testdata/fn's CLAIMS_INIT_SLEEP_MS):
// far above the emulator's own Init Duration (hundredths of a millisecond), so a REPORT that
// passed the emulator's figure on cannot reach the function's own measure.
const initSleepMs = 50

// TestAColdReportCarriesTheInitAndMemoryTheEnvironmentUsed: the cold REPORT's Init Duration is
// the Init the harness modelled, from the runtime's start to its first request for an event, so
// it holds the function's own measure of its Init (a span inside it, on the same machine's
// monotonic clock) and fits, with Duration, in the invoke's round trip as the caller saw it (the
// emulator starts the runtime on the first invoke); Billed Duration bills it with Duration; Max
// Memory Used is what the environment used, above zero and below the 128 MB Memory Size a small
// Go function never fills; the warm REPORT has no Init Duration and a peak no lower. Each bound is
// an ordering of events in one run, never an absolute time.
func TestAColdReportCarriesTheInitAndMemoryTheEnvironmentUsed(t *testing.T) {
	_, c := start(t)
	const name = "claims-0badcafe-init"
	in := newCreate(t, name, 128)
	in.Environment.Variables["CLAIMS_INIT_SLEEP_MS"] = strconv.Itoa(initSleepMs)
	_, err := c.CreateFunction(t.Context(), in)
	require.NoError(t, err)
	w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	})
	require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))

	sent := time.Now()
	cold := invoke(t, c, name)
	roundTripMs := float64(time.Since(sent)) / float64(time.Millisecond)
	warm := invoke(t, c, name)
	rc, rw := reportOf(t, cold), reportOf(t, warm)
	var own struct {
		InitMs float64 `json:"initMs"`
	}
	require.NoError(t, json.Unmarshal(cold.out.Payload, &own), "payload %s", cold.out.Payload)
	require.GreaterOrEqual(t, own.InitMs, float64(initSleepMs), "the function's own Init = %v ms; want at least its %d ms sleep (%s)", own.InitMs, initSleepMs, cold.out.Payload)
	require.NotNil(t, rc.InitDuration, "cold REPORT without Init Duration (%q)", cold.log)
	require.NotNil(t, rc.Duration, "cold REPORT without Duration (%q)", cold.log)
	require.NotNil(t, rc.BilledDuration, "cold REPORT without Billed Duration (%q)", cold.log)

	assert.GreaterOrEqual(t, *rc.InitDuration, own.InitMs,
		"Init Duration = %v ms; want at least the function's own measure of its Init, %v ms (%q)", *rc.InitDuration, own.InitMs, cold.log)
	assert.LessOrEqual(t, *rc.InitDuration+*rc.Duration, roundTripMs,
		"Init Duration + Duration = %v ms; want within the invoke's round trip, %v ms (%q)", *rc.InitDuration+*rc.Duration, roundTripMs, cold.log)
	assert.Equal(t, billedFromFigures(t, rc), *rc.BilledDuration,
		"cold Billed Duration = %v ms; want ceil(Init + Duration) (%q)", *rc.BilledDuration, cold.log)
	assert.GreaterOrEqual(t, *rc.BilledDuration, own.InitMs+*rc.Duration,
		"cold Billed Duration = %v ms; want at least the function's own Init %v ms + Duration %v ms (%q)", *rc.BilledDuration, own.InitMs, *rc.Duration, cold.log)

	require.NotNil(t, rc.MaxMemoryUsedMB, "cold REPORT without Max Memory Used (%q)", cold.log)
	assert.Greater(t, *rc.MaxMemoryUsedMB, 0, "Max Memory Used = %d MB; want above 0 (%q)", *rc.MaxMemoryUsedMB, cold.log)
	assert.Less(t, *rc.MaxMemoryUsedMB, 128,
		"Max Memory Used = %d MB; want what the environment used, below its Memory Size, 128 MB (%q)", *rc.MaxMemoryUsedMB, cold.log)

	assert.Nil(t, rw.InitDuration, "warm REPORT has Init Duration (%q)", warm.log)
	if assert.NotNil(t, rw.MaxMemoryUsedMB, "warm REPORT without Max Memory Used (%q)", warm.log) {
		assert.GreaterOrEqual(t, *rw.MaxMemoryUsedMB, *rc.MaxMemoryUsedMB,
			"warm Max Memory Used = %d MB; want at least the cold one's %d MB: a peak does not fall (%q)", *rw.MaxMemoryUsedMB, *rc.MaxMemoryUsedMB, warm.log)
	}
}

// TestAMemoryThatCouldNotBeMeasuredIsLeftOut: where the environment's memory could not be read,
// the REPORT carries no Max Memory Used, rather than the Memory Size or any other made-up figure;
// the rest of the line, and its bill, stand.
func TestAMemoryThatCouldNotBeMeasuredIsLeftOut(t *testing.T) {
	line := lambdareport.Format(report("5b2e8f1c-0d4a-4c6b-9e7f-a1b2c3d4e5f6", 2.5, ptr(12.25), 128, nil, ""))
	assert.NotContains(t, line, "Max Memory Used", "REPORT %q", line)
	got, err := lambdareport.Parse(line)
	require.NoError(t, err, "REPORT %q", line)
	assert.Nil(t, got.MaxMemoryUsedMB, "Max Memory Used = %v; want none (%q)", got.MaxMemoryUsedMB, line)
	require.NotNil(t, got.BilledDuration, "REPORT %q", line)
	assert.Equal(t, 15.0, *got.BilledDuration, "Billed Duration = %v; want ceil(12.25 + 2.5) (%q)", *got.BilledDuration, line)
}
