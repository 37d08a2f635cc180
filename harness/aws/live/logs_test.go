package live

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/logsstub"
	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// TestDeleteLogGroupThroughTheEndpointVariable: the client NewLogsClient makes from the SDK's
// configuration reaches AWS_ENDPOINT_URL_CLOUDWATCH_LOGS; DeleteLogGroup deletes the group, and a
// group that is not there (the function never logged) is no error.
func TestDeleteLogGroupThroughTheEndpointVariable(t *testing.T) {
	logs := logsstub.Start(t, logsstub.Options{Keys: sigv4check.Keys{testKeyID: testSecret}, Region: testRegion})
	awsCfg := standinAWS(t, defaultConfig(), map[string]string{"CLOUDWATCH_LOGS": logs.URL()}, nil)
	client := NewLogsClient(awsCfg)
	group := FunctionLogGroup("claims-0123abcd-t1")
	assert.Equal(t, "/aws/lambda/claims-0123abcd-t1", group, "the log group Lambda makes for a function")
	logs.AddLogGroup(group)
	logs.AddLogGroup("/aws/lambda/claims-0123abcd-t2")

	require.NoError(t, DeleteLogGroup(t.Context(), client, group))
	assert.Equal(t, []string{"/aws/lambda/claims-0123abcd-t2"}, logs.LogGroups(), "log groups after deleting %s", group)
	assert.NoError(t, DeleteLogGroup(t.Context(), client, group), "deleting a log group already gone")
	assert.Equal(t, 2, logs.Calls("DeleteLogGroup"), "DeleteLogGroup calls the stand-in answered")

	err := DeleteLogGroup(t.Context(), client, "not a group name")
	require.Error(t, err, "a refused DeleteLogGroup is an error")
	assert.Contains(t, err.Error(), "DeleteLogGroup not a group name", "error = %v; want it to name the call and the group", err)
	assert.Contains(t, err.Error(), "InvalidParameterException")
}

// TestPrepareLogGroupSetsTheRetention: the run's function log group is made before Lambda makes
// it, with the shortest retention, so that a killed run's logs expire; a group Lambda made first
// is given the retention too.
func TestPrepareLogGroupSetsTheRetention(t *testing.T) {
	logs := logsstub.Start(t, logsstub.Options{Keys: sigv4check.Keys{testKeyID: testSecret}, Region: testRegion})
	client := NewLogsClient(standinAWS(t, defaultConfig(), map[string]string{"CLOUDWATCH_LOGS": logs.URL()}, nil))
	fresh := FunctionLogGroup("claims-0123abcd-t1")
	require.NoError(t, PrepareLogGroup(t.Context(), client, fresh))
	days, ok := logs.Retention(fresh)
	assert.True(t, ok, "%s made", fresh)
	assert.Equal(t, LogRetentionDays, days, "retention of %s = %d days; want %d", fresh, days, LogRetentionDays)

	made := FunctionLogGroup("claims-0123abcd-t2")
	logs.AddLogGroup(made) // Lambda made it first
	require.NoError(t, PrepareLogGroup(t.Context(), client, made))
	days, _ = logs.Retention(made)
	assert.Equal(t, LogRetentionDays, days, "retention of a group Lambda made = %d days; want %d", days, LogRetentionDays)

	err := PrepareLogGroup(t.Context(), client, "not a group name")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CreateLogGroup not a group name (logs:CreateLogGroup)", "error = %v", err)
}
