package live

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/dynalite"
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

// createTableTags records the Tags of every CreateTable a client sends, and counts its
// TagResource calls.
type createTableTags struct {
	mu          sync.Mutex
	created     []map[string]string
	tagResource int
}

// option adds the recorder to a configuration's clients.
func (r *createTableTags) option(st *middleware.Stack) error {
	return st.Initialize.Add(middleware.InitializeMiddlewareFunc("claimsRecordTags", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error,
	) {
		r.mu.Lock()
		switch p := in.Parameters.(type) {
		case *dynamodb.CreateTableInput:
			tags := map[string]string{}
			for _, tag := range p.Tags {
				tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
			}
			r.created = append(r.created, tags)
		case *dynamodb.TagResourceInput:
			r.tagResource++
		}
		r.mu.Unlock()
		return next.HandleInitialize(ctx, in)
	}), middleware.After)
}

// TestTableIsCreatedWithItsTags: the tags go in CreateTable itself, so that no moment exists in
// which the run's table is untagged (a kill before TagResource left one no tool finds).
func TestTableIsCreatedWithItsTags(t *testing.T) {
	db := dynalite.Start(t, dynalite.Options{})
	c := defaultConfig()
	awsCfg := standinAWS(t, c, map[string]string{"DYNAMODB": db.Endpoint}, db.CA.Pool())
	var rec createTableTags
	awsCfg.APIOptions = append(awsCfg.APIOptions, rec.option)
	s := admitted(t, c, awsCfg)
	_, err := s.Table(t.Context(), benchItem())
	require.NoError(t, err)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.created, 1, "CreateTable calls")
	assert.Equal(t, s.tags(), rec.created[0], "CreateTable's Tags = %v; want the run's tags %v", rec.created[0], s.tags())
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
