package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

// cloud is what deploy, destroy and clean ask of AWS, so that their order of creation and
// deletion is tested without it. Every Delete treats a resource already gone as deleted.
type cloud interface {
	CreateRole(ctx context.Context, name string, tags map[string]string) (arn string, err error)
	DeleteRole(ctx context.Context, name, runID string) error
	ListRoles(ctx context.Context, prefix string) ([]found, error)
	// CreateBucket makes the code bucket with a policy in the caller's partition, and returns
	// once S3 reports its versioning Enabled.
	CreateBucket(ctx context.Context, name, partition, account string, tags map[string]string) error
	// PutBundle returns the object version it made; never "".
	PutBundle(ctx context.Context, bucket, key, path string) (versionID string, err error)
	DeleteBucket(ctx context.Context, name string) error
	ListBuckets(ctx context.Context, prefix string) ([]found, error)
	CreateWebFunction(ctx context.Context, s functionSpec) error
	WaitEndpoint(ctx context.Context, function, endpoint string) (domain string, err error)
	// CheckServes returns once the endpoint answers /ping with 200, signed as the claims sign.
	CheckServes(ctx context.Context, e webendpoints.Endpoint) error
	DeleteWebFunction(ctx context.Context, name string) error
	ListWebFunctions(ctx context.Context, prefix string) ([]found, error)
	ListLogGroups(ctx context.Context, prefix string) ([]string, error)
	DeleteLogGroup(ctx context.Context, name string) error
}

// found is a resource a listing found: its name, and the run its claims:run tag names ("" when
// it has none, or the tags could not be read).
type found struct {
	Name  string
	RunID string
}

// names are the names of fs.
func names(fs []found) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// functionSpec is one create-web-function call.
type functionSpec struct {
	webFunction
	RoleARN, Bucket, Key, VersionID string
	Tags                            map[string]string
}

// The CLI's JSON arguments, as the Lambda Web API reference spells CreateWebFunction's
// revisionConfig and endpointConfig.
type (
	revisionConfig struct {
		BuildConfig   buildConfig   `json:"buildConfig"`
		Description   string        `json:"description,omitempty"`
		ServiceConfig serviceConfig `json:"serviceConfig"`
	}
	buildConfig struct {
		CodeConfig struct {
			S3Object struct {
				Bucket    string `json:"bucket"`
				Key       string `json:"key"`
				VersionID string `json:"versionId,omitempty"`
			} `json:"s3Object"`
		} `json:"codeConfig"`
		RuntimeConfig struct {
			Runtime string `json:"runtime"`
		} `json:"runtimeConfig"`
	}
	serviceConfig struct {
		ExecutionRoleARN             string `json:"executionRoleArn"`
		MaxConcurrencyPerEnvironment int    `json:"maxConcurrencyPerEnvironment"`
	}
	endpointConfig struct {
		EndpointName       string `json:"endpointName"`
		EndpointType       string `json:"endpointType"`
		AuthType           string `json:"authType"`
		AutoDeploymentMode string `json:"autoDeploymentMode"`
		ScalingConfig      struct {
			MaxEnvironments int `json:"maxEnvironments"`
		} `json:"scalingConfig"`
	}
)

// createArgs are the arguments of `aws lambda-web create-web-function` for s.
func createArgs(s functionSpec) ([]string, error) {
	var rc revisionConfig
	rc.BuildConfig.CodeConfig.S3Object.Bucket = s.Bucket
	rc.BuildConfig.CodeConfig.S3Object.Key = s.Key
	rc.BuildConfig.CodeConfig.S3Object.VersionID = s.VersionID
	rc.BuildConfig.RuntimeConfig.Runtime = webendpoints.Runtime
	rc.Description = "claims: " + s.Bundle
	rc.ServiceConfig = serviceConfig{ExecutionRoleARN: s.RoleARN, MaxConcurrencyPerEnvironment: s.Concurrency}
	ec := endpointConfig{EndpointName: endpointName, EndpointType: "HomeRegion", AuthType: webendpoints.AuthIAM, AutoDeploymentMode: "LatestRevision"}
	ec.ScalingConfig.MaxEnvironments = s.Environments
	var args []string
	for _, v := range []any{rc, ec, s.Tags} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		args = append(args, string(b))
	}
	return []string{"lambda-web", "create-web-function", "--function-name", s.Name,
		"--revision-config", args[0], "--endpoint-config", args[1], "--tags", args[2]}, nil
}

// awsCloud is cloud on AWS: IAM and S3 through the SDK, Web Functions and log groups through the
// CLI, and the endpoints' /ping through harness/workload/target, as the claims reach them.
type awsCloud struct {
	cfg    aws.Config
	live   live.Config
	iam    *iam.Client
	s3     *s3.Client
	cli    awsCLI
	region string
	// roleWait bounds the retries of a create that fails because a new role is not assumable
	// yet (IAM is eventually consistent), one every retryEvery; waitRounds is how many times the
	// CLI's endpoint waiter (5 minutes each) is run.
	roleWait   time.Duration
	retryEvery time.Duration
	waitRounds int
	// versionWait bounds the wait for a new bucket's versioning to read Enabled and for a
	// PutObject to answer a version id, one try every versionEvery.
	versionWait  time.Duration
	versionEvery time.Duration
	// serveWait bounds the wait for an endpoint to answer /ping, one try every serveEvery;
	// rootCAs verifies the endpoints (nil: the system's roots).
	serveWait  time.Duration
	serveEvery time.Duration
	rootCAs    *x509.CertPool
}

func newAWSCloud(r ready, c live.Config) *awsCloud {
	return &awsCloud{
		cfg: r.aws, live: c, iam: iam.NewFromConfig(r.aws), s3: s3.NewFromConfig(r.aws), cli: r.cli,
		region: r.aws.Region, roleWait: 2 * time.Minute, retryEvery: 5 * time.Second, waitRounds: 3,
		// S3 says a first enabling may take up to 15 minutes to propagate.
		versionWait: 15 * time.Minute, versionEvery: 10 * time.Second,
		// A new environment's init may take up to its 10 s timeout; the rest is the first
		// revision's rollout behind an endpoint already Active.
		serveWait: 3 * time.Minute, serveEvery: 5 * time.Second,
	}
}

// CreateRole makes the execution role, trusting lambda.amazonaws.com, tagged, with an inline
// policy that lets the functions write their logs in the region.
func (c *awsCloud) CreateRole(ctx context.Context, name string, tags map[string]string) (string, error) {
	var t []iamtypes.Tag
	for k, v := range tags {
		t = append(t, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := c.iam.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(live.LambdaTrust),
		Description: aws.String("claims live-web run: execution role of its Web Functions"), Tags: t,
	})
	if err != nil {
		return "", fmt.Errorf("CreateRole %s: %w", name, err)
	}
	arn := aws.ToString(out.Role.Arn)
	partition, account, err := arnParts(arn)
	if err != nil {
		return "", err
	}
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["logs:CreateLogGroup","logs:CreateLogStream","logs:PutLogEvents"],"Resource":"arn:%s:logs:%s:%s:*"}]}`,
		partition, c.region, account)
	if _, err := c.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{
		RoleName: aws.String(name), PolicyName: aws.String(name), PolicyDocument: aws.String(policy),
	}); err != nil {
		return "", fmt.Errorf("PutRolePolicy %s: %w", name, err)
	}
	return arn, nil
}

// arnParts reads the partition and account of an ARN.
func arnParts(arn string) (partition, account string, err error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[4] == "" {
		return "", "", fmt.Errorf("not an ARN with an account: %q", live.RedactARN(arn))
	}
	return parts[1], parts[4], nil
}

// DeleteRole deletes the role's inline policies, then the role, as liveclean does.
func (c *awsCloud) DeleteRole(ctx context.Context, name, runID string) error {
	return live.DeleteLeftovers(ctx, c.cfg, c.live, []live.Leftover{{Kind: live.KindRole, Name: name, RunID: runID}}, io.Discard)
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ListRoles lists the roles whose names begin with prefix and end in -web-exec, each with the
// run its tags name.
func (c *awsCloud) ListRoles(ctx context.Context, prefix string) ([]found, error) {
	var fs []found
	pages := iam.NewListRolesPaginator(c.iam, &iam.ListRolesInput{})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ListRoles: %w", err)
		}
		for _, r := range page.Roles {
			n := aws.ToString(r.RoleName)
			if !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, webRoleSuffix) {
				continue
			}
			f := found{Name: n}
			out, err := c.iam.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: r.RoleName})
			if err != nil {
				return nil, fmt.Errorf("ListRoleTags %s: %w", n, err)
			}
			for _, t := range out.Tags {
				if aws.ToString(t.Key) == live.TagRun {
					f.RunID = aws.ToString(t.Value)
				}
			}
			fs = append(fs, f)
		}
	}
	return fs, nil
}

// ListLogGroups lists the log groups whose names begin with prefix (the CLI follows the
// nextToken of DescribeLogGroups itself).
func (c *awsCloud) ListLogGroups(ctx context.Context, prefix string) ([]string, error) {
	var out struct {
		LogGroups []struct {
			LogGroupName string `json:"logGroupName"`
		} `json:"logGroups"`
	}
	if err := c.cli.run(ctx, &out, "logs", "describe-log-groups", "--log-group-name-prefix", prefix); err != nil {
		return nil, err
	}
	var groups []string
	for _, g := range out.LogGroups {
		if strings.HasPrefix(g.LogGroupName, prefix) {
			groups = append(groups, g.LogGroupName)
		}
	}
	return groups, nil
}

// DeleteLogGroup deletes a log group with its streams; one already gone is deleted.
func (c *awsCloud) DeleteLogGroup(ctx context.Context, name string) error {
	if err := c.cli.run(ctx, nil, "logs", "delete-log-group", "--log-group-name", name); err != nil && !notFound(err) {
		return err
	}
	return nil
}
