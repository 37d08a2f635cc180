package live

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestLeftoversAreFoundByTagAndDeleted(t *testing.T) {
	st := startStandins(t, Config{}, 0)
	ctx := t.Context()
	s := abandoned(t, st)
	untaggedTable(t, s, "claims-not-a-run")

	ls, err := FindLeftovers(ctx, st.aws, st.cfg)
	require.NoError(t, err)
	want := []Leftover{
		{Kind: KindFunction, Name: "claims-" + s.RunID + "-left", RunID: s.RunID, Created: s.Created},
		{Kind: KindRole, Name: "claims-" + s.RunID + "-exec", RunID: s.RunID, Created: s.Created},
		{Kind: KindTable, Name: "claims-" + s.RunID, RunID: s.RunID, Created: s.Created},
	}
	assert.ElementsMatch(t, want, ls, "leftovers found")

	var out strings.Builder
	require.NoError(t, DeleteLeftovers(ctx, st.aws, st.cfg, ls, &out))
	for _, l := range want {
		assert.Contains(t, out.String(), "deleted "+l.Kind+" "+l.Name, "what DeleteLeftovers printed: %s", out.String())
	}
	assert.Empty(t, st.lambda.Functions(), "functions left")
	assert.Empty(t, st.iam.Roles(), "roles left (the inline policy must go first)")
	assert.Equal(t, []string{"claims-not-a-run"}, tablesNamed(t, s, NamePrefix), "tables left: only the untagged one")
	assert.NotContains(t, out.String(), testAccount, "DeleteLeftovers printed the account")

	ls, err = FindLeftovers(ctx, st.aws, st.cfg)
	require.NoError(t, err)
	assert.Empty(t, ls, "leftovers after deleting them")
	assert.NoError(t, DeleteLeftovers(ctx, st.aws, st.cfg, want, &out), "deleting what is already gone")
	assert.NoError(t, s.Close(ctx), "the abandoned session's Close after the cleaner")
}
