package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/dynalite"
)

// benchItem is the item a run's table holds.
func benchItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":    &types.AttributeValueMemberS{Value: "bench"},
		"claim": &types.AttributeValueMemberS{Value: "T1"},
	}
}

// admitted opens a session on awsCfg and admits a small estimate.
func admitted(t *testing.T, c Config, awsCfg aws.Config) *Session {
	t.Helper()
	s, err := Open(t.Context(), c, awsCfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		// t.Context() is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		assert.NoError(t, s.Close(ctx), "closing the session at the test's end")
	})
	e := EstimateCost(s.Region, c.Arch, []PlannedFunction{{Name: "f", MemoryMB: 128, Invocations: 5, MaxSecondsEach: 3}}, 5)
	require.NoError(t, s.Admit(e, &strings.Builder{}))
	return s
}

func TestTableIsMadeTaggedFilledAndDeletedAtClose(t *testing.T) {
	db := dynalite.Start(t, dynalite.Options{})
	c := defaultConfig()
	awsCfg := standinAWS(t, c, map[string]string{"DYNAMODB": db.Endpoint}, db.CA.Pool())
	s := admitted(t, c, awsCfg)
	ctx := t.Context()

	name, err := s.Table(ctx, benchItem())
	require.NoError(t, err)
	assert.Equal(t, "claims-"+s.RunID, name, "table name")

	d, err := s.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, d.Table.TableStatus)
	tags, err := s.DynamoDB.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	require.NoError(t, err)
	got := map[string]string{}
	for _, tag := range tags.Tags {
		got[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	assert.Equal(t, s.tags(), got, "the table's tags")
	item, err := s.DynamoDB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "bench"}}})
	require.NoError(t, err)
	assert.Equal(t, benchItem(), item.Item, "the item in the table")

	require.NoError(t, s.Close(ctx))
	_, err = s.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var gone *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &gone, "DescribeTable after Close: %v; want ResourceNotFoundException", err)
	assert.NoError(t, s.Close(ctx), "a second Close")
}

func TestAConfiguredTableIsUsedAsIs(t *testing.T) {
	c := defaultConfig()
	c.Table = "their-table"
	s := admitted(t, c, offline())
	name, err := s.Table(t.Context(), benchItem())
	require.NoError(t, err, "a configured table makes no call")
	assert.Equal(t, "their-table", name)
	assert.Empty(t, s.undo, "nothing registered for deletion")
}
