package main

// The Web Functions on AWS: created from a bundle, waited for until their endpoint serves,
// listed and deleted at clean-up.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/workload/target"
)

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
