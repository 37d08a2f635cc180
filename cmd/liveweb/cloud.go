package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/serverless-claims/claims/harness/live"
	"github.com/serverless-claims/claims/harness/webdeploy"
)

// cloud is what deploy and destroy ask of AWS, so that their order of creation and deletion is
// tested without it. Every Delete treats a resource already gone as deleted.
type cloud interface {
	CreateRole(ctx context.Context, name string, tags map[string]string) (arn string, err error)
	DeleteRole(ctx context.Context, name, runID string) error
	CreateBucket(ctx context.Context, name, account string, tags map[string]string) error
	PutBundle(ctx context.Context, bucket, key, path string) (versionID string, err error)
	DeleteBucket(ctx context.Context, name string) error
	ListBuckets(ctx context.Context, prefix string) ([]string, error)
	CreateWebFunction(ctx context.Context, s functionSpec) error
	WaitEndpoint(ctx context.Context, function, endpoint string) (domain string, err error)
	DeleteWebFunction(ctx context.Context, name string) error
	ListWebFunctions(ctx context.Context, prefix string) ([]string, error)
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
	rc.BuildConfig.RuntimeConfig.Runtime = webdeploy.Runtime
	rc.Description = "claims: " + s.Bundle
	rc.ServiceConfig = serviceConfig{ExecutionRoleARN: s.RoleARN, MaxConcurrencyPerEnvironment: s.Concurrency}
	ec := endpointConfig{EndpointName: endpointName, EndpointType: "HomeRegion", AuthType: webdeploy.AuthIAM, AutoDeploymentMode: "LatestRevision"}
	ec.ScalingConfig.MaxEnvironments = webdeploy.MaxEnvironments
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

// awsCloud is cloud on AWS: IAM and S3 through the SDK, Web Functions through the CLI.
type awsCloud struct {
	cfg    aws.Config
	live   live.Config
	iam    *iam.Client
	s3     *s3.Client
	cli    awsCLI
	region string
	// roleWait bounds the retries of a create that fails because a new role is not assumable
	// yet (IAM is eventually consistent); waitRounds is how many times the CLI's endpoint
	// waiter (5 minutes each) is run.
	roleWait   time.Duration
	waitRounds int
}

func newAWSCloud(r ready, c live.Config) *awsCloud {
	return &awsCloud{
		cfg: r.aws, live: c, iam: iam.NewFromConfig(r.aws), s3: s3.NewFromConfig(r.aws), cli: r.cli,
		region: r.aws.Region, roleWait: 2 * time.Minute, waitRounds: 3,
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

// CreateBucket makes the code bucket in the region, tagged and versioned (Lambda pins each
// revision to an object version), with a policy letting Lambda read the objects for this
// account's Web Functions, over TLS only.
func (c *awsCloud) CreateBucket(ctx context.Context, name, account string, tags map[string]string) error {
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if c.region != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(c.region)}
	}
	if _, err := c.s3.CreateBucket(ctx, in); err != nil {
		return fmt.Errorf("CreateBucket %s: %w", name, err)
	}
	var t []s3types.Tag
	for k, v := range tags {
		t = append(t, s3types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if _, err := c.s3.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String(name), Tagging: &s3types.Tagging{TagSet: t}}); err != nil {
		return fmt.Errorf("PutBucketTagging %s: %w", name, err)
	}
	if _, err := c.s3.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{
		Bucket: aws.String(name), VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled},
	}); err != nil {
		return fmt.Errorf("PutBucketVersioning %s: %w", name, err)
	}
	if _, err := c.s3.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(name), Policy: aws.String(bucketPolicy(name, c.region, account))}); err != nil {
		return fmt.Errorf("PutBucketPolicy %s: %w", name, err)
	}
	return nil
}

// bucketPolicy lets lambda.amazonaws.com read the bucket's object versions for this account's
// Web Functions in region, and refuses every request not over TLS.
func bucketPolicy(bucket, region, account string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[`+
		`{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":"arn:aws:s3:::%[1]s/*",`+
		`"Condition":{"StringEquals":{"aws:SourceAccount":"%[3]s"},"ArnLike":{"aws:SourceArn":"arn:aws:lambda:%[2]s:%[3]s:web-function/*"}}},`+
		`{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
		bucket, region, account)
}

// PutBundle uploads a bundle and returns the object version it made.
func (c *awsCloud) PutBundle(ctx context.Context, bucket, key, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	out, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: f, ContentType: aws.String("application/zip")})
	if err != nil {
		return "", fmt.Errorf("PutObject %s/%s: %w", bucket, key, err)
	}
	return aws.ToString(out.VersionId), nil
}

// DeleteBucket deletes every object version and delete marker, then the bucket.
func (c *awsCloud) DeleteBucket(ctx context.Context, name string) error {
	pages := s3.NewListObjectVersionsPaginator(c.s3, &s3.ListObjectVersionsInput{Bucket: aws.String(name)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if bucketGone(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("ListObjectVersions %s: %w", name, err)
		}
		var ids []s3types.ObjectIdentifier
		for _, v := range page.Versions {
			ids = append(ids, s3types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		for _, m := range page.DeleteMarkers {
			ids = append(ids, s3types.ObjectIdentifier{Key: m.Key, VersionId: m.VersionId})
		}
		if len(ids) == 0 {
			continue
		}
		out, err := c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(name), Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("DeleteObjects %s: %w", name, err)
		}
		if len(out.Errors) > 0 {
			return fmt.Errorf("DeleteObjects %s: %d objects not deleted, the first %s: %s", name, len(out.Errors), aws.ToString(out.Errors[0].Key), aws.ToString(out.Errors[0].Message))
		}
	}
	if _, err := c.s3.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)}); err != nil && !bucketGone(err) {
		return fmt.Errorf("DeleteBucket %s: %w", name, err)
	}
	return nil
}

// bucketGone says the bucket does not exist (any more).
func bucketGone(err error) bool {
	var nsb *s3types.NoSuchBucket
	return errors.As(err, &nsb) || (err != nil && strings.Contains(err.Error(), "NoSuchBucket"))
}

// ListBuckets lists the account's buckets whose names begin with prefix.
func (c *awsCloud) ListBuckets(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	pages := s3.NewListBucketsPaginator(c.s3, &s3.ListBucketsInput{Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ListBuckets: %w", err)
		}
		for _, b := range page.Buckets {
			if n := aws.ToString(b.Name); strings.HasPrefix(n, prefix) {
				names = append(names, n)
			}
		}
	}
	return names, nil
}

// CreateWebFunction runs create-web-function, retrying while Lambda cannot assume the new role.
func (c *awsCloud) CreateWebFunction(ctx context.Context, s functionSpec) error {
	args, err := createArgs(s)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(c.roleWait)
	for {
		err := c.cli.run(ctx, nil, args...)
		var ce *cliError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(strings.ToLower(ce.stderr), "role") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(5 * time.Second):
		}
	}
}

// WaitEndpoint waits until the endpoint is Active (the CLI's waiter, up to waitRounds times: a
// first deploy takes minutes) and returns its domain name.
func (c *awsCloud) WaitEndpoint(ctx context.Context, function, endpoint string) (string, error) {
	args := []string{"--function-name", function, "--endpoint-name", endpoint}
	var err error
	for range c.waitRounds {
		if err = c.cli.run(ctx, nil, append([]string{"lambda-web", "wait", "web-function-endpoint-active"}, args...)...); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("waiting for endpoint %s of %s: %w", endpoint, function, err)
	}
	var ep struct {
		DomainName string `json:"domainName"`
		State      string `json:"state"`
	}
	if err := c.cli.run(ctx, &ep, append([]string{"lambda-web", "get-web-function-endpoint"}, args...)...); err != nil {
		return "", err
	}
	if ep.DomainName == "" {
		return "", fmt.Errorf("endpoint %s of %s is %s with no domain name", endpoint, function, ep.State)
	}
	return ep.DomainName, nil
}

// DeleteWebFunction deletes the function with its revisions and endpoints, and waits until it
// is gone.
func (c *awsCloud) DeleteWebFunction(ctx context.Context, name string) error {
	if err := c.cli.run(ctx, nil, "lambda-web", "delete-web-function", "--function-name", name); err != nil {
		if notFound(err) {
			return nil
		}
		return err
	}
	if err := c.cli.run(ctx, nil, "lambda-web", "wait", "web-function-deleted", "--function-name", name); err != nil && !notFound(err) {
		return err
	}
	return nil
}

// ListWebFunctions lists the Web Functions whose names begin with prefix.
func (c *awsCloud) ListWebFunctions(ctx context.Context, prefix string) ([]string, error) {
	var out struct {
		Functions []struct {
			FunctionName string `json:"functionName"`
		} `json:"functions"`
	}
	if err := c.cli.run(ctx, &out, "lambda-web", "list-web-functions"); err != nil {
		return nil, err
	}
	var names []string
	for _, f := range out.Functions {
		if strings.HasPrefix(f.FunctionName, prefix) {
			names = append(names, f.FunctionName)
		}
	}
	return names, nil
}
