package logsstub

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

const (
	testKeyID  = "AKIDCLAIMSSTANDIN"
	testSecret = "claims-standin-secret"
)

// client is the SDK's CloudWatch Logs client at s, signing with secret for region.
func client(s *Server, secret, region string) *cloudwatchlogs.Client {
	return cloudwatchlogs.New(cloudwatchlogs.Options{
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider(testKeyID, secret, ""),
		BaseEndpoint:     aws.String(s.URL()),
		RetryMaxAttempts: 1,
	})
}

func start(t *testing.T) (*Server, *cloudwatchlogs.Client) {
	t.Helper()
	s := Start(t, Options{Keys: sigv4check.Keys{testKeyID: testSecret}})
	return s, client(s, testSecret, DefaultRegion)
}

// describeAll lists every group under prefix through the SDK's paginator, limit a page, and
// counts the pages.
func describeAll(t *testing.T, c *cloudwatchlogs.Client, prefix string, limit int32) ([]types.LogGroup, int) {
	t.Helper()
	in := &cloudwatchlogs.DescribeLogGroupsInput{}
	if prefix != "" {
		in.LogGroupNamePrefix = aws.String(prefix)
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	p := cloudwatchlogs.NewDescribeLogGroupsPaginator(c, in)
	var all []types.LogGroup
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		require.NoError(t, err)
		all = append(all, page.LogGroups...)
		pages++
	}
	return all, pages
}

func names(gs []types.LogGroup) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		out = append(out, aws.ToString(g.LogGroupName))
	}
	return out
}

func TestDescribeLogGroupsFiltersByPrefixSortedAndPaginated(t *testing.T) {
	s, c := start(t)
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("/aws/lambda/claims-0000000%d-f", 6-i) // added out of order
		s.AddLogGroup(name)
		want = append([]string{name}, want...)
	}
	s.AddLogGroup("/aws/lambda/other")
	s.AddLogGroup("/aws/lambda/web/claims-00000001-node")

	got, pages := describeAll(t, c, "/aws/lambda/claims-", 3)
	assert.Equal(t, want, names(got), "groups under the prefix, ASCII-sorted")
	assert.Equal(t, 3, pages, "pages of at most 3 for 7 groups = %d; want 3", pages)
	for _, g := range got {
		assert.Equal(t, "arn:aws:logs:us-east-1:"+sigv4check.DefaultAccountID+":log-group:"+aws.ToString(g.LogGroupName)+":*", aws.ToString(g.Arn))
		assert.NotZero(t, aws.ToInt64(g.CreationTime), "creationTime of %s", aws.ToString(g.LogGroupName))
	}

	all, pages := describeAll(t, c, "", 0)
	assert.Len(t, all, 9, "every group without a prefix")
	assert.Equal(t, 1, pages, "pages at the default limit of 50 = %d; want 1", pages)

	none, _ := describeAll(t, c, "/aws/lambda/nothing-", 0)
	assert.Empty(t, none)
}

func TestDescribeLogGroupsRefusesALimitOutsideOneToFifty(t *testing.T) {
	_, c := start(t)
	for _, limit := range []int32{0, 51} {
		_, err := c.DescribeLogGroups(t.Context(), &cloudwatchlogs.DescribeLogGroupsInput{Limit: aws.Int32(limit)})
		var ipe *types.InvalidParameterException
		assert.True(t, errors.As(err, &ipe), "DescribeLogGroups limit %d: err = %v; want InvalidParameterException", limit, err)
	}
	_, err := c.DescribeLogGroups(t.Context(), &cloudwatchlogs.DescribeLogGroupsInput{
		LogGroupNamePrefix: aws.String("/a"), LogGroupNamePattern: aws.String("a")})
	var ipe *types.InvalidParameterException
	assert.True(t, errors.As(err, &ipe), "prefix with pattern: err = %v; want InvalidParameterException", err)
}

func TestCreateAndDeleteLogGroup(t *testing.T) {
	s, c := start(t)
	ctx := t.Context()
	name := "/aws/lambda/claims-00000000-f"
	_, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(name), Tags: map[string]string{"claims:run": "00000000"}})
	require.NoError(t, err)
	assert.Equal(t, []string{name}, s.LogGroups())

	_, err = c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(name)})
	var exists *types.ResourceAlreadyExistsException
	assert.True(t, errors.As(err, &exists), "second CreateLogGroup: err = %v; want ResourceAlreadyExistsException", err)

	_, err = c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String("bad name")})
	var ipe *types.InvalidParameterException
	assert.True(t, errors.As(err, &ipe), "a name with a space: err = %v; want InvalidParameterException", err)

	_, err = c.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String(name), RetentionInDays: aws.Int32(2)})
	assert.True(t, errors.As(err, &ipe), "retention of 2 days: err = %v; want InvalidParameterException (not an allowed value)", err)
	_, err = c.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String(name), RetentionInDays: aws.Int32(1)})
	require.NoError(t, err)
	days, ok := s.Retention(name)
	assert.True(t, ok)
	assert.Equal(t, 1, days, "retention after PutRetentionPolicy")

	_, err = c.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String(name)})
	require.NoError(t, err)
	assert.Empty(t, s.LogGroups())

	_, err = c.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String(name)})
	var gone *types.ResourceNotFoundException
	assert.True(t, errors.As(err, &gone), "DeleteLogGroup of a deleted group: err = %v; want ResourceNotFoundException", err)
	_, err = c.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{LogGroupName: aws.String(name), RetentionInDays: aws.Int32(1)})
	assert.True(t, errors.As(err, &gone), "PutRetentionPolicy of a deleted group: err = %v; want ResourceNotFoundException", err)
	assert.Equal(t, 2, s.Calls("DeleteLogGroup"))
}

func TestRefusesWhatIsNotSignedForLogsHere(t *testing.T) {
	s, _ := start(t)
	s.AddLogGroup("/aws/lambda/claims-00000000-f")
	for name, tc := range map[string]struct {
		c    *cloudwatchlogs.Client
		code string
	}{
		"a wrong secret": {client(s, "not-the-secret", DefaultRegion), "InvalidSignatureException"},
		"another region": {client(s, testSecret, "eu-west-1"), "InvalidSignatureException"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.c.DeleteLogGroup(t.Context(), &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String("/aws/lambda/claims-00000000-f")})
			var ae smithy.APIError
			require.True(t, errors.As(err, &ae), "err = %v; want an API error", err)
			assert.Equal(t, tc.code, ae.ErrorCode(), "error code = %s; want %s", ae.ErrorCode(), tc.code)
		})
	}
	assert.Equal(t, []string{"/aws/lambda/claims-00000000-f"}, s.LogGroups(), "a refused request deleted the group")

	// Unsigned, and a target of another service.
	for _, target := range []string{targetPrefix + "DescribeLogGroups", "DynamoDB_20120810.ListTables"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL(), bytes.NewReader([]byte("{}")))
		require.NoError(t, err)
		req.Header.Set("X-Amz-Target", target)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "unsigned %s: status = %d; want 400 (%s)", target, resp.StatusCode, body)
		assert.Contains(t, string(body), "MissingAuthenticationTokenException", "unsigned %s: body %s", target, body)
	}
}

func TestUnknownOperationIsRefused(t *testing.T) {
	_, c := start(t)
	_, err := c.DescribeLogStreams(t.Context(), &cloudwatchlogs.DescribeLogStreamsInput{LogGroupName: aws.String("/x")})
	var ae smithy.APIError
	require.True(t, errors.As(err, &ae), "err = %v; want an API error", err)
	assert.Equal(t, "UnknownOperationException", ae.ErrorCode())
}
