package live

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	logstypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
)

// LambdaLogGroupPrefix begins the log group Lambda writes a function's logs to unless the
// function names another: /aws/lambda/<function name>. Lambda makes the group when the function
// first logs, with no tags and no retention, so it outlives the function unless deleted.
const LambdaLogGroupPrefix = "/aws/lambda/"

// FunctionLogGroup is the log group Lambda makes for the function named function.
func FunctionLogGroup(function string) string { return LambdaLogGroupPrefix + function }

// runLogGroup matches the log group of a function a run made: /aws/lambda/claims-<run id>-<what>,
// the run id being NewRunID's 8 lowercase hex characters. Nothing tags these groups, so the
// shape of the name is all that tells a run's group from a user's /aws/lambda/claims-… group.
var runLogGroup = regexp.MustCompile(`^` + regexp.QuoteMeta(LambdaLogGroupPrefix+NamePrefix) + `([0-9a-f]{8})-[A-Za-z0-9_-]+$`)

// logGroupRun is the run id in a run's function log group name, or false for another group.
func logGroupRun(name string) (string, bool) {
	m := runLogGroup.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// NewLogsClient is a CloudWatch Logs client on awsCfg, retrying as the session's other clients
// do. Its endpoint is the SDK's (AWS_ENDPOINT_URL_CLOUDWATCH_LOGS overrides it).
func NewLogsClient(awsCfg aws.Config) *cloudwatchlogs.Client {
	return cloudwatchlogs.NewFromConfig(awsCfg, func(o *cloudwatchlogs.Options) {
		o.Retryer = retry.AddWithMaxAttempts(o.Retryer, maxAttempts)
	})
}

// LogRetentionDays is how long the events of a run's function log group are kept: CloudWatch
// Logs' shortest retention, long enough to read a failed run's logs, short enough that nothing
// accumulates.
const LogRetentionDays = 1

// PrepareLogGroup makes the log group name (Lambda uses a group that exists rather than making
// its own) and sets its retention to LogRetentionDays; a group that exists already is kept and
// given the retention. A group made this way expires its events even when the run is killed, and
// even when a late log delivery (Lambda's logs can arrive minutes after the invocation) comes
// after Close: a group deleted at Close could be made again by that delivery, without retention.
func PrepareLogGroup(ctx context.Context, client *cloudwatchlogs.Client, name string) error {
	_, err := client.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(name)})
	var exists *logstypes.ResourceAlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		return redact(fmt.Errorf("live: CreateLogGroup %s (logs:CreateLogGroup): %w", name, err))
	}
	_, err = client.PutRetentionPolicy(ctx, &cloudwatchlogs.PutRetentionPolicyInput{
		LogGroupName: aws.String(name), RetentionInDays: aws.Int32(LogRetentionDays),
	})
	if err != nil {
		return redact(fmt.Errorf("live: PutRetentionPolicy %s (logs:PutRetentionPolicy): %w", name, err))
	}
	return nil
}

// DeleteLogGroup deletes the log group name; one that does not exist (the function never logged,
// or it was deleted already) is no error.
func DeleteLogGroup(ctx context.Context, client *cloudwatchlogs.Client, name string) error {
	_, err := client.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String(name)})
	if err = ignoreLogGroupGone(err); err != nil {
		return redact(fmt.Errorf("live: DeleteLogGroup %s: %w", name, err))
	}
	return nil
}

// ignoreLogGroupGone makes the deletion of a log group already gone a success.
func ignoreLogGroupGone(err error) error {
	var gone *logstypes.ResourceNotFoundException
	if errors.As(err, &gone) {
		return nil
	}
	return err
}
