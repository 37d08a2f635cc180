package main

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/workload/target"
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

// CreateBucket makes the code bucket in the region, tagged and versioned (Lambda pins each
// revision to an object version), with a policy letting Lambda read the objects for this
// account's Web Functions, over TLS only, and waits until S3 reads its versioning back as Enabled.
func (c *awsCloud) CreateBucket(ctx context.Context, name, partition, account string, tags map[string]string) error {
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
	if err := c.waitVersioning(ctx, name); err != nil {
		return err
	}
	if _, err := c.s3.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(name), Policy: aws.String(bucketPolicy(name, partition, c.region, account))}); err != nil {
		return fmt.Errorf("PutBucketPolicy %s: %w", name, err)
	}
	return nil
}

// waitVersioning returns once GetBucketVersioning reads Enabled, within versionWait: a bucket
// whose versioning was never set answers no status at all (S3 API reference,
// GetBucketVersioning), and a first enabling takes a while to propagate.
func (c *awsCloud) waitVersioning(ctx context.Context, name string) error {
	deadline := time.Now().Add(c.versionWait)
	for {
		out, err := c.s3.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(name)})
		if err != nil {
			return fmt.Errorf("GetBucketVersioning %s: %w", name, err)
		}
		if out.Status == s3types.BucketVersioningStatusEnabled {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bucket %s: versioning reads %q, not Enabled, %s after it was enabled; no bundle was uploaded, since Lambda pins a revision to an object version", name, out.Status, c.versionWait)
		}
		if err := sleep(ctx, c.versionEvery); err != nil {
			return err
		}
	}
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

// bucketPolicy lets lambda.amazonaws.com read the bucket's object versions for this account's
// Web Functions in region, and refuses every request not over TLS. Every ARN is in partition,
// the caller's (aws, aws-cn, aws-us-gov...), as an ARN's second field names it.
func bucketPolicy(bucket, partition, region, account string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[`+
		`{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":["s3:GetObject","s3:GetObjectVersion"],"Resource":"arn:%[4]s:s3:::%[1]s/*",`+
		`"Condition":{"StringEquals":{"aws:SourceAccount":"%[3]s"},"ArnLike":{"aws:SourceArn":"arn:%[4]s:lambda:%[2]s:%[3]s:web-function/*"}}},`+
		`{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:%[4]s:s3:::%[1]s","arn:%[4]s:s3:::%[1]s/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
		bucket, region, account, partition)
}

// PutBundle uploads a bundle and returns the object version it made. An answer without a
// version id (S3 gives one only where versioning is in effect, and "null" to an object put
// while it is not) is retried within versionWait, then is an error: an empty version would
// leave the revision pinned to whatever the key holds at creation time.
func (c *awsCloud) PutBundle(ctx context.Context, bucket, key, path string) (string, error) {
	deadline := time.Now().Add(c.versionWait)
	for {
		v, err := c.putObject(ctx, bucket, key, path)
		if err != nil {
			return "", err
		}
		if v != "" && v != "null" {
			return v, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("PutObject %s/%s: S3 answered no object version (%q) for %s: the bucket's versioning is not in effect; nothing was deployed from it", bucket, key, v, c.versionWait)
		}
		if err := sleep(ctx, c.versionEvery); err != nil {
			return "", err
		}
	}
}

// putObject uploads the file at path once and returns the version id S3 answered.
func (c *awsCloud) putObject(ctx context.Context, bucket, key, path string) (string, error) {
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

// ListBuckets lists the buckets of the region whose names begin with prefix, each with the run
// its tags name.
func (c *awsCloud) ListBuckets(ctx context.Context, prefix string) ([]found, error) {
	var fs []found
	pages := s3.NewListBucketsPaginator(c.s3, &s3.ListBucketsInput{Prefix: aws.String(prefix), BucketRegion: aws.String(c.region)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ListBuckets: %w", err)
		}
		for _, b := range page.Buckets {
			n := aws.ToString(b.Name)
			if !strings.HasPrefix(n, prefix) {
				continue
			}
			f := found{Name: n}
			// A bucket with no tags answers NoSuchTagSet; its run is then read from its name.
			if out, err := c.s3.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: b.Name}); err == nil {
				for _, t := range out.TagSet {
					if aws.ToString(t.Key) == live.TagRun {
						f.RunID = aws.ToString(t.Value)
					}
				}
			}
			fs = append(fs, f)
		}
	}
	return fs, nil
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

// The lambda-web errors the create is judged by. The Lambda API's own wording for a role that
// IAM has not yet made assumable is "The role defined for the function cannot be assumed by
// Lambda"; no other wording is documented for Web Functions, so only that one is retried.
const (
	roleNotYetAssumable = "cannot be assumed"
	passRole            = "iam:passrole"
)

// createError says what a failed create-web-function means: whether to retry it (the new role
// not assumable yet), and the error to report, naming the missing permission where the CLI's
// answer shows one.
func createError(err error) (retry bool, out error) {
	var ce *cliError
	if !errors.As(err, &ce) {
		return false, err
	}
	msg := strings.ToLower(ce.stderr)
	switch {
	case strings.Contains(msg, "accessdenied") || strings.Contains(msg, "not authorized"):
		if strings.Contains(msg, passRole) {
			return false, fmt.Errorf("%w\nthe caller may not pass the execution role to Lambda: allow iam:PassRole on it (with the condition iam:PassedToService = lambda.amazonaws.com)", err)
		}
		return false, err
	case strings.Contains(msg, roleNotYetAssumable):
		return true, err
	case strings.Contains(msg, "internalserverexception") || strings.Contains(msg, "(500)"):
		// A create whose caller cannot read the code object answers a bare 500
		// (agent-toolkit-for-aws, aws-lambda-web-functions/references/troubleshooting.md).
		return false, fmt.Errorf("%w\nthe likely cause: the caller lacks s3:GetObject and s3:GetObjectVersion on the code bucket (Lambda reads the bundle with the caller's permissions, not only the bucket policy's)", err)
	}
	return false, err
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
		if err == nil {
			return nil
		}
		retry, err := createError(err)
		if !retry || time.Now().After(deadline) {
			return err
		}
		if serr := sleep(ctx, c.retryEvery); serr != nil {
			return err
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

// CheckServes asks the endpoint for /ping, signed with the SDK's credentials for an IamAuth
// endpoint as the claims sign (harness/workload/target), until it answers 200 with a probe's answer.
// Lambda shifts a LatestRevision endpoint to a new revision with no health gate, and a revision
// whose code does not start still reads Active (agent-toolkit-for-aws,
// aws-lambda-web-functions/references/deployment.md), so Active alone proves nothing.
func (c *awsCloud) CheckServes(ctx context.Context, e webendpoints.Endpoint) error {
	o := target.WebOptions{RootCAs: c.rootCAs}
	if e.Auth != webendpoints.AuthPublic {
		o.Credentials, o.Region = c.cfg.Credentials, cmp.Or(e.Region, c.region)
	}
	return checkServes(ctx, e, o, c.serveWait, c.serveEvery)
}

// checkServes is CheckServes with its options and bounds as parameters.
func checkServes(ctx context.Context, e webendpoints.Endpoint, o target.WebOptions, wait, every time.Duration) error {
	w, err := target.NewWeb(e.URL, o)
	if err != nil {
		return err
	}
	defer w.Close()
	deadline := time.Now().Add(wait)
	tries := 0
	for {
		tries++
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		r := w.Get(rctx, "/ping")
		cancel()
		if r.Err == nil && r.Status == http.StatusOK {
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			last := fmt.Sprintf("status %d", r.Status)
			if r.Err != nil {
				last = r.Err.Error()
			}
			return fmt.Errorf("endpoint %s (%s) did not answer /ping with 200 in %d tries over %s; the last: %s: its revision does not serve", e.Name, e.Function, tries, wait, live.RedactARN(last))
		}
		if err := sleep(ctx, every); err != nil {
			return err
		}
	}
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

// ListWebFunctions lists the Web Functions whose names begin with prefix, each with the run its
// tags name. Only the lambda-web API lists them: Lambda's ListFunctions lists Event Functions.
// The CLI follows ListWebFunctions' nextToken itself (paginators-1.json).
func (c *awsCloud) ListWebFunctions(ctx context.Context, prefix string) ([]found, error) {
	var out struct {
		Functions []struct {
			FunctionName string `json:"functionName"`
			FunctionArn  string `json:"functionArn"`
		} `json:"functions"`
	}
	if err := c.cli.run(ctx, &out, "lambda-web", "list-web-functions"); err != nil {
		return nil, err
	}
	var fs []found
	for _, f := range out.Functions {
		if !strings.HasPrefix(f.FunctionName, prefix) {
			continue
		}
		var tags struct {
			Tags map[string]string `json:"tags"`
		}
		if err := c.cli.run(ctx, &tags, "lambda-web", "list-tags", "--resource", f.FunctionArn); err != nil {
			if notFound(err) {
				continue // deleted since it was listed
			}
			return nil, err
		}
		fs = append(fs, found{Name: f.FunctionName, RunID: tags.Tags[live.TagRun]})
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
