package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
)

// The kinds of Leftover.
const (
	KindFunction = "function"
	KindRole     = "role"
	KindTable    = "table"
)

// Leftover is a resource an earlier run made and did not delete (a run killed hard, a network
// gone at the end), found by its claims:run tag.
type Leftover struct {
	Kind    string // KindFunction, KindRole or KindTable
	Name    string
	RunID   string
	Created time.Time // from the claims:created tag; zero when it is missing or unreadable
}

// cleaner holds the clients FindLeftovers and DeleteLeftovers use.
type cleaner struct {
	lambda *lambda.Client
	iam    *iam.Client
	dynamo *dynamodb.Client
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
// tag, in the region of awsCfg (IAM is global). The resources c names (CLAIMS_LAMBDA_ROLE_ARN,
// CLAIMS_DYNAMODB_TABLE) are the user's and never listed.
func FindLeftovers(ctx context.Context, awsCfg aws.Config, c Config) ([]Leftover, error) {
	cl, err := newCleaner(awsCfg, c)
	if err != nil {
		return nil, err
	}
	var ls []Leftover
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
			if l, ok := leftover(KindFunction, name, tags.Tags); ok {
				ls = append(ls, l)
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
			if l, ok := leftover(KindRole, name, tags); ok {
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
			if l, ok := leftover(KindTable, name, tags); ok {
				ls = append(ls, l)
			}
		}
	}
	return ls, nil
}

// deleteOrder deletes functions before tables and roles before nothing else depends on them.
var deleteOrder = map[string]int{KindFunction: 0, KindTable: 1, KindRole: 2}

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
