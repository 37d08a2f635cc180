package live

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

// abandoned is a run that made a role, a table and a function and was never closed, as when the
// test binary is killed hard.
func abandoned(t *testing.T, st *standins) *Session {
	t.Helper()
	s, err := Open(t.Context(), st.cfg, st.aws)
	require.NoError(t, err)
	e := EstimateCost(s.Region, st.cfg.Arch, []PlannedFunction{{Name: "f", MemoryMB: 128, Invocations: 1, MaxSecondsEach: 3}}, 1)
	require.NoError(t, s.Admit(e, &strings.Builder{}))
	table, err := s.Table(t.Context(), benchItem())
	require.NoError(t, err)
	_, err = s.CreateFunction(t.Context(), getitemSpec(t, table, "left", 128))
	require.NoError(t, err)
	return s
}

// untaggedTable makes a table named like a run's but not tagged as one: not a leftover.
func untaggedTable(t *testing.T, s *Session, name string) {
	t.Helper()
	_, err := s.DynamoDB.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

// withoutCreated is ls with no Created times, to compare what differs by kind apart.
func withoutCreated(ls []Leftover) []Leftover {
	out := make([]Leftover, 0, len(ls))
	for _, l := range ls {
		l.Created = time.Time{}
		out = append(out, l)
	}
	return out
}

func TestLeftoversAreFoundByTagAndDeleted(t *testing.T) {
	st := startStandins(t, Config{}, 0)
	logs := st.logs
	ctx := t.Context()
	s := abandoned(t, st)
	untaggedTable(t, s, "claims-not-a-run")
	// What Lambda made when the function first logged, and groups that are not a run's.
	runGroup := FunctionLogGroup("claims-" + s.RunID + "-left")
	logs.AddLogGroup(runGroup)
	notOurs := []string{
		"/aws/lambda/claims-processor",                // a user's function named claims-…, not a run's shape
		"/aws/lambda/web/claims-" + s.RunID + "-node", // a Web Function's, cmd/liveweb's to clean
		"/aws/lambda/other",
	}
	for _, g := range notOurs {
		logs.AddLogGroup(g)
	}

	ls, err := FindLeftovers(ctx, st.aws, st.cfg, InUse{})
	require.NoError(t, err)
	want := []Leftover{
		{Kind: KindFunction, Name: "claims-" + s.RunID + "-left", RunID: s.RunID, Created: s.Created},
		{Kind: KindRole, Name: "claims-" + s.RunID + "-exec", RunID: s.RunID, Created: s.Created},
		{Kind: KindTable, Name: "claims-" + s.RunID, RunID: s.RunID, Created: s.Created},
		{Kind: KindLogGroup, Name: runGroup, RunID: s.RunID},
	}
	assert.ElementsMatch(t, withoutCreated(want), withoutCreated(ls), "leftovers found")
	for _, l := range ls {
		if l.Kind == KindLogGroup {
			assert.WithinDuration(t, time.Now(), l.Created, time.Minute, "log group's Created = %v; want its creation time", l.Created)
		} else {
			assert.Equal(t, s.Created, l.Created, "%s %s Created", l.Kind, l.Name)
		}
	}

	var out strings.Builder
	require.NoError(t, DeleteLeftovers(ctx, st.aws, st.cfg, ls, &out))
	for _, l := range want {
		assert.Contains(t, out.String(), "deleted "+l.Kind+" "+l.Name, "what DeleteLeftovers printed: %s", out.String())
	}
	assert.Less(t, strings.Index(out.String(), "deleted "+KindFunction), strings.Index(out.String(), "deleted "+KindLogGroup),
		"the function is deleted before its log group (printed %s)", out.String())
	assert.Empty(t, st.lambda.Functions(), "functions left")
	assert.Empty(t, st.iam.Roles(), "roles left (the inline policy must go first)")
	assert.Equal(t, []string{"claims-not-a-run"}, tablesNamed(t, s, NamePrefix), "tables left: only the untagged one")
	assert.ElementsMatch(t, notOurs, logs.LogGroups(), "log groups left: only those that are not a run's")
	assert.NotContains(t, out.String(), testAccount, "DeleteLeftovers printed the account")

	ls, err = FindLeftovers(ctx, st.aws, st.cfg, InUse{})
	require.NoError(t, err)
	assert.Empty(t, ls, "leftovers after deleting them")
	assert.NoError(t, DeleteLeftovers(ctx, st.aws, st.cfg, want, &out), "deleting what is already gone")
	assert.NoError(t, s.Close(ctx), "the abandoned session's Close after the cleaner")
}

// webDeployment writes an endpoints file naming run's deployment, with role as its role.
func webDeployment(t *testing.T, run, role string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "endpoints.json")
	require.NoError(t, webendpoints.Write(path, webendpoints.Deployment{
		RunID: run, Region: testRegion, CreatedAt: time.Now().UTC(), Role: role, Bucket: "claims-" + run + "-web-code",
		Endpoints: []webendpoints.Endpoint{{Name: webendpoints.Go, URL: "https://abc.lambda-web." + testRegion + ".on.aws",
			Auth: webendpoints.AuthIAM, Function: "claims-" + run + "-go"}},
	}))
	return path
}

func TestLeftoversSpareTheWebDeploymentInUse(t *testing.T) {
	st := startStandins(t, Config{}, 0)
	logs := st.logs
	ctx := t.Context()
	inUse := abandoned(t, st) // the run of the deployment in the endpoints file
	other := abandoned(t, st) // a dead run, but its role is the one the file names
	dead := abandoned(t, st)  // a dead run
	for _, s := range []*Session{inUse, other, dead} {
		logs.AddLogGroup(FunctionLogGroup("claims-" + s.RunID + "-left"))
	}
	u, err := InUseFromFile(webDeployment(t, inUse.RunID, "claims-"+other.RunID+"-exec"))
	require.NoError(t, err)
	assert.Equal(t, []string{inUse.RunID}, u.RunIDs, "runs in use")
	assert.ElementsMatch(t, []string{"claims-" + inUse.RunID + "-web-code", "claims-" + other.RunID + "-exec", "claims-" + inUse.RunID + "-go"}, u.Names)

	ls, err := FindLeftovers(ctx, st.aws, st.cfg, u)
	require.NoError(t, err)
	var got []string
	for _, l := range ls {
		assert.NotEqual(t, inUse.RunID, l.RunID, "%s %s of the run in use was listed", l.Kind, l.Name)
		got = append(got, l.Kind+" "+l.Name)
	}
	assert.ElementsMatch(t, []string{
		"function claims-" + other.RunID + "-left", "table claims-" + other.RunID, "log-group " + FunctionLogGroup("claims-"+other.RunID+"-left"),
		"function claims-" + dead.RunID + "-left", "table claims-" + dead.RunID, "role claims-" + dead.RunID + "-exec",
		"log-group " + FunctionLogGroup("claims-"+dead.RunID+"-left"),
	}, got, "leftovers: all but the run in use and the role the file names")

	require.NoError(t, DeleteLeftovers(ctx, st.aws, st.cfg, ls, &strings.Builder{}))
	assert.ElementsMatch(t, []string{"claims-" + inUse.RunID + "-exec", "claims-" + other.RunID + "-exec"}, st.iam.Roles(), "roles left")
	assert.Equal(t, []string{FunctionLogGroup("claims-" + inUse.RunID + "-left")}, logs.LogGroups(), "log groups left")
	assert.Len(t, st.lambda.Functions(), 1, "functions left: the run in use's")
	for _, s := range []*Session{inUse, other, dead} {
		assert.NoError(t, s.Close(context.WithoutCancel(ctx)), "Close of run %s", s.RunID)
	}
}

func TestLogGroupOfAFunctionThatStaysIsSpared(t *testing.T) {
	st := startStandins(t, Config{}, 0)
	logs := st.logs
	ctx := t.Context()
	s := abandoned(t, st)
	// A function named like a run's but untagged, so not a leftover: its log group stays too.
	untagged := "claims-" + s.RunID + "-mine"
	spec := getitemSpec(t, "claims-"+s.RunID, "mine", 128)
	_, err := s.Lambda.CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String(untagged), Role: aws.String(s.roleARN), Runtime: lambdatypes.RuntimeProvidedal2023,
		Handler: aws.String("bootstrap"), Code: &lambdatypes.FunctionCode{ZipFile: spec.Zip},
		Architectures: []lambdatypes.Architecture{lambdatypes.Architecture(st.cfg.Arch)},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = s.Lambda.DeleteFunction(context.WithoutCancel(ctx), &lambda.DeleteFunctionInput{FunctionName: aws.String(untagged)})
	})
	logs.AddLogGroup(FunctionLogGroup(untagged))
	logs.AddLogGroup(FunctionLogGroup("claims-" + s.RunID + "-left"))

	ls, err := FindLeftovers(ctx, st.aws, st.cfg, InUse{})
	require.NoError(t, err)
	var groups []string
	for _, l := range ls {
		if l.Kind == KindLogGroup {
			groups = append(groups, l.Name)
		}
	}
	assert.Equal(t, []string{FunctionLogGroup("claims-" + s.RunID + "-left")}, groups,
		"log groups listed: the leftover function's, not the untagged function's")
	require.NoError(t, s.Close(ctx))
}

func TestInUseFromFile(t *testing.T) {
	t.Run("no file is nothing in use", func(t *testing.T) {
		u, err := InUseFromFile(filepath.Join(t.TempDir(), "endpoints.json"))
		require.NoError(t, err)
		assert.Equal(t, InUse{}, u)
	})
	t.Run("a file that cannot be read stops the cleaner", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "endpoints.json")
		require.NoError(t, webendpoints.Write(path, webendpoints.Deployment{RunID: "0123abcd"})) // no endpoints
		_, err := InUseFromFile(path)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cannot be spared")
		assert.Contains(t, err.Error(), "make live-web-destroy")
	})
}

func TestLogGroupNamesOfARun(t *testing.T) {
	for name, want := range map[string]string{
		"/aws/lambda/claims-0123abcd-left":     "0123abcd",
		"/aws/lambda/claims-0123abcd-t1_cold":  "0123abcd",
		"/aws/lambda/claims-processor":         "",
		"/aws/lambda/claims-0123ABCD-left":     "",
		"/aws/lambda/claims-0123abcd":          "",
		"/aws/lambda/web/claims-0123abcd-node": "",
		"/aws/lambda/claims-0123abcd-x/y":      "",
	} {
		run, ok := logGroupRun(name)
		assert.Equal(t, want, run, "run of %s", name)
		assert.Equal(t, want != "", ok, "%s is a run's log group", name)
	}
}

// TestLeftoverRolesPastTheFirstPageAreFound: ListRoles answers at most 100 roles a page (IAM's
// default MaxItems) and a Marker for the rest; a run's role that sorts after 100 roles of the
// account's own is on the second page, and must be found there.
func TestLeftoverRolesPastTheFirstPageAreFound(t *testing.T) {
	st := startStandins(t, Config{}, 0)
	s := abandoned(t, st)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	for i := range 100 {
		_, err := s.IAM.CreateRole(t.Context(), &iam.CreateRoleInput{
			RoleName: aws.String(fmt.Sprintf("an-account-role-%03d", i)), AssumeRolePolicyDocument: aws.String(trust)})
		require.NoError(t, err)
	}
	ls, err := FindLeftovers(t.Context(), st.aws, st.cfg, InUse{})
	require.NoError(t, err)
	var roles []string
	for _, l := range ls {
		if l.Kind == KindRole {
			roles = append(roles, l.Name)
		}
	}
	assert.Equal(t, []string{"claims-" + s.RunID + "-exec"}, roles, "leftover roles = %v; want the run's, on ListRoles' second page", roles)
}
