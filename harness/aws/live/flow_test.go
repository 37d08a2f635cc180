package live

import (
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/lambdaapi"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// propagation is how long the IAM stand-in keeps a new role from Lambda, as IAM does for a few
// seconds: CreateFunction must retry through it.
const propagation = 2 * time.Second

func TestTheWholeFlowAgainstTheStandIns(t *testing.T) {
	st := startStandins(t, Config{}, propagation)
	s := admitted(t, st.cfg, st.aws)
	ctx := t.Context()
	spec := getitemSpec(t, "claims-"+s.RunID, "getitem-128", 128) // built before the role ages

	role, err := s.Role(ctx)
	require.NoError(t, err)
	require.Error(t, st.iam.Assumable(role), "the new role is already assumable: CreateFunction's retry goes untested")
	assert.Equal(t, "arn:aws:iam::<account>:role/claims-"+s.RunID+"-exec", RedactARN(role), "the role's ARN, redacted")
	again, err := s.Role(ctx)
	require.NoError(t, err)
	assert.Equal(t, role, again, "a second Role call")
	assert.Equal(t, []string{"claims-" + s.RunID + "-exec"}, st.iam.Roles(), "roles in IAM")
	assertRole(t, s, "claims-"+s.RunID+"-exec")

	table, err := s.Table(ctx, benchItem())
	require.NoError(t, err)
	require.Equal(t, spec.Env["CLAIMS_TABLE"], table)
	f, err := s.CreateFunction(ctx, spec)
	require.NoError(t, err, "CreateFunction with a role Lambda cannot assume yet")
	assert.Equal(t, "claims-"+s.RunID+"-getitem-128", f.Name)
	assert.Equal(t, "arn:aws:lambda:us-east-1:<account>:function:"+f.Name, RedactARN(f.ARN), "the function's ARN, redacted")
	assert.Equal(t, s.tags(), functionTags(t, s, f), "the function's tags")
	days, ok := st.logs.Retention(FunctionLogGroup(f.Name))
	assert.True(t, ok && days == LogRetentionDays, "retention of the function's log group = %d days (made: %v); want %d, set before Lambda first logs", days, ok, LogRetentionDays)

	var billed float64
	invoke := func(what string) (Invocation, answer) {
		t.Helper()
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err, "%s invoke", what)
		require.Equal(t, 200, inv.Status, "%s invoke's status", what)
		require.Empty(t, inv.FunctionError, "%s invoke's function error (%s)", what, inv.Payload)
		a := decode(t, inv)
		assert.True(t, a.Found, "%s invoke: found = false; want the item read from the table (%s)", what, inv.Payload)
		assert.Equal(t, inv.RequestID, inv.Report.RequestID, "%s invoke: the REPORT is the request's", what)
		assert.Equal(t, 128, *inv.Report.MemorySizeMB, "%s invoke: REPORT Memory Size", what)
		assert.Positive(t, inv.ClientMs, "%s invoke: client time", what)
		billed += invocationUSD(s.Region, f.arch, *inv.Report.BilledDuration, *inv.Report.MemorySizeMB)
		return inv, a
	}
	first, a1 := invoke("first")
	assert.True(t, first.Report.Cold(), "first invoke: REPORT without Init Duration; want a cold start (%v)", first.Report.Fields)
	second, a2 := invoke("second")
	assert.False(t, second.Report.Cold(), "second invoke: REPORT with Init Duration; want a warm start")
	assert.Equal(t, a1.Pid, a2.Pid, "second invoke: pid = %d; want the first's %d (the same environment)", a2.Pid, a1.Pid)

	require.NoError(t, f.ColdStart(ctx))
	third, a3 := invoke("after ColdStart")
	assert.True(t, third.Report.Cold(), "invoke after ColdStart: REPORT without Init Duration; want a cold start")
	assert.NotEqual(t, a1.Pid, a3.Pid, "invoke after ColdStart: pid = %d, the first's; want a new environment", a3.Pid)
	assert.InDelta(t, billed, s.Spent(), 1e-15, "the tally = %v; want the REPORTs' bills %v", s.Spent(), billed)

	require.NoError(t, s.Close(ctx))
	assert.Empty(t, st.lambda.Functions(), "functions left after Close")
	assert.Zero(t, st.lambda.Environments(), "environments left after Close")
	assert.Empty(t, tablesNamed(t, s, NamePrefix), "tables left after Close")
	assert.Empty(t, st.iam.Roles(), "roles left after Close")
	require.NoError(t, s.Close(ctx), "a second Close")
}

// assertRole checks the run's role in IAM: its tags, Lambda's trust, and an inline policy that
// grants GetItem on the run's table only.
func assertRole(t *testing.T, s *Session, name string) {
	t.Helper()
	ctx := t.Context()
	tags, err := s.IAM.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String(name)})
	require.NoError(t, err)
	got := map[string]string{}
	for _, tag := range tags.Tags {
		got[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	assert.Equal(t, s.tags(), got, "the role's tags")
	pol, err := s.IAM.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(name)})
	require.NoError(t, err, "the role's inline policy")
	doc, err := url.QueryUnescape(aws.ToString(pol.PolicyDocument))
	require.NoError(t, err)
	assert.Contains(t, doc, `"dynamodb:GetItem"`)
	assert.Contains(t, doc, `"arn:aws:dynamodb:us-east-1:`+testAccount+`:table/claims-`+s.RunID+`"`, "policy = %s; want GetItem on the run's table", doc)
	assert.Contains(t, doc, `log-group:/aws/lambda/claims-`+s.RunID+`-*`, "policy = %s; want logs of the run's functions", doc)
}

func TestFaultsAgainstTheStandIns(t *testing.T) {
	st := startStandins(t, Config{RoleARN: testRole}, 0)
	s := admitted(t, st.cfg, st.aws)
	ctx := t.Context()
	table, err := s.Table(ctx, benchItem())
	require.NoError(t, err)
	f, err := s.CreateFunction(ctx, getitemSpec(t, table, "faults", 256))
	require.NoError(t, err)
	_, err = f.Invoke(ctx, []byte(`{}`))
	require.NoError(t, err, "an invoke without fault")

	t.Run("Conflict is waited out", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.Conflict, Function: f.Name, Count: 2})
		require.NoError(t, f.ColdStart(ctx), "ColdStart with two conflicting updates in progress")
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err)
		assert.True(t, inv.Report.Cold(), "the invoke after a ColdStart that met conflicts is not cold")
	})
	t.Run("Throttle is retried", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.Throttle, Count: 2})
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err, "an invoke throttled twice")
		assert.True(t, decode(t, inv).Found)
	})
	t.Run("InvokeTimeout is an Invocation with FunctionError", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.InvokeTimeout, Function: f.Name})
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err)
		assert.Equal(t, "Unhandled", inv.FunctionError)
		assert.Equal(t, "timeout", inv.Report.Status, "REPORT Status of a timed-out invoke")
		assert.Contains(t, string(inv.Payload), "Task timed out")
	})
	t.Run("FunctionError is an Invocation with FunctionError", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.FunctionError, Function: f.Name})
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err)
		assert.Equal(t, "Unhandled", inv.FunctionError)
		assert.Contains(t, string(inv.Payload), "FunctionError")
		assert.NotNil(t, inv.Report.BilledDuration, "a failed invoke still has its REPORT")
	})
	for kind, want := range map[lambdaapi.FaultKind]string{
		lambdaapi.TruncatedReport: "REPORT",
		lambdaapi.MissingReport:   "no REPORT",
	} {
		t.Run(kind.String()+" is an error naming the function and request", func(t *testing.T) {
			st.lambda.Inject(lambdaapi.Fault{Kind: kind, Function: f.Name})
			inv, err := f.Invoke(ctx, []byte(`{}`))
			require.Error(t, err, "an invoke with a %s was read", kind)
			assert.Contains(t, err.Error(), f.Name)
			require.NotEmpty(t, inv.RequestID)
			assert.Contains(t, err.Error(), inv.RequestID)
			assert.Contains(t, err.Error(), want)
			assert.NotContains(t, err.Error(), testAccount)
		})
	}
	t.Run("InvokeFailsAfterRun is retried and its attempts counted and tallied", func(t *testing.T) {
		before, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err)
		assert.Equal(t, 1, before.Attempts, "attempts of an invoke answered at once")
		spent := s.Spent()
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.InvokeFailsAfterRun, Function: f.Name})
		inv, err := f.Invoke(ctx, []byte(`{}`))
		require.NoError(t, err, "an invoke whose first attempt ran and answered 500")
		// The SDK's standard retryer retries a 5xx (aws/retry's retryable errors): the answer
		// is the second attempt's, and the function ran twice in the one environment.
		assert.Equal(t, 2, inv.Attempts, "attempts = %d; want 2 (the first ran, then answered 500)", inv.Attempts)
		assert.Equal(t, decode(t, before).Invocation+2, decode(t, inv).Invocation,
			"the function's invocation count after the retried invoke; want it to count both attempts")
		longest := invocationUSD(s.Region, f.arch, float64(f.timeoutSeconds)*1000, f.MemoryMB)
		billed := invocationUSD(s.Region, f.arch, *inv.Report.BilledDuration, *inv.Report.MemorySizeMB)
		assert.InDelta(t, spent+longest+billed, s.Spent(), 1e-15,
			"the tally = %v; want the answered attempt's bill plus the unanswered one at its longest", s.Spent())
	})
	t.Run("KMSGrant is retried within the role wait", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.KMSGrant, Count: 2})
		g, err := s.CreateFunction(ctx, getitemSpec(t, table, "kms", 128))
		require.NoError(t, err, "CreateFunction meeting the KMS CreateGrant refusal twice")
		assert.Contains(t, st.lambda.Functions(), g.Name)
		require.NoError(t, g.Delete(ctx))
	})
	t.Run("CreateFails deletes what was made", func(t *testing.T) {
		st.lambda.Inject(lambdaapi.Fault{Kind: lambdaapi.CreateFails})
		_, err := s.CreateFunction(ctx, getitemSpec(t, table, "fails", 128))
		require.Error(t, err, "a function that went to Failed was returned")
		name := "claims-" + s.RunID + "-fails"
		assert.Contains(t, err.Error(), name)
		assert.Contains(t, err.Error(), "Failed", "error = %v; want the state", err)
		assert.NotContains(t, st.lambda.Functions(), name, "the failed function is left: %v", st.lambda.Functions())
	})
	t.Run("an unknown function is an error naming it", func(t *testing.T) {
		gone := &Function{Name: "claims-" + s.RunID + "-gone", MemoryMB: 128, arch: f.arch, timeoutSeconds: 1, s: s}
		_, err := gone.Invoke(ctx, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), gone.Name)
		assert.Contains(t, err.Error(), "ResourceNotFoundException")
	})
	require.NoError(t, s.Close(ctx))
	assert.Empty(t, st.lambda.Functions(), "functions left after Close")
}

func TestAMemorySizeAboveTheQuotaNamesTheQuota(t *testing.T) {
	lam := lambdaapi.Start(t, lambdaapi.Options{Keys: sigv4check.Keys{testKeyID: testSecret}, MaxMemoryMB: 3008})
	c := defaultConfig()
	c.Arch, c.RoleARN, c.LambdaEndpoint = machineArch(), testRole, lam.URL()
	s := admitted(t, c, offline())
	_, err := s.CreateFunction(t.Context(), getitemSpec(t, "claims-"+s.RunID, "big", 3538))
	require.Error(t, err, "a function above the account's memory quota was made")
	for _, want := range []string{"3538 MB", "memory quota of 3008 MB", "AWS Support", "claims-" + s.RunID + "-big"} {
		assert.Contains(t, err.Error(), want, "error = %v; want it to name %q", err, want)
	}
	assert.Empty(t, lam.Functions(), "functions made")
}
