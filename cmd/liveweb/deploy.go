package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

// cleanupTimeout bounds the deletions after a failed or interrupted deploy.
const cleanupTimeout = 10 * time.Minute

// undo deletes one thing a deploy made.
type undo struct {
	what string
	del  func(context.Context) error
}

// deploy makes what p plans, in order (role, bucket and bundles, functions), waits until every
// endpoint is Active and writes the deployment with write. On any failure, or when ctx ends
// (Ctrl-C), it deletes what it made in reverse order, each deletion registered before its create
// so that a create cut short is deleted too. bundles maps a bundle name to its zip.
func deploy(ctx context.Context, c cloud, p plan, bundles map[string]string, write func(webendpoints.Deployment) error, out io.Writer) (err error) {
	var made []undo
	defer func() {
		if err == nil {
			return
		}
		fmt.Fprintf(out, "deploy failed: deleting what run %s made, newest first\n", p.RunID)
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		for _, u := range slices.Backward(made) {
			if derr := u.del(cctx); derr != nil {
				err = errors.Join(err, fmt.Errorf("deleting %s: %w (left behind: `make live-web-destroy` cannot find it without the endpoints file; delete it by its %s tag)", u.what, derr, live.TagRun))
				continue
			}
			fmt.Fprintf(out, "deleted %s\n", u.what)
		}
	}()
	register := func(what string, del func(context.Context) error) {
		made = append(made, undo{what, del})
		fmt.Fprintf(out, "making %s\n", what)
	}

	register("IAM role "+p.Role, func(ctx context.Context) error { return c.DeleteRole(ctx, p.Role, p.RunID) })
	roleARN, err := c.CreateRole(ctx, p.Role, p.tags())
	if err != nil {
		return err
	}
	// The role is in the caller's partition and account: the bucket policy names both.
	partition, account, err := arnParts(roleARN)
	if err != nil {
		return err
	}
	register("S3 bucket "+p.Bucket, func(ctx context.Context) error { return c.DeleteBucket(ctx, p.Bucket) })
	if err := c.CreateBucket(ctx, p.Bucket, partition, account, p.tags()); err != nil {
		return err
	}
	versions := map[string]string{}
	for _, f := range p.Functions {
		if _, done := versions[f.Bundle]; done {
			continue
		}
		path, ok := bundles[f.Bundle]
		if !ok {
			return fmt.Errorf("no zip for bundle %s", f.Bundle)
		}
		if versions[f.Bundle], err = c.PutBundle(ctx, p.Bucket, key(f.Bundle), path); err != nil {
			return err
		}
		if versions[f.Bundle] == "" {
			return fmt.Errorf("bundle %s: S3 answered no object version; a revision must be pinned to one", f.Bundle)
		}
	}
	for _, f := range p.Functions {
		register("Web Function "+f.Name, func(ctx context.Context) error { return c.DeleteWebFunction(ctx, f.Name) })
		if err := c.CreateWebFunction(ctx, functionSpec{
			webFunction: f, RoleARN: roleARN, Bucket: p.Bucket, Key: key(f.Bundle), VersionID: versions[f.Bundle], Tags: p.tags(),
		}); err != nil {
			return err
		}
	}
	d := webendpoints.Deployment{RunID: p.RunID, Region: p.Region, CreatedAt: p.Created, Bucket: p.Bucket, Role: p.Role}
	for _, f := range p.Functions {
		fmt.Fprintf(out, "waiting for the endpoint of %s to be Active\n", f.Name)
		domain, err := c.WaitEndpoint(ctx, f.Name, endpointName)
		if err != nil {
			return err
		}
		d.Endpoints = append(d.Endpoints, webendpoints.Endpoint{
			Name: f.Endpoint, URL: "https://" + strings.TrimPrefix(domain, "https://"), Auth: webendpoints.AuthIAM,
			Region: p.Region, Runtime: webendpoints.Runtime, Arch: webendpoints.Arch,
			MaxEnvironments: f.Environments, MaxConcurrencyPerEnvironment: f.Concurrency, Function: f.Name,
		})
	}
	// An Active endpoint may serve a revision whose code never started: each must answer /ping
	// before the claims are told where it is.
	for _, e := range d.Endpoints {
		fmt.Fprintf(out, "checking that %s answers /ping\n", e.Function)
		if err := c.CheckServes(ctx, e); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return write(d)
}

// destroy deletes what deployment d names, and whatever else of its run it finds by name
// (functions, buckets and log groups of claims-<run>-...), functions first, then their log
// groups, then buckets (objects first), then the role, printing each. Something already gone is
// no failure, so a second destroy is one.
func destroy(ctx context.Context, c cloud, d webendpoints.Deployment, out io.Writer) error {
	var errs []error
	fail := func(err error) { errs = append(errs, err) }
	prefix := ""
	if d.RunID != "" {
		prefix = live.NamePrefix + d.RunID + "-"
	}
	var functions []string
	for _, e := range d.Endpoints {
		if e.Function != "" && !slices.Contains(functions, e.Function) {
			functions = append(functions, e.Function)
		}
	}
	functions = withFound(ctx, functions, prefix, "Web Functions", listNames(c.ListWebFunctions), out)
	for _, f := range functions {
		if err := c.DeleteWebFunction(ctx, f); err != nil {
			fail(fmt.Errorf("deleting Web Function %s: %w", f, err))
			continue
		}
		fmt.Fprintf(out, "deleted Web Function %s\n", f)
	}
	var groups []string
	for _, f := range functions {
		groups = append(groups, logGroups(f)...)
	}
	if prefix != "" {
		groups = withFound(ctx, groups, logGroupPrefix+prefix, "log groups", c.ListLogGroups, out)
	}
	for _, g := range groups {
		if err := c.DeleteLogGroup(ctx, g); err != nil {
			fail(fmt.Errorf("deleting log group %s: %w", g, err))
			continue
		}
		fmt.Fprintf(out, "deleted log group %s\n", g)
	}
	bucket, role := d.Bucket, d.Role
	if prefix != "" {
		bucket = cmp.Or(bucket, live.NamePrefix+d.RunID+webBucketSuffix)
		role = cmp.Or(role, live.NamePrefix+d.RunID+webRoleSuffix)
	}
	var buckets []string
	if bucket != "" {
		buckets = append(buckets, bucket)
	}
	buckets = withFound(ctx, buckets, prefix, "S3 buckets", listNames(c.ListBuckets), out)
	for _, b := range buckets {
		if err := c.DeleteBucket(ctx, b); err != nil {
			fail(fmt.Errorf("deleting S3 bucket %s: %w", b, err))
			continue
		}
		fmt.Fprintf(out, "deleted S3 bucket %s\n", b)
	}
	if role != "" {
		if err := c.DeleteRole(ctx, role, d.RunID); err != nil {
			fail(fmt.Errorf("deleting IAM role %s: %w", role, err))
		} else {
			fmt.Fprintf(out, "deleted IAM role %s\n", role)
		}
	}
	return errors.Join(errs...)
}

// withFound adds to names those list finds beginning with prefix (none without a prefix). A list
// that fails is reported and skipped: the names already known are deleted all the same.
func withFound(ctx context.Context, names []string, prefix, what string, list func(context.Context, string) ([]string, error), out io.Writer) []string {
	if prefix == "" {
		return names
	}
	found, err := list(ctx, prefix)
	if err != nil {
		fmt.Fprintf(out, "could not list %s named %s*: %v\n", what, prefix, err)
	}
	for _, n := range found {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// listNames is a listing of found resources as one of names, for withFound.
func listNames(list func(context.Context, string) ([]found, error)) func(context.Context, string) ([]string, error) {
	return func(ctx context.Context, prefix string) ([]string, error) {
		fs, err := list(ctx, prefix)
		return names(fs), err
	}
}
