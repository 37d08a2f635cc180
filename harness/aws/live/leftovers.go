package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

// The kinds of Leftover.
const (
	KindFunction = "function"
	KindRole     = "role"
	KindTable    = "table"
	// KindLogGroup is a function's log group, /aws/lambda/claims-<run>-<what>, which Lambda made
	// untagged: it is found by the shape of its name.
	KindLogGroup = "log-group"
)

// Leftover is a resource an earlier run made and did not delete (a run killed hard, a network
// gone at the end), found by its claims:run tag, or a log group by its name.
type Leftover struct {
	Kind  string // KindFunction, KindRole, KindTable or KindLogGroup
	Name  string
	RunID string
	// Created is from the claims:created tag (a log group's creation time); zero when it is
	// missing or unreadable.
	Created time.Time
}

// InUse names what a cleaner must spare: the resources of a Web deployment that
// `make live-web-deploy` wrote to its endpoints file and `make live-web-destroy` has not yet
// deleted. The zero InUse spares nothing.
type InUse struct {
	RunIDs []string // every resource of these runs is spared
	Names  []string // and these by name (the deployment's functions, bucket and role)
	Source string   // where this was read, for messages
}

// spares says whether a resource of run named name is in use.
func (u InUse) spares(run, name string) bool {
	return slices.Contains(u.RunIDs, run) || slices.Contains(u.Names, name)
}

// InUseFromFile reads the Web deployment in the endpoints file at path (webendpoints.File): its run
// and the names it made are in use. No file is nothing in use; a file that cannot be read is an
// error, since what it names cannot be told apart from a leftover then.
func InUseFromFile(path string) (InUse, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return InUse{}, nil
	}
	d, err := webendpoints.Read(path)
	if err != nil {
		return InUse{}, fmt.Errorf("live: the Web endpoints file cannot be read, so its deployment cannot be spared: %w; "+
			"run `make live-web-destroy`, or move the file away if that deployment is gone", err)
	}
	u := InUse{Source: path}
	if d.RunID != "" {
		u.RunIDs = append(u.RunIDs, d.RunID)
	}
	for _, n := range []string{d.Bucket, d.Role} {
		if n != "" {
			u.Names = append(u.Names, n)
		}
	}
	for _, e := range d.Endpoints {
		if e.Function != "" {
			u.Names = append(u.Names, e.Function)
		}
	}
	return u, nil
}

// cleaner holds the clients FindLeftovers and DeleteLeftovers use.
type cleaner struct {
	lambda *lambda.Client
	iam    *iam.Client
	dynamo *dynamodb.Client
	logs   *cloudwatchlogs.Client
}

func newCleaner(awsCfg aws.Config, c Config) (cleaner, error) {
	if err := c.Validate(); err != nil {
		return cleaner{}, err
	}
	return cleaner{
		lambda: lambda.NewFromConfig(awsCfg, func(o *lambda.Options) {
			if c.LambdaEndpoint != "" {
				o.BaseEndpoint = aws.String(c.LambdaEndpoint)
			}
		}),
		iam:    iam.NewFromConfig(awsCfg),
		dynamo: dynamodb.NewFromConfig(awsCfg),
		logs:   cloudwatchlogs.NewFromConfig(awsCfg),
	}, nil
}

// leftover makes a Leftover from a resource's tags, or says it is none.
func leftover(kind, name string, tags map[string]string) (Leftover, bool) {
	run, ok := tags[TagRun]
	if !ok {
		return Leftover{}, false
	}
	created, _ := time.Parse(time.RFC3339, tags[TagCreated])
	return Leftover{Kind: kind, Name: name, RunID: run, Created: created}, true
}

// FindLeftovers lists the functions, roles and tables named claims-… that carry the claims:run
// tag, and the log groups /aws/lambda/claims-<run>-… of functions that are gone or leftovers, in
// the region of awsCfg (IAM is global). The resources c names (CLAIMS_LAMBDA_ROLE_ARN,
// CLAIMS_DYNAMODB_TABLE) are the user's and never listed, nor is anything inUse spares.
func FindLeftovers(ctx context.Context, awsCfg aws.Config, c Config, inUse InUse) ([]Leftover, error) {
	cl, err := newCleaner(awsCfg, c)
	if err != nil {
		return nil, err
	}
	var ls []Leftover
	keep := inUse.spares
	// kept are the claims-… functions that stay (untagged, or in use): their log groups stay too.
	kept := map[string]bool{}
	fns := lambda.NewListFunctionsPaginator(cl.lambda, &lambda.ListFunctionsInput{})
	for fns.HasMorePages() {
		page, err := fns.NextPage(ctx)
		if err != nil {
			return nil, redact(fmt.Errorf("live: ListFunctions: %w", err))
		}
		for _, f := range page.Functions {
			name := aws.ToString(f.FunctionName)
			if !strings.HasPrefix(name, NamePrefix) {
				continue
			}
			tags, err := cl.lambda.ListTags(ctx, &lambda.ListTagsInput{Resource: f.FunctionArn})
			if err != nil {
				return nil, redact(fmt.Errorf("live: ListTags function %s: %w", name, err))
			}
			if l, ok := leftover(KindFunction, name, tags.Tags); ok && !keep(l.RunID, name) {
				ls = append(ls, l)
			} else {
				kept[name] = true
			}
		}
	}
	roles := iam.NewListRolesPaginator(cl.iam, &iam.ListRolesInput{})
	for roles.HasMorePages() {
		page, err := roles.NextPage(ctx)
		if err != nil {
			return nil, redact(fmt.Errorf("live: ListRoles: %w", err))
		}
		for _, r := range page.Roles {
			name := aws.ToString(r.RoleName)
			if !strings.HasPrefix(name, NamePrefix) || aws.ToString(r.Arn) == c.RoleARN {
				continue
			}
			out, err := cl.iam.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: r.RoleName})
			if err != nil {
				return nil, redact(fmt.Errorf("live: ListRoleTags role %s: %w", name, err))
			}
			tags := map[string]string{}
			for _, t := range out.Tags {
				tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			if l, ok := leftover(KindRole, name, tags); ok && !keep(l.RunID, name) {
				ls = append(ls, l)
			}
		}
	}
	tables := dynamodb.NewListTablesPaginator(cl.dynamo, &dynamodb.ListTablesInput{})
	for tables.HasMorePages() {
		page, err := tables.NextPage(ctx)
		if err != nil {
			return nil, redact(fmt.Errorf("live: ListTables: %w", err))
		}
		for _, name := range page.TableNames {
			if !strings.HasPrefix(name, NamePrefix) || name == c.Table {
				continue
			}
			d, err := cl.dynamo.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if ignoreNotFound(err) == nil && err != nil {
				continue // gone since it was listed
			}
			if err != nil {
				return nil, redact(fmt.Errorf("live: DescribeTable %s: %w", name, err))
			}
			if d.Table.TableStatus == dynamotypes.TableStatusDeleting {
				continue // on its way out already
			}
			out, err := cl.dynamo.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
			if err != nil {
				return nil, redact(fmt.Errorf("live: ListTagsOfResource table %s: %w", name, err))
			}
			tags := map[string]string{}
			for _, t := range out.Tags {
				tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			if l, ok := leftover(KindTable, name, tags); ok && !keep(l.RunID, name) {
				ls = append(ls, l)
			}
		}
	}
	groups, err := cl.findLogGroups(ctx, func(run, group string) bool {
		fn := strings.TrimPrefix(group, LambdaLogGroupPrefix)
		return keep(run, fn) || kept[fn]
	})
	if err != nil {
		return nil, err
	}
	return append(ls, groups...), nil
}

// findLogGroups lists the log groups of run functions (logGroupRun) that keep does not spare.
func (cl cleaner) findLogGroups(ctx context.Context, keep func(run, group string) bool) ([]Leftover, error) {
	var ls []Leftover
	groups := cloudwatchlogs.NewDescribeLogGroupsPaginator(cl.logs, &cloudwatchlogs.DescribeLogGroupsInput{
		LogGroupNamePrefix: aws.String(LambdaLogGroupPrefix + NamePrefix),
	})
	for groups.HasMorePages() {
		page, err := groups.NextPage(ctx)
		if err != nil {
			return nil, redact(fmt.Errorf("live: DescribeLogGroups (logs:DescribeLogGroups) under %s%s: %w", LambdaLogGroupPrefix, NamePrefix, err))
		}
		for _, g := range page.LogGroups {
			name := aws.ToString(g.LogGroupName)
			run, ok := logGroupRun(name)
			if !ok || keep(run, name) {
				continue
			}
			l := Leftover{Kind: KindLogGroup, Name: name, RunID: run}
			if ms := aws.ToInt64(g.CreationTime); ms > 0 {
				l.Created = time.UnixMilli(ms).UTC().Truncate(time.Second)
			}
			ls = append(ls, l)
		}
	}
	return ls, nil
}

// deleteOrder deletes functions before their log groups (a function still running could make
// its group again), then tables, and roles when nothing else depends on them.
var deleteOrder = map[string]int{KindFunction: 0, KindLogGroup: 1, KindTable: 2, KindRole: 3}

// DeleteLeftovers deletes ls (functions first, roles last, a role's inline policies before it),
// printing each deletion to out. It goes on past a failure and returns every failure, each naming
// the resource and the operation; something already gone is no failure.
func DeleteLeftovers(ctx context.Context, awsCfg aws.Config, c Config, ls []Leftover, out io.Writer) error {
	cl, err := newCleaner(awsCfg, c)
	if err != nil {
		return err
	}
	ls = slices.Clone(ls)
	slices.SortStableFunc(ls, func(a, b Leftover) int { return deleteOrder[a.Kind] - deleteOrder[b.Kind] })
	var errs []error
	for _, l := range ls {
		var err error
		switch l.Kind {
		case KindFunction:
			_, err = cl.lambda.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String(l.Name)})
			err = opErr("DeleteFunction", l, err)
		case KindLogGroup:
			err = DeleteLogGroup(ctx, cl.logs, l.Name)
		case KindTable:
			err = opErr("DeleteTable", l, deleteTable(ctx, cl.dynamo, l.Name, 200*time.Millisecond, 3*time.Second))
		case KindRole:
			err = cl.deleteRole(ctx, l)
		default:
			err = fmt.Errorf("live: %s %s: unknown kind", l.Kind, l.Name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(out, "deleted %s %s (run %s)\n", l.Kind, l.Name, l.RunID)
	}
	return errors.Join(errs...)
}

// deleteRole deletes a role's inline policies, then the role.
func (cl cleaner) deleteRole(ctx context.Context, l Leftover) error {
	pols := iam.NewListRolePoliciesPaginator(cl.iam, &iam.ListRolePoliciesInput{RoleName: aws.String(l.Name)})
	for pols.HasMorePages() {
		page, err := pols.NextPage(ctx)
		if err != nil {
			return opErr("ListRolePolicies", l, err)
		}
		for _, p := range page.PolicyNames {
			_, err := cl.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(l.Name), PolicyName: aws.String(p)})
			if err := opErr("DeleteRolePolicy "+p+" of", l, err); err != nil {
				return err
			}
		}
	}
	_, err := cl.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(l.Name)})
	return opErr("DeleteRole", l, err)
}

// opErr names the operation and the resource of a failure; a resource already gone is none.
func opErr(op string, l Leftover, err error) error {
	if err = ignoreNotFound(err); err != nil {
		return redact(fmt.Errorf("live: %s %s %s: %w", op, l.Kind, l.Name, err))
	}
	return nil
}
