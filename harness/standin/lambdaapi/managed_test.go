package lambdaapi

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zipOf is a zip of files, name to content.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// managedFunctions are a function of each managed runtime the stand-in runs: the handler's
// module at the zip's top level, which answers with what the runtime gave it.
var managedFunctions = []struct {
	runtime types.Runtime
	handler string
	files   map[string]string
}{
	{types.RuntimeNodejs24x, "index.handler", map[string]string{"index.mjs": `
export const handler = async (event) => ({event, taskRoot: process.env.LAMBDA_TASK_ROOT, handler: process.env._HANDLER, pid: process.pid});
`}},
	{types.RuntimePython311, "handler.handler", map[string]string{"handler.py": `
import os
def handler(event, context):
    return {"event": event, "taskRoot": os.environ["LAMBDA_TASK_ROOT"], "handler": os.environ["_HANDLER"], "pid": os.getpid()}
`}},
}

// TestAManagedRuntimeRunsTheHandlersModule: a zip for nodejs24.x or python3.11 holds the
// handler's module, no bootstrap; the stand-in's runtime loads _HANDLER from LAMBDA_TASK_ROOT
// and answers with what it returns, one process for the environment's invocations.
func TestAManagedRuntimeRunsTheHandlersModule(t *testing.T) {
	_, c := start(t)
	for _, f := range managedFunctions {
		t.Run(string(f.runtime), func(t *testing.T) {
			name := "claims-0badcafe-" + strings.ReplaceAll(string(f.runtime), ".", "")
			in := newCreate(t, name, 256)
			in.Runtime, in.Handler, in.Code = f.runtime, aws.String(f.handler), &types.FunctionCode{ZipFile: zipOf(t, f.files)}
			in.Timeout = aws.Int32(10)
			_, err := c.CreateFunction(t.Context(), in)
			require.NoError(t, err)
			w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
				o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
			})
			require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))
			var pids []int
			for i := range 2 {
				out, err := c.Invoke(t.Context(), &lambda.InvokeInput{FunctionName: aws.String(name), Payload: []byte(`{"n":1}`), LogType: types.LogTypeTail})
				require.NoError(t, err)
				require.Nil(t, out.FunctionError, "invocation %d: function error %s: %s", i+1, aws.ToString(out.FunctionError), out.Payload)
				var a struct {
					Event    map[string]any `json:"event"`
					TaskRoot string         `json:"taskRoot"`
					Handler  string         `json:"handler"`
					PID      int            `json:"pid"`
				}
				require.NoError(t, json.Unmarshal(out.Payload, &a), "payload %s", out.Payload)
				assert.Equal(t, map[string]any{"n": 1.0}, a.Event, "the event the handler got")
				assert.Equal(t, f.handler, a.Handler, "_HANDLER")
				assert.NotEmpty(t, a.TaskRoot, "LAMBDA_TASK_ROOT")
				pids = append(pids, a.PID)
			}
			assert.Equal(t, pids[0], pids[1], "pids of the two invocations; want one process")
		})
	}
}

// TestAManagedRuntimeWithoutItsModuleFailsInit: a managed runtime's zip is not checked at
// create (Lambda reports a missing module at Init); the invocation fails with the function's error.
func TestAManagedRuntimeWithoutItsModuleFailsInit(t *testing.T) {
	_, c := start(t)
	for _, f := range managedFunctions {
		t.Run(string(f.runtime), func(t *testing.T) {
			name := "claims-0badcafe-none" + strings.ReplaceAll(string(f.runtime), ".", "")
			in := newCreate(t, name, 256)
			in.Runtime, in.Handler, in.Code = f.runtime, aws.String(f.handler), &types.FunctionCode{ZipFile: zipOf(t, map[string]string{"README": "no module"})}
			in.Timeout = aws.Int32(10)
			_, err := c.CreateFunction(t.Context(), in)
			require.NoError(t, err, "a managed runtime's zip without its module is created, as Lambda creates it")
			w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
				o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
			})
			require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))
			out, err := c.Invoke(t.Context(), &lambda.InvokeInput{FunctionName: aws.String(name), Payload: []byte(`{}`)})
			require.NoError(t, err)
			assert.NotNil(t, out.FunctionError, "function error = none; want the failed Init's (payload %s)", out.Payload)
		})
	}
}

// TestACustomRuntimeZipWithoutBootstrapIsRefused: provided.al2023 runs the zip's bootstrap, so a
// zip without one is refused at create.
func TestACustomRuntimeZipWithoutBootstrapIsRefused(t *testing.T) {
	_, c := start(t)
	in := newCreate(t, "claims-0badcafe-noboot", 128)
	in.Code = &types.FunctionCode{ZipFile: zipOf(t, map[string]string{"index.mjs": "export const handler = async () => 1;"})}
	_, err := c.CreateFunction(t.Context(), in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no bootstrap")
}
