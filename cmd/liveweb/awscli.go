package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/aws/live"
)

// awsCLI runs the AWS CLI, the only client of the Web Functions' control plane here. The CLI
// finds the credentials itself, through the same default chain as the SDK (environment, shared
// files, SSO, container or instance role): nothing secret is passed on its command line.
type awsCLI struct {
	bin    string // the aws executable
	region string // --region of every call; "" leaves the CLI's own
}

// cliError is a failed CLI call: the command's first words and its stderr, account ids redacted.
type cliError struct {
	command string // "aws lambda-web create-web-function"
	stderr  string
	err     error
}

func (e *cliError) Error() string {
	if e.stderr == "" {
		return fmt.Sprintf("%s: %v", e.command, e.err)
	}
	return fmt.Sprintf("%s: %v: %s", e.command, e.err, e.stderr)
}

func (e *cliError) Unwrap() error { return e.err }

// notFound says the CLI reported the resource missing: a deletion of something already gone.
func notFound(err error) bool {
	var ce *cliError
	return errors.As(err, &ce) && strings.Contains(ce.stderr, "ResourceNotFoundException")
}

// quiet is the environment of a CLI call: the caller's, with no pager, so that nothing waits for
// a terminal.
func quiet() []string {
	return append(os.Environ(), "AWS_PAGER=", "PAGER=cat", "MANPAGER=cat")
}

// run runs `aws args... --output json --no-cli-pager [--region r]` and parses its stdout into out
// (nil: ignored). The error names the command (its first two words) and carries its stderr; the
// arguments stay out of it, as they hold ARNs.
func (c awsCLI) run(ctx context.Context, out any, args ...string) error {
	full := append(slices.Clone(args), "--output", "json", "--no-cli-pager")
	if c.region != "" {
		full = append(full, "--region", c.region)
	}
	cmd := exec.CommandContext(ctx, c.bin, full...)
	cmd.Env = quiet()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	name := "aws " + strings.Join(args[:min(2, len(args))], " ")
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return &cliError{command: name, stderr: live.RedactARN(strings.TrimSpace(stderr.String())), err: err}
	}
	if out == nil || len(bytes.TrimSpace(stdout.Bytes())) == 0 {
		return nil
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("%s: its answer is not the JSON expected: %w", name, err)
	}
	return nil
}

// text runs `aws args...` as it is and returns its stdout and stderr together, trimmed: for
// --version, which answers no JSON.
func (c awsCLI) text(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = quiet()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// skeleton runs `aws args... --generate-cli-skeleton`, which prints the command's input as JSON
// and calls no AWS API (AWS CLI v2 user guide, cli-usage-skeleton), and returns its stdout. It
// needs no pager, no man page and no credentials, only the command itself. The error carries the
// line of stderr where the CLI names what went wrong (an unknown command: "aws: error: argument
// command: Invalid choice ...").
func (c awsCLI) skeleton(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.bin, append(slices.Clone(args), "--generate-cli-skeleton")...)
	cmd.Env = quiet()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if line := errorLine(stderr.String()); line != "" {
			return nil, fmt.Errorf("%w: %s", err, live.RedactARN(line))
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

// errorLine is the line of a CLI's stderr that says what failed: the first that begins "aws:"
// (the CLI's own parse errors, after its usage text), else the first that is not blank.
func errorLine(stderr string) string {
	first := ""
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "aws:") {
			return l
		}
		if first == "" {
			first = l
		}
	}
	return first
}
