package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/serverless-claims/claims/harness/aws/live"
)

// cliCheckTimeout bounds `aws --version` and the skeleton of create-web-function: a CLI that
// hangs is as missing as one that is not there.
const cliCheckTimeout = 60 * time.Second

// probeCommand is the lambda-web command whose input skeleton proves the commands exist. `aws
// lambda-web help` would prove it too, but it renders a man page and fails where groff or mandoc
// is missing (containers, CI images), which is no sign of a missing command.
var probeCommand = []string{"lambda-web", "create-web-function"}

// ready is what preflight found: the CLI to run and the SDK's configuration.
type ready struct {
	cli     awsCLI
	version string // the CLI's --version line
	aws     aws.Config
}

// preflight checks, making nothing, that the AWS CLI is on PATH and has the lambda-web commands,
// that the SDK's default chain yields a region and credentials, and then that the Web Functions'
// control plane answers a read-only call there (checkService). Every missing thing is named
// in the error, not only the first. opts apply to the SDK's configuration (the region of an
// existing deployment, for destroy).
func preflight(ctx context.Context, c live.Config, opts ...func(*config.LoadOptions) error) (ready, error) {
	var r ready
	var errs []error
	if bin, err := exec.LookPath("aws"); err != nil {
		errs = append(errs, errors.New("the AWS CLI (aws) is not on PATH: install AWS CLI v2 at a version that has the `aws lambda-web` commands"))
	} else {
		r.cli = awsCLI{bin: bin}
		if err := checkCLI(ctx, &r); err != nil {
			errs = append(errs, err)
		}
	}
	cfg, err := live.LoadAWS(ctx, c, opts...)
	if err != nil {
		errs = append(errs, err)
		// LoadAWS stops at a missing region; say whether credentials are missing too.
		if strings.Contains(err.Error(), "no AWS region") {
			withRegion := append(append([]func(*config.LoadOptions) error{}, opts...), config.WithRegion("us-east-1"))
			if _, credErr := live.LoadAWS(ctx, c, withRegion...); credErr != nil {
				errs = append(errs, credErr)
			}
		}
	}
	if len(errs) > 0 {
		return ready{}, fmt.Errorf("preflight: nothing was made:\n  %w", joinIndented(errs))
	}
	r.aws = cfg
	r.cli.region = cfg.Region
	if err := checkService(ctx, r); err != nil {
		return ready{}, fmt.Errorf("preflight: nothing was made:\n  %w", joinIndented([]error{err}))
	}
	return r, nil
}

// checkService asks the Web Functions' control plane one read-only question, ListWebFunctions
// for one item, before anything is made: a region where the service is not served, an account
// it is not served to, or a caller without lambda:ListWebFunctions stops the deploy here, named,
// rather than at create-web-function after the role and the versioned bucket were made. Every
// error stops it: only an answer shows the service is there.
func checkService(ctx context.Context, r ready) error {
	ctx, cancel := context.WithTimeout(ctx, cliCheckTimeout)
	defer cancel()
	err := r.cli.run(ctx, nil, serviceProbe...)
	if err == nil {
		return nil
	}
	var ce *cliError
	msg := ""
	if errors.As(err, &ce) {
		msg = strings.ToLower(ce.stderr)
	}
	switch {
	case strings.Contains(msg, "could not connect to the endpoint url"):
		// botocore's EndpointConnectionError: no endpoint of the service answers in the region.
		return fmt.Errorf("Lambda Web Functions do not answer in %s: the CLI found no endpoint of lambda-web there (%v); deploy in a region where they are served (AWS_REGION)", r.cli.region, err)
	case strings.Contains(msg, "accessdenied") || strings.Contains(msg, "not authorized"):
		return fmt.Errorf("the caller may not list Web Functions in %s (%v): either its policy lacks lambda:ListWebFunctions (deploy/aws/live-policy.json has it), or the service is not served to this account", r.cli.region, err)
	}
	return fmt.Errorf("the Web Functions' control plane in %s did not answer a read-only ListWebFunctions (%v): the service may not be served to this account or region", r.cli.region, err)
}

// serviceProbe is checkService's call: ListWebFunctions, one item, which reads and makes nothing.
var serviceProbe = []string{"lambda-web", "list-web-functions", "--max-items", "1"}

// checkCLI reads the CLI's version and asks it for create-web-function's input skeleton, which
// only a CLI with the lambda-web commands (AWS CLI v2 from the release that added them) prints:
// a JSON object naming functionName, the operation's first member in the botocore model
// (awscli/botocore/data/lambda-web/2025-03-07/service-2.json, CreateWebFunctionRequest).
func checkCLI(ctx context.Context, r *ready) error {
	ctx, cancel := context.WithTimeout(ctx, cliCheckTimeout)
	defer cancel()
	v, err := r.cli.text(ctx, "--version")
	r.version, _, _ = strings.Cut(v, "\n")
	if err != nil || r.version == "" {
		return fmt.Errorf("the AWS CLI on PATH (%s) does not answer `aws --version`: %v", r.cli.bin, err)
	}
	probe := "aws " + strings.Join(probeCommand, " ") + " --generate-cli-skeleton"
	out, err := r.cli.skeleton(ctx, probeCommand...)
	if err == nil {
		var skel map[string]any
		if jerr := json.Unmarshal(out, &skel); jerr != nil {
			err = fmt.Errorf("its output is not the JSON skeleton: %v", jerr)
		} else if _, ok := skel["functionName"]; !ok {
			err = errors.New("its skeleton names no functionName")
		}
	}
	if err != nil {
		return fmt.Errorf("the AWS CLI on PATH (%s, %s) has no `lambda-web` commands (`%s`: %v); install AWS CLI v2 at a version that has them",
			r.version, r.cli.bin, probe, err)
	}
	return nil
}

// joinIndented joins errors one a line, indented under the first line of the message.
func joinIndented(errs []error) error {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "- " + e.Error()
	}
	return errors.New(strings.Join(lines, "\n  "))
}
