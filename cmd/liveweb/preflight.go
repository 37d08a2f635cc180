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
// and that the SDK's default chain yields a region and credentials. Every missing thing is named
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
	return r, nil
}

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
