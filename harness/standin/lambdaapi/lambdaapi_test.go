package lambdaapi

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdareport"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/cgroup"
)

const (
	keyID   = "AKIDCLAIMSSTANDIN"
	secret  = "claims-standin-secret"
	roleARN = "arn:aws:iam::123456789012:role/claims-test-exec"
)

// start starts a stand-in, under a quota where a cgroup can be made, and a client of it; each
// option function changes its Options first.
func start(t *testing.T, opts ...func(*Options)) (*Server, *lambda.Client) {
	t.Helper()
	o := Options{Keys: sigv4check.Keys{keyID: secret}, Period: 20 * time.Millisecond}
	if _, err := cgroup.Available(); err == nil {
		o.Quota, o.InitShare = true, 1
	}
	for _, f := range opts {
		f(&o)
	}
	s := Start(t, o)
	return s, client(s, secret)
}

func client(s *Server, sec string) *lambda.Client {
	return lambda.New(lambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.URL()),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, sec, ""),
	})
}

// fnZip is the test function (testdata/fn) as a Lambda zip: one executable bootstrap.
func fnZip(t *testing.T) []byte {
	t.Helper()
	bin, err := build.Go("harness/standin/lambdaapi/testdata/fn")
	require.NoError(t, err)
	code, err := os.ReadFile(bin)
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	h.SetMode(0o755)
	fw, err := zw.CreateHeader(h)
	require.NoError(t, err)
	_, err = fw.Write(code)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func newCreate(t *testing.T, name string, memory int32) *lambda.CreateFunctionInput {
	return &lambda.CreateFunctionInput{
		FunctionName:  aws.String(name),
		Runtime:       types.RuntimeProvidedal2023,
		Handler:       aws.String("bootstrap"),
		Role:          aws.String(roleARN),
		MemorySize:    aws.Int32(memory),
		Timeout:       aws.Int32(1),
		Architectures: []types.Architecture{types.Architecture(machineArch())},
		Code:          &types.FunctionCode{ZipFile: fnZip(t)},
		Environment:   &types.Environment{Variables: map[string]string{"CLAIMS_COLD_START": "0"}},
		Tags:          map[string]string{"claims:run": "0badcafe"},
	}
}

// create makes the function and waits until it is Active.
func create(t *testing.T, c *lambda.Client, name string) {
	t.Helper()
	_, err := c.CreateFunction(t.Context(), newCreate(t, name, 128))
	require.NoError(t, err)
	w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	})
	require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))
}

// tailed is one invoke with its decoded log tail.
type tailed struct {
	out         *lambda.InvokeOutput
	log         string
	pid         int
	invocations int // the function process's count, 1 on its first invocation
	echo        map[string]any
}

func invoke(t *testing.T, c *lambda.Client, name string) tailed {
	t.Helper()
	return invokeWith(t, c, name, `{"n":1}`)
}

// invokeWith invokes with the event given, which may ask the function to sleep, fail or exit.
func invokeWith(t *testing.T, c *lambda.Client, name, event string) tailed {
	t.Helper()
	out, err := c.Invoke(t.Context(), &lambda.InvokeInput{FunctionName: aws.String(name), Payload: []byte(event), LogType: types.LogTypeTail})
	require.NoError(t, err)
	return decode(t, out)
}

// decode reads an invoke's answer and log tail.
func decode(t *testing.T, out *lambda.InvokeOutput) tailed {
	t.Helper()
	log, err := base64.StdEncoding.DecodeString(aws.ToString(out.LogResult))
	require.NoError(t, err)
	r := tailed{out: out, log: string(log)}
	if out.FunctionError == nil {
		var a struct {
			Event       map[string]any `json:"event"`
			PID         int            `json:"pid"`
			Invocations int            `json:"invocations"`
		}
		require.NoError(t, json.Unmarshal(out.Payload, &a), "payload %s", out.Payload)
		r.pid, r.echo, r.invocations = a.PID, a.Event, a.Invocations
	}
	return r
}

func reportOf(t *testing.T, inv tailed) lambdareport.Report {
	t.Helper()
	reps, err := lambdareport.Find(inv.log)
	require.NoError(t, err, "log tail %q", inv.log)
	require.Len(t, reps, 1, "REPORTs in the log tail %q", inv.log)
	return reps[0]
}

func TestFunctionLifecycle(t *testing.T) {
	s, c := start(t)
	create(t, c, "claims-0badcafe-echo")
	assert.Equal(t, 1, s.Environments(), "environments after create = %d; want 1 (started when the create completed)", s.Environments())

	got, err := c.GetFunction(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String("claims-0badcafe-echo")})
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:lambda:us-east-1:123456789012:function:claims-0badcafe-echo", aws.ToString(got.Configuration.FunctionArn))
	assert.Equal(t, "0badcafe", got.Tags["claims:run"], "tags = %v; want claims:run", got.Tags)

	first := invoke(t, c, "claims-0badcafe-echo")
	second := invoke(t, c, "claims-0badcafe-echo")
	r1, r2 := reportOf(t, first), reportOf(t, second)
	assert.Equal(t, float64(1), first.echo["n"], "the event reaches the function")
	assert.True(t, r1.Cold(), "first REPORT cold = false; want Init Duration (%q)", first.log)
	assert.False(t, r2.Cold(), "second REPORT cold = true; want no Init Duration (%q)", second.log)
	assert.Equal(t, first.pid, second.pid, "warm invoke's pid = %d; want %d", second.pid, first.pid)
	assert.Equal(t, []int{1, 2}, []int{first.invocations, second.invocations}, "the process's invocations on the cold and the warm invoke")
	require.NotNil(t, r1.BilledDuration)
	require.NotNil(t, r2.BilledDuration)
	assert.Equal(t, billedFromFigures(t, r1), *r1.BilledDuration, "cold Billed Duration = %v; want ceil(Init + Duration) (%q)", *r1.BilledDuration, first.log)
	assert.Equal(t, math.Ceil(*r2.Duration), *r2.BilledDuration, "warm Billed Duration = %v; want ceil(Duration) (%q)", *r2.BilledDuration, second.log)
	assert.Equal(t, aws.ToString(first.out.ExecutedVersion), "$LATEST")
	require.NotNil(t, r1.MemorySizeMB)
	assert.Equal(t, 128, *r1.MemorySizeMB, "REPORT Memory Size")
	assert.Regexp(t, `^START RequestId: \S+ Version: \$LATEST\nEND RequestId: \S+\nREPORT RequestId: \S+\tDuration: [0-9.]+ ms\tBilled Duration: \d+ ms\tMemory Size: 128 MB\tMax Memory Used: \d+ MB\tInit Duration: [0-9.]+ ms\t\n$`, first.log)

	_, err = c.UpdateFunctionConfiguration(t.Context(), &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("claims-0badcafe-echo"),
		Environment:  &types.Environment{Variables: map[string]string{"CLAIMS_COLD_START": "1"}},
		MemorySize:   aws.Int32(256),
	})
	require.NoError(t, err)
	waitUpdated(t, c, "claims-0badcafe-echo")
	third := invoke(t, c, "claims-0badcafe-echo")
	assert.NotEqual(t, first.pid, third.pid, "pid after an update = %d; want a fresh environment", third.pid)
	assert.True(t, reportOf(t, third).Cold(), "REPORT after an update cold = false; want Init Duration (%q)", third.log)

	list, err := c.ListTags(t.Context(), &lambda.ListTagsInput{Resource: got.Configuration.FunctionArn})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"claims:run": "0badcafe"}, list.Tags)

	_, err = c.DeleteFunction(t.Context(), &lambda.DeleteFunctionInput{FunctionName: aws.String("claims-0badcafe-echo")})
	require.NoError(t, err)
	assert.Empty(t, s.Functions(), "functions after delete")
	assert.Equal(t, 0, s.Environments(), "environments after delete = %d; want 0", s.Environments())
}

func waitUpdated(t *testing.T, c *lambda.Client, name string) {
	t.Helper()
	w := lambda.NewFunctionUpdatedV2Waiter(c, func(o *lambda.FunctionUpdatedV2WaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
	})
	require.NoError(t, w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)}, 20*time.Second))
}

func TestAWrongSecretIsRefused(t *testing.T) {
	s, _ := start(t)
	_, err := client(s, "not-the-secret").ListFunctions(t.Context(), &lambda.ListFunctionsInput{})
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "error = %v; want an API error", err)
	assert.Equal(t, "InvalidSignatureException", api.ErrorCode(), "error code = %s; want InvalidSignatureException (%v)", api.ErrorCode(), err)
}

func TestErrorsAreTypedAndNameTheirSubject(t *testing.T) {
	_, c := start(t)
	_, err := c.GetFunction(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String("claims-nosuch")})
	var notFound *types.ResourceNotFoundException
	require.True(t, errors.As(err, &notFound), "error = %v; want ResourceNotFoundException", err)
	assert.Contains(t, notFound.ErrorMessage(), "claims-nosuch")

	_, err = c.CreateFunction(t.Context(), newCreate(t, "claims-big", 20000))
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "error = %v; want an API error", err)
	assert.Equal(t, "ValidationException", api.ErrorCode(), "error code for MemorySize 20000 = %s; want ValidationException (%v)", api.ErrorCode(), err)
	assert.Contains(t, api.ErrorMessage(), "'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to 10240")
	var bad *types.InvalidParameterValueException

	create(t, c, "claims-dup")
	_, err = c.CreateFunction(t.Context(), newCreate(t, "claims-dup", 128))
	var conflict *types.ResourceConflictException
	assert.True(t, errors.As(err, &conflict), "duplicate create error = %v; want ResourceConflictException", err)

	other := "arm64"
	if machineArch() == "arm64" {
		other = "x86_64"
	}
	in := newCreate(t, "claims-arch", 128)
	in.Architectures = []types.Architecture{types.Architecture(other)}
	_, err = c.CreateFunction(t.Context(), in)
	require.True(t, errors.As(err, &bad), "error = %v; want InvalidParameterValueException", err)
	assert.Contains(t, bad.ErrorMessage(), other)
}

func TestListFunctionsPages(t *testing.T) {
	s, c := start(t)
	for _, n := range []string{"claims-a", "claims-b", "claims-c"} {
		_, err := c.CreateFunction(t.Context(), newCreate(t, n, 128))
		require.NoError(t, err)
	}
	var names []string
	p := lambda.NewListFunctionsPaginator(c, &lambda.ListFunctionsInput{MaxItems: aws.Int32(2)})
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		require.NoError(t, err)
		pages++
		for _, f := range out.Functions {
			names = append(names, aws.ToString(f.FunctionName))
		}
	}
	assert.Equal(t, s.Functions(), names, "names over all pages")
	assert.Equal(t, 2, pages, "pages = %d; want 2 of at most 2", pages)
}

func TestFaults(t *testing.T) {
	s, c := start(t)
	const name = "claims-0badcafe-faults"
	create(t, c, name)

	t.Run("Conflict", func(t *testing.T) {
		s.Inject(Fault{Kind: Conflict, Function: name})
		in := &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(name), MemorySize: aws.Int32(192)}
		_, err := c.UpdateFunctionConfiguration(t.Context(), in)
		var conflict *types.ResourceConflictException
		require.True(t, errors.As(err, &conflict), "error = %v; want ResourceConflictException", err)
		assert.Contains(t, conflict.ErrorMessage(), "An update is in progress")
		got, err := c.GetFunctionConfiguration(t.Context(), &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		require.NoError(t, err)
		assert.Equal(t, types.LastUpdateStatusInProgress, got.LastUpdateStatus, "LastUpdateStatus during a conflict")
		waitUpdated(t, c, name)
		_, err = c.UpdateFunctionConfiguration(t.Context(), in)
		require.NoError(t, err, "the update after waiting")
		waitUpdated(t, c, name)
	})
	t.Run("Throttle", func(t *testing.T) {
		// The SDK's standard retryer, with a short backoff to keep the test quick.
		c := lambda.New(c.Options(), func(o *lambda.Options) {
			o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 50 * time.Millisecond })
		})
		s.Inject(Fault{Kind: Throttle, Count: 2})
		_, err := c.GetFunction(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)})
		assert.NoError(t, err, "GetFunction after 2 throttles (the retryer's 3 attempts)")
		s.Inject(Fault{Kind: Throttle, Count: 3})
		_, err = c.GetFunction(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name)})
		var throttled *types.TooManyRequestsException
		require.True(t, errors.As(err, &throttled), "error = %v; want TooManyRequestsException after 3 throttles", err)
		assert.Equal(t, "1", aws.ToString(throttled.RetryAfterSeconds), "Retry-After")
	})
	t.Run("InvokeTimeout", func(t *testing.T) {
		before := invoke(t, c, name)
		s.Inject(Fault{Kind: InvokeTimeout})
		inv := invoke(t, c, name)
		assert.Equal(t, "Unhandled", aws.ToString(inv.out.FunctionError))
		assert.Contains(t, string(inv.out.Payload), "Task timed out after 1.00 seconds")
		assert.Equal(t, "timeout", reportOf(t, inv).Status, "REPORT status (%q)", inv.log)
		after := invoke(t, c, name)
		assert.NotEqual(t, before.pid, after.pid, "pid after a timeout = %d; want a fresh environment", after.pid)
		assert.True(t, reportOf(t, after).Cold(), "invoke after a timeout cold = false; want true")
	})
	t.Run("FunctionError", func(t *testing.T) {
		s.Inject(Fault{Kind: FunctionError, Function: name})
		inv := invoke(t, c, name)
		assert.Equal(t, "Unhandled", aws.ToString(inv.out.FunctionError))
		assert.Contains(t, string(inv.out.Payload), "FunctionError")
	})
	t.Run("TruncatedReport", func(t *testing.T) {
		s.Inject(Fault{Kind: TruncatedReport})
		inv := invoke(t, c, name)
		_, err := lambdareport.Find(inv.log)
		assert.Error(t, err, "reading a tail cut in its REPORT (%q)", inv.log)
		assert.Contains(t, inv.log, "REPORT RequestId:")
	})
	t.Run("MissingReport", func(t *testing.T) {
		s.Inject(Fault{Kind: MissingReport})
		inv := invoke(t, c, name)
		reps, err := lambdareport.Find(inv.log)
		require.NoError(t, err)
		assert.Empty(t, reps, "REPORTs in a tail without one (%q)", inv.log)
		assert.True(t, strings.HasPrefix(inv.log, "START RequestId:"), "tail %q", inv.log)
	})
	t.Run("CreateFails", func(t *testing.T) {
		s.Inject(Fault{Kind: CreateFails})
		_, err := c.CreateFunction(t.Context(), newCreate(t, "claims-0badcafe-fails", 128))
		require.NoError(t, err)
		w := lambda.NewFunctionActiveV2Waiter(c, func(o *lambda.FunctionActiveV2WaiterOptions) {
			o.MinDelay, o.MaxDelay = 50*time.Millisecond, 200*time.Millisecond
		})
		err = w.Wait(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String("claims-0badcafe-fails")}, 10*time.Second)
		assert.Error(t, err, "the FunctionActiveV2 waiter on a failed create")
		got, err := c.GetFunction(t.Context(), &lambda.GetFunctionInput{FunctionName: aws.String("claims-0badcafe-fails")})
		require.NoError(t, err)
		assert.Equal(t, types.StateFailed, got.Configuration.State)
		assert.NotEmpty(t, got.Configuration.StateReasonCode)
		assert.Contains(t, s.Functions(), "claims-0badcafe-fails", "a failed function exists until deleted")
	})
}

func TestAnUnsignedOrMisscopedRequestIsRefused(t *testing.T) {
	s, _ := start(t)
	resp, err := http.Get(s.URL() + "/2015-03-31/functions")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "unsigned request status")
	assert.Equal(t, "MissingAuthenticationTokenException", resp.Header.Get("X-Amzn-ErrorType"))

	other := lambda.New(lambda.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(s.URL()),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secret, ""),
	})
	_, err = other.ListFunctions(t.Context(), &lambda.ListFunctionsInput{})
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "error = %v; want an API error", err)
	assert.Equal(t, "InvalidSignatureException", api.ErrorCode(), "error code for another region's scope (%v)", err)
}

func TestARoleLambdaCannotAssumeIsRefused(t *testing.T) {
	s := Start(t, Options{
		Keys: sigv4check.Keys{keyID: secret},
		RoleAssumable: func(arn string) error {
			if arn == roleARN {
				return errors.New("not yet")
			}
			return nil
		},
	})
	_, err := client(s, secret).CreateFunction(t.Context(), newCreate(t, "claims-role", 128))
	var bad *types.InvalidParameterValueException
	require.True(t, errors.As(err, &bad), "error = %v; want InvalidParameterValueException", err)
	assert.Contains(t, bad.ErrorMessage(), "cannot be assumed by Lambda")
	assert.Empty(t, s.Functions(), "functions after a refused create")
}

// TestOneEnvironmentAtATime: creating a second function ends the first's environment, as an idle
// Lambda environment takes no CPU, so the first's next invoke is a cold start.
func TestOneEnvironmentAtATime(t *testing.T) {
	s, c := start(t)
	create(t, c, "claims-one")
	first := invoke(t, c, "claims-one")
	create(t, c, "claims-two")
	assert.Equal(t, 1, s.Environments(), "environments with two functions = %d; want 1", s.Environments())
	again := invoke(t, c, "claims-one")
	assert.NotEqual(t, first.pid, again.pid, "pid after another function ran = %d; want a fresh environment", again.pid)
	assert.True(t, reportOf(t, again).Cold(), "invoke after another function ran cold = false; want true (%q)", again.log)
}

// TestTheEnvironmentRunsUnderTheMemorySizesQuota: the function's process is in a cgroup whose
// quota is 128 MB's share of the period.
func TestTheEnvironmentRunsUnderTheMemorySizesQuota(t *testing.T) {
	if _, err := cgroup.Available(); err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	}
	_, c := start(t)
	create(t, c, "claims-quota")
	inv := invoke(t, c, "claims-quota")
	share, err := lambdalocal.ShareForMemory(128)
	require.NoError(t, err)
	want := int(share * float64(20*time.Millisecond/time.Microsecond))
	quota, period := cpuQuota(t, inv.pid)
	assert.Equal(t, 20000, period, "CFS period of the function's cgroup, µs")
	assert.InDelta(t, want, quota, 1, "CFS quota of the function's cgroup = %dµs; want 128 MB's share %dµs", quota, want)
}

// cpuQuota reads the CFS quota and period of pid's cgroup, v1 or v2.
func cpuQuota(t *testing.T, pid int) (quota, period int) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	require.NoError(t, err)
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		require.Len(t, parts, 3, "line %q of /proc/%d/cgroup", line, pid)
		switch {
		case parts[0] == "0" && parts[1] == "":
			max, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", parts[2], "cpu.max"))
			require.NoError(t, err)
			_, err = fmt.Sscanf(string(max), "%d %d", &quota, &period)
			require.NoError(t, err, "cpu.max %q", max)
			return quota, period
		case slices.Contains(strings.Split(parts[1], ","), "cpu"):
			for _, dir := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
				q, err := os.ReadFile(filepath.Join(dir, parts[2], "cpu.cfs_quota_us"))
				if err != nil {
					continue
				}
				p, err := os.ReadFile(filepath.Join(dir, parts[2], "cpu.cfs_period_us"))
				require.NoError(t, err)
				quota, _ = strconv.Atoi(strings.TrimSpace(string(q)))
				period, _ = strconv.Atoi(strings.TrimSpace(string(p)))
				return quota, period
			}
		}
	}
	t.Fatalf("no cpu cgroup for pid %d in %s", pid, b)
	return 0, 0
}

// TestWhatTheFunctionDoesIsAnsweredAsLambdaAnswersIt: a function that really runs past its
// Timeout, fails its handler, or ends its process gets Lambda's answer to each, and the two that
// lose the environment get a fresh one on the next invoke.
func TestWhatTheFunctionDoesIsAnsweredAsLambdaAnswersIt(t *testing.T) {
	_, c := start(t)
	const name = "claims-0badcafe-does"
	create(t, c, name)
	before := invoke(t, c, name)

	failed := invokeWith(t, c, name, `{"fail":"the handler gave up"}`)
	assert.Equal(t, "Unhandled", aws.ToString(failed.out.FunctionError), "FunctionError of a failed handler (%s)", failed.out.Payload)
	assert.Contains(t, string(failed.out.Payload), "the handler gave up")
	assert.False(t, reportOf(t, failed).Cold(), "a failed handler keeps its environment")

	late := invokeWith(t, c, name, `{"sleepMs":1500}`)
	assert.Equal(t, "Unhandled", aws.ToString(late.out.FunctionError), "FunctionError past the Timeout (%s)", late.out.Payload)
	assert.Contains(t, string(late.out.Payload), "Task timed out after 1.00 seconds")
	assert.Equal(t, "timeout", reportOf(t, late).Status, "REPORT status past the Timeout (%q)", late.log)
	after := invoke(t, c, name)
	assert.NotEqual(t, before.pid, after.pid, "pid after a timeout = %d; want a fresh environment", after.pid)

	gone := invokeWith(t, c, name, `{"exit":true}`)
	assert.Equal(t, "Unhandled", aws.ToString(gone.out.FunctionError), "FunctionError of a process that exited (%s)", gone.out.Payload)
	assert.Equal(t, "error", reportOf(t, gone).Status, "REPORT status of a process that exited (%q)", gone.log)
	last := invoke(t, c, name)
	assert.NotEqual(t, after.pid, last.pid, "pid after the process exited = %d; want a fresh environment", last.pid)
	assert.True(t, reportOf(t, last).Cold(), "invoke after the process exited cold = false; want true (%q)", last.log)
}
