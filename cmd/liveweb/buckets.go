package main

// The bundles' S3 bucket on AWS: made versioned and private, the bundle put, listed and
// emptied and deleted at clean-up.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/serverless-claims/claims/harness/aws/live"
)

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
