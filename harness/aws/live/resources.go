package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// LambdaTrust is the trust policy that lets Lambda assume a role: the service principal
// lambda.amazonaws.com, for Event Functions and Web Functions alike.
const LambdaTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

// tableWait bounds the wait for a new table to become ACTIVE.
const tableWait = 5 * time.Minute

// Role returns the execution role's ARN: CLAIMS_LAMBDA_ROLE_ARN, or claims-<run>-exec made now
// with Lambda's trust policy and an inline policy allowing the run's functions to write their logs
// and to read the run's table. Both are deleted at Close (the policy first, as IAM requires). The
// role is made once per session; later calls return it.
func (s *Session) Role(ctx context.Context) (string, error) {
	if s.Config.RoleARN != "" {
		return s.Config.RoleARN, nil
	}
	s.roleMu.Lock()
	defer s.roleMu.Unlock()
	if s.roleARN != "" {
		return s.roleARN, nil
	}
	name, err := s.name("exec")
	if err != nil {
		return "", err
	}
	done, err := s.mayMake("role " + name)
	if err != nil {
		return "", err
	}
	defer done()
	var tags []iamtypes.Tag
	for k, v := range s.tags() {
		tags = append(tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := s.IAM.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName:                 aws.String(name),
		AssumeRolePolicyDocument: aws.String(LambdaTrust),
		Description:              aws.String("claims live run " + s.RunID + ": execution role of its functions"),
		Tags:                     tags,
	})
	if err != nil {
		return "", redact(fmt.Errorf("live: CreateRole %s: %w", name, err))
	}
	s.made("role "+name, func(ctx context.Context) error {
		_, err := s.IAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
		return ignoreNotFound(err)
	})
	arn := aws.ToString(out.Role.Arn)
	policy, err := s.rolePolicy(arn)
	if err != nil {
		return "", err
	}
	if _, err := s.IAM.PutRolePolicy(ctx, &iam.PutRolePolicyInput{
		RoleName: aws.String(name), PolicyName: aws.String(name), PolicyDocument: aws.String(policy),
	}); err != nil {
		return "", redact(fmt.Errorf("live: PutRolePolicy %s: %w", name, err))
	}
	s.made("inline policy of role "+name, func(ctx context.Context) error {
		_, err := s.IAM.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(name)})
		return ignoreNotFound(err)
	})
	s.roleARN = arn
	return arn, nil
}

// rolePolicy is the run's inline policy, scoped by the partition and account of the role's ARN.
func (s *Session) rolePolicy(roleARN string) (string, error) {
	// arn:PARTITION:iam::ACCOUNT:role/NAME
	parts := strings.SplitN(roleARN, ":", 6)
	if len(parts) != 6 || parts[4] == "" {
		return "", fmt.Errorf("live: CreateRole answered an ARN that is not a role's: %q", RedactARN(roleARN))
	}
	partition, account := parts[1], parts[4]
	table := s.Config.Table
	if table == "" {
		table = NamePrefix + s.RunID
	}
	type statement struct {
		Effect   string
		Action   []string
		Resource []string
	}
	doc := struct {
		Version   string
		Statement []statement
	}{"2012-10-17", []statement{
		{"Allow", []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"},
			[]string{fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws/lambda/%s%s-*", partition, s.Region, account, NamePrefix, s.RunID),
				fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws/lambda/%s%s-*:*", partition, s.Region, account, NamePrefix, s.RunID)}},
		{"Allow", []string{"dynamodb:GetItem"},
			[]string{fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", partition, s.Region, account, table)}},
		// ListTables names no resource: IAM only grants it on every table.
		{"Allow", []string{"dynamodb:ListTables"}, []string{"*"}},
	}}
	b, err := json.Marshal(doc)
	return string(b), err
}

// Table returns the table holding item: CLAIMS_DYNAMODB_TABLE (which must hold it already), or
// claims-<run> made now (on demand, a string hash key pk), with item put in it, and deleted at
// Close. The table is made with its tags (CreateTable's Tags), so that a run killed before the
// table is ACTIVE leaves nothing cmd/liveclean cannot find by them. The table is made once per
// session; later calls return it.
func (s *Session) Table(ctx context.Context, item map[string]types.AttributeValue) (string, error) {
	if s.Config.Table != "" {
		return s.Config.Table, nil
	}
	s.tableMu.Lock()
	defer s.tableMu.Unlock()
	if s.table != "" {
		return s.table, nil
	}
	name, err := s.name("")
	if err != nil {
		return "", err
	}
	done, err := s.mayMake("table " + name)
	if err != nil {
		return "", err
	}
	defer done()
	if _, ok := item["pk"]; !ok {
		return "", fmt.Errorf("live: the item for table %s has no pk, its hash key", name)
	}
	var tags []types.Tag
	for k, v := range s.tags() {
		tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := s.DynamoDB.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		Tags:                 tags,
	})
	if err != nil {
		return "", redact(fmt.Errorf("live: CreateTable %s: %w", name, err))
	}
	s.made("table "+name, func(ctx context.Context) error {
		return deleteTable(ctx, s.DynamoDB, name, s.waitMin, s.waitMax)
	})
	done()
	if err := dynamodb.NewTableExistsWaiter(s.DynamoDB, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = s.waitMin, s.waitMax
	}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, tableWait); err != nil {
		return "", redact(fmt.Errorf("live: waiting for table %s to exist: %w", name, err))
	}
	if err := s.ensureTableTags(ctx, name, out.TableDescription.TableArn, tags); err != nil {
		return "", err
	}
	if _, err := s.DynamoDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
		return "", redact(fmt.Errorf("live: PutItem into table %s: %w", name, err))
	}
	s.table = name
	return name, nil
}

// ensureTableTags checks that the table carries the run's tags, and tags it where it does not:
// an endpoint that speaks DynamoDB's API may ignore CreateTable's Tags (dynalite does), and the
// tags are how cmd/liveclean finds what a run left. DynamoDB's ListTagsOfResource is eventually
// consistent (its TagResource reference says so); one that has not caught up only makes this
// tag the table again with the same values, which TagResource overwrites.
func (s *Session) ensureTableTags(ctx context.Context, name string, arn *string, tags []types.Tag) error {
	have, err := s.DynamoDB.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil {
		return redact(fmt.Errorf("live: ListTagsOfResource table %s: %w", name, err))
	}
	got := map[string]string{}
	for _, t := range have.Tags {
		got[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	for k, v := range s.tags() {
		if got[k] != v {
			if _, err := s.DynamoDB.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: tags}); err != nil {
				return redact(fmt.Errorf("live: TagResource table %s: %w", name, err))
			}
			return nil
		}
	}
	return nil
}

// deleteTable deletes a table and waits until it is gone: DynamoDB deletes in the background, and
// a table still DELETING is still listed.
func deleteTable(ctx context.Context, client *dynamodb.Client, name string, minDelay, maxDelay time.Duration) error {
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	if err = ignoreNotFound(err); err != nil {
		return err
	}
	return dynamodb.NewTableNotExistsWaiter(client, func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = minDelay, maxDelay
	}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, tableWait)
}

// ignoreNotFound makes the deletion of something already gone a success: Close is idempotent
// across sessions and cmd/liveclean.
func ignoreNotFound(err error) error {
	var (
		iamGone    *iamtypes.NoSuchEntityException
		dynamoGone *types.ResourceNotFoundException
	)
	if errors.As(err, &iamGone) || errors.As(err, &dynamoGone) || isLambdaNotFound(err) {
		return nil
	}
	return err
}
