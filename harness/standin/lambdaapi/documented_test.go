package lambdaapi

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
)

// billedFromFigures is what a REPORT's figures bill, as Lambda bills a custom runtime: Init (on
// a cold start) with Duration, from the figures as printed, rounded up to the millisecond.
func billedFromFigures(t *testing.T, r lambdareport.Report) float64 {
	t.Helper()
	require.NotNil(t, r.Duration, "REPORT without Duration")
	hundredths := math.Round(*r.Duration * 100)
	if r.InitDuration != nil {
		hundredths += math.Round(*r.InitDuration * 100)
	}
	return math.Ceil(hundredths / 100)
}

// TestReportBillsInitOnAColdStart: the REPORT of a cold start of a provided.* function bills
// Init Duration with Duration; a warm invoke bills its Duration; a timed-out cold start bills
// both as well.
func TestReportBillsInitOnAColdStart(t *testing.T) {
	init := 95.12
	cases := map[string]struct {
		r    lambdareport.Report
		want float64
	}{
		"cold":         {report("3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37", 12.34, &init, 128, mb(40), ""), 108},
		"warm":         {report("9d41b7e0-25c3-4f6a-8e19-b0a7c3d5e284", 2.48, nil, 128, mb(40), ""), 3},
		"cold timeout": {report("2e7c4a91-5f0b-4c38-9d6e-a1b2c3d4e5f6", 1000, &init, 128, mb(40), "timeout"), 1096},
		"whole sum":    {report("4a0d9e63-8b17-4f52-a6c4-3e9f1d7b2a80", 4.88, ptr(95.12), 128, mb(40), ""), 100},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			line := lambdareport.Format(c.r)
			got, err := lambdareport.Parse(line)
			require.NoError(t, err, "REPORT %q", line)
			require.NotNil(t, got.BilledDuration, "REPORT %q", line)
			assert.Equal(t, c.want, *got.BilledDuration, "Billed Duration = %v; want %v (%q)", *got.BilledDuration, c.want, line)
		})
	}
}

func ptr(f float64) *float64 { return &f }

func mb(n int) *int { return &n }

// TestAnUpdateThatKeepsTheEnvironmentIsServedWarm: on a platform whose configuration update does
// not retire the environment, the invoke after the update is served by the same process, with
// no Init Duration, its count of invocations going on; the fault does it for one update only.
func TestAnUpdateThatKeepsTheEnvironmentIsServedWarm(t *testing.T) {
	update := func(t *testing.T, c *lambda.Client, name string, memory int32) {
		t.Helper()
		_, err := c.UpdateFunctionConfiguration(t.Context(), &lambda.UpdateFunctionConfigurationInput{
			FunctionName: aws.String(name), MemorySize: aws.Int32(memory),
			Environment: &types.Environment{Variables: map[string]string{"CLAIMS_COLD_START": "1"}},
		})
		require.NoError(t, err)
		waitUpdated(t, c, name)
		got, err := c.GetFunctionConfiguration(t.Context(), &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		require.NoError(t, err)
		assert.Equal(t, memory, aws.ToInt32(got.MemorySize), "MemorySize after the update")
		assert.Equal(t, types.LastUpdateStatusSuccessful, got.LastUpdateStatus, "LastUpdateStatus after the update")
	}
	kept := func(t *testing.T, before, after tailed, n int) {
		t.Helper()
		assert.Equal(t, before.pid, after.pid, "pid after an update that keeps the environment = %d; want %d", after.pid, before.pid)
		assert.False(t, reportOf(t, after).Cold(), "REPORT after an update that keeps the environment cold = true; want no Init Duration (%q)", after.log)
		assert.Equal(t, n, after.invocations, "the process's invocations = %d; want %d (it goes on serving)", after.invocations, n)
	}

	t.Run("KeepEnvironmentsOnUpdate", func(t *testing.T) {
		_, c := start(t, func(o *Options) { o.KeepEnvironmentsOnUpdate = true })
		const name = "claims-0badcafe-keeps"
		create(t, c, name)
		before := invoke(t, c, name)
		require.Equal(t, 1, before.invocations, "the first invoke's count")
		for i, memory := range []int32{192, 256} {
			update(t, c, name, memory)
			kept(t, before, invoke(t, c, name), 2+i)
		}
	})
	t.Run("UpdateKeepsEnvironment", func(t *testing.T) {
		s, c := start(t)
		const name = "claims-0badcafe-keeps-once"
		create(t, c, name)
		before := invoke(t, c, name)
		s.Inject(Fault{Kind: UpdateKeepsEnvironment, Function: name})
		update(t, c, name, 192)
		kept(t, before, invoke(t, c, name), 2)

		update(t, c, name, 256) // the fault is used up: Lambda's behaviour again
		fresh := invoke(t, c, name)
		assert.NotEqual(t, before.pid, fresh.pid, "pid after an ordinary update = %d; want a fresh environment", fresh.pid)
		assert.True(t, reportOf(t, fresh).Cold(), "REPORT after an ordinary update cold = false; want Init Duration (%q)", fresh.log)
		assert.Equal(t, 1, fresh.invocations, "a fresh process's invocations")
	})
}

// TestAnInvokeThatFailsAfterItRanIsRetriedWarm: the function runs, then the answer is 500
// ServiceException; the SDK's standard retryer retries it, and the retried attempt is served warm
// by the environment the failed one started, its count of invocations at 2. Without retries the
// error reaches the caller typed, and the run it hides still counted.
func TestAnInvokeThatFailsAfterItRanIsRetriedWarm(t *testing.T) {
	s, c := start(t)
	const name = "claims-0badcafe-retried"
	create(t, c, name)
	in := &lambda.InvokeInput{FunctionName: aws.String(name), Payload: []byte(`{"n":1}`), LogType: types.LogTypeTail}

	s.Inject(Fault{Kind: InvokeFailsAfterRun, Function: name})
	retrying := lambda.New(c.Options(), func(o *lambda.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 50 * time.Millisecond })
	})
	out, err := retrying.Invoke(t.Context(), in)
	require.NoError(t, err, "Invoke with the standard retryer after one failure")
	attempts, ok := retry.GetAttemptResults(out.ResultMetadata)
	require.True(t, ok, "the output's attempt results")
	assert.Len(t, attempts.Results, 2, "attempts = %d; want 2 (the failed one and its retry)", len(attempts.Results))
	inv := decode(t, out)
	assert.Equal(t, 2, inv.invocations, "the answering process's invocations = %d; want 2 (the failed attempt ran first)", inv.invocations)
	assert.False(t, reportOf(t, inv).Cold(), "REPORT of the retried attempt cold = true; want warm (%q)", inv.log)

	s.Inject(Fault{Kind: InvokeFailsAfterRun, Function: name})
	once := lambda.New(c.Options(), func(o *lambda.Options) { o.Retryer = aws.NopRetryer{} })
	_, err = once.Invoke(t.Context(), in)
	var svc *types.ServiceException
	require.True(t, errors.As(err, &svc), "error = %v; want ServiceException", err)
	var re *awshttp.ResponseError
	require.True(t, errors.As(err, &re), "error = %v; want an HTTP response error", err)
	assert.Equal(t, http.StatusInternalServerError, re.HTTPStatusCode(), "status of ServiceException")
	assert.True(t, retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err).Bool(), "the SDK's default retryables retry %v", err)
	after := invoke(t, c, name)
	assert.Equal(t, inv.pid, after.pid, "pid after a failed answer = %d; want %d", after.pid, inv.pid)
	assert.Equal(t, 4, after.invocations, "invocations = %d; want 4 (the run behind the error counted)", after.invocations)
}

// TestKMSGrantRefusesTheCreate: Lambda's CreateGrant failure for a new role refuses a create with
// environment variables and creates nothing; a create without variables does not meet it, and
// the next create with variables succeeds once the fault is used up.
func TestKMSGrantRefusesTheCreate(t *testing.T) {
	s, c := start(t)
	s.Inject(Fault{Kind: KMSGrant})

	plain := newCreate(t, "claims-0badcafe-novars", 128)
	plain.Environment = nil
	_, err := c.CreateFunction(t.Context(), plain)
	require.NoError(t, err, "a create without environment variables makes no grant")

	_, err = c.CreateFunction(t.Context(), newCreate(t, "claims-0badcafe-kms", 128))
	var bad *types.InvalidParameterValueException
	require.True(t, errors.As(err, &bad), "error = %v; want InvalidParameterValueException", err)
	assert.Contains(t, bad.ErrorMessage(), "Lambda was unable to configure access to your environment variables because the KMS key is invalid for CreateGrant.")
	var re *awshttp.ResponseError
	require.True(t, errors.As(err, &re), "error = %v; want an HTTP response error", err)
	assert.Equal(t, http.StatusBadRequest, re.HTTPStatusCode(), "status of the CreateGrant refusal")
	assert.Equal(t, []string{"claims-0badcafe-novars"}, s.Functions(), "functions after a refused create")

	_, err = c.CreateFunction(t.Context(), newCreate(t, "claims-0badcafe-kms", 128))
	assert.NoError(t, err, "the create again, the fault used up")
}

// TestAMemorySizeAboveTheQuotaIsRefusedAsLambdaRefusesIt: an account whose memory quota is 3008
// MB gets Lambda's constraint error for a larger MemorySize on create and on update, and keeps
// what it had.
func TestAMemorySizeAboveTheQuotaIsRefusedAsLambdaRefusesIt(t *testing.T) {
	s, c := start(t, func(o *Options) { o.MaxMemoryMB = 3008 })
	refused := func(t *testing.T, err error) {
		t.Helper()
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "error = %v; want an API error", err)
		assert.Equal(t, "ValidationException", api.ErrorCode(), "error code = %s; want ValidationException (%v)", api.ErrorCode(), err)
		assert.Equal(t, "'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to 3008", api.ErrorMessage())
		var re *awshttp.ResponseError
		require.True(t, errors.As(err, &re), "error = %v; want an HTTP response error", err)
		assert.Equal(t, http.StatusBadRequest, re.HTTPStatusCode(), "status of the quota refusal")
	}

	_, err := c.CreateFunction(t.Context(), newCreate(t, "claims-0badcafe-big", 3538))
	refused(t, err)
	assert.Empty(t, s.Functions(), "functions after a refused create")

	const name = "claims-0badcafe-quota"
	_, err = c.CreateFunction(t.Context(), newCreate(t, name, 3008))
	require.NoError(t, err, "a create at the quota")
	w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	})
	require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))
	_, err = c.UpdateFunctionConfiguration(t.Context(), &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(name), MemorySize: aws.Int32(3538)})
	refused(t, err)
	got, err := c.GetFunctionConfiguration(t.Context(), &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, int32(3008), aws.ToInt32(got.MemorySize), "MemorySize after a refused update")
}

// TestTheLogTailIsItsLast4KB: Invoke's LogType Tail gives the last 4 KB of the execution log, so
// a long log loses its START and keeps its REPORT whole.
func TestTheLogTailIsItsLast4KB(t *testing.T) {
	const id = "3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37"
	rep := lambdareport.Format(report(id, 12.34, nil, 128, mb(40), "")) + "\n"
	short := logTail(id, "one line\n", rep)
	assert.True(t, strings.HasPrefix(short, "START RequestId: "+id), "a short tail keeps its START: %q", short)

	long := logTail(id, strings.Repeat("a line the function logged\n", 400), rep)
	assert.Len(t, long, 4096, "the tail of a long log")
	assert.False(t, strings.HasPrefix(long, "START"), "a long tail has lost its START")
	assert.True(t, strings.HasSuffix(long, "END RequestId: "+id+"\n"+rep), "the tail ends in END and the whole REPORT: %q", long[len(long)-200:])
	reps, err := lambdareport.Find(long)
	require.NoError(t, err)
	assert.Len(t, reps, 1, "REPORTs in a long tail")
}
