package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// binary is cmd/liveweb built once for the tests that run it as a user does.
var binary string

func TestMain(m *testing.M) {
	// The test binary is also the fake aws: fakeAWS's script runs it with fakeStateEnv set.
	if state := os.Getenv(fakeStateEnv); state != "" {
		os.Exit(fakeCLI(state, os.Getenv(fakeLogEnv), os.Args[1:], os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "liveweb-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "liveweb")
	out, err := exec.Command(build.GoCommand(), "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		panic("building liveweb: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeAWS writes an `aws` that answers as AWS CLI v2 with the lambda-web commands does, on a
// machine without groff or mandoc (so `help` fails), from the state st (zero: no resources);
// it logs each call, and returns its folder and its log. See fakeCLI.
func fakeAWS(t *testing.T, st ...fakeState) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(dir, "calls.log")
	var state fakeState
	if len(st) > 0 {
		state = st[0]
	}
	writeFakeState(t, filepath.Join(dir, "state.json"), state)
	self, err := os.Executable()
	require.NoError(t, err)
	script := "#!/bin/sh\n" + fakeStateEnv + "='" + filepath.Join(dir, "state.json") + "' " + fakeLogEnv + "='" + log + "' exec '" + self + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "aws"), []byte(script), 0o755))
	return dir, log
}

// calls is what the fake aws was asked, one call a line.
func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// userEnv is a clean environment: PATH as given, HOME and the AWS files empty, no instance
// metadata, and every SDK endpoint on a closed loopback port, so that nothing can reach AWS.
func userEnv(t *testing.T, path string, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	for _, f := range []string{"config", "credentials"} {
		require.NoError(t, os.WriteFile(filepath.Join(home, f), nil, 0o600))
	}
	return append([]string{
		"PATH=" + path, "HOME=" + home,
		"AWS_CONFIG_FILE=" + filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_ENDPOINT_URL=http://127.0.0.1:1",
	}, extra...)
}

// fakeRepo is a folder with a go.mod, the repository root for a run of the binary, so that its
// endpoints file is the test's own.
func fakeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n"), 0o644))
	return dir
}

// runBinary runs liveweb in dir with env and returns its stdout, stderr and exit status.
func runBinary(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// preflightCalls are the only calls the preflight makes of the CLI.
var preflightCalls = []string{"--version", "lambda-web create-web-function --generate-cli-skeleton", "lambda-web list-web-functions --max-items 1"}

// assertNothingMade: no endpoints file, and the CLI asked nothing but the preflight's calls.
func assertNothingMade(t *testing.T, root, log string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(root, ".cache", "live-web", "endpoints.json"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "an endpoints file was written")
	for _, c := range calls(t, log) {
		assert.Contains(t, preflightCalls, c, "aws was called with %q; want only %q", c, preflightCalls)
	}
}

func TestDeployWithoutTheCLINamesIt(t *testing.T) {
	root := fakeRepo(t)
	_, stderr, code := runBinary(t, root, userEnv(t, t.TempDir()), "deploy")
	assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
	assert.Contains(t, stderr, "the AWS CLI (aws) is not on PATH")
	assert.Contains(t, stderr, "install AWS CLI v2")
	assert.Contains(t, stderr, "nothing was made")
	assertNothingMade(t, root, "")
}

// TestDeployWithAWSCLIv1NamesTheMissingCommands runs the aws on this machine's PATH, when it is
// one without lambda-web (aws-cli 1.x).
func TestDeployWithAWSCLIv1NamesTheMissingCommands(t *testing.T) {
	real, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("no aws on PATH")
	}
	if exec.Command(real, "lambda-web", "create-web-function", "--generate-cli-skeleton").Run() == nil {
		t.Skip("the aws on PATH has lambda-web")
	}
	version, _ := exec.Command(real, "--version").CombinedOutput()
	root := fakeRepo(t)
	path := filepath.Dir(real) + string(os.PathListSeparator) + os.Getenv("PATH")
	_, stderr, code := runBinary(t, root, userEnv(t, path, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=secret"), "deploy")
	assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
	assert.Contains(t, stderr, "has no `lambda-web` commands")
	first, _, _ := strings.Cut(strings.TrimSpace(string(version)), " ")
	assert.Contains(t, stderr, first, "stderr = %q; want it to name the CLI's version %q", stderr, first)
	assert.NotContains(t, stderr, "secret")
	assertNothingMade(t, root, "")
}

// TestPreflightNeedsNoManPage: on a machine without groff or mandoc `aws lambda-web help` fails
// (the fake models it); the preflight passes all the same, and asks the CLI nothing but its
// version and a skeleton.
func TestPreflightNeedsNoManPage(t *testing.T) {
	root := fakeRepo(t)
	dir, log := fakeAWS(t)
	help := exec.Command(filepath.Join(dir, "aws"), "lambda-web", "help")
	require.Error(t, help.Run(), "the fake aws must fail `help` as a machine without groff does")
	require.NoError(t, os.Remove(log))
	stdout, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=s"), "deploy", "-n")
	require.Equal(t, 0, code, "exit status = %d; want 0 (stderr %q)", code, stderr)
	assert.NotContains(t, stdout+stderr, "lambda-web` commands", "the preflight claimed the CLI lacks lambda-web; it has them, only no man page")
	assert.NotContains(t, stdout, "a deploy would stop there")
	assert.Contains(t, calls(t, log), "lambda-web create-web-function --generate-cli-skeleton", "calls = %v", calls(t, log))
	assertNothingMade(t, root, log)
}

// TestPreflightNamesAMissingLambdaWeb: a CLI without the lambda-web commands (v1, or v2 before
// them) answers the skeleton with an invalid choice; the preflight names the missing commands
// and the CLI's version.
func TestPreflightNamesAMissingLambdaWeb(t *testing.T) {
	for _, version := range []string{"aws-cli/1.36.0 Python/3.12 Linux/6 botocore/1.35.0", "aws-cli/2.15.0 Python/3.11 Linux/6 exe/x86_64"} {
		t.Run(version, func(t *testing.T) {
			root := fakeRepo(t)
			dir, log := fakeAWS(t, fakeState{Version: version, NoLambdaWeb: true})
			_, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=s"), "deploy")
			assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
			assert.Contains(t, stderr, "has no `lambda-web` commands")
			assert.Contains(t, strings.ToLower(stderr), "invalid choice", "stderr = %q; want the CLI's own word on the command", stderr)
			first, _, _ := strings.Cut(version, " ")
			assert.Contains(t, stderr, first, "stderr = %q; want it to name the CLI's version", stderr)
			assertNothingMade(t, root, log)
		})
	}
}

// TestPreflightAsksTheServiceBeforeAnythingIsMade: where the Web Functions' control plane does
// not answer a read-only ListWebFunctions (no endpoint in the region, as botocore says it; a
// caller or account refused), the deploy stops before it makes anything, naming the region and
// what to do.
func TestPreflightAsksTheServiceBeforeAnythingIsMade(t *testing.T) {
	for _, c := range []struct {
		name, stderr string
		exit         int
		want         []string
	}{
		{"no endpoint in the region", `Could not connect to the endpoint URL: "https://lambda-web.ap-east-2.amazonaws.com/2025-03-07/web-functions"`, 255,
			[]string{"do not answer in ap-east-2", "AWS_REGION"}},
		{"refused", "An error occurred (AccessDeniedException) when calling the ListWebFunctions operation: User is not authorized to perform: lambda:ListWebFunctions", exitService,
			[]string{"may not list Web Functions in ap-east-2", "lambda:ListWebFunctions"}},
		{"another error", "An error occurred (UnrecognizedClientException) when calling the ListWebFunctions operation: The security token included in the request is invalid.", exitService,
			[]string{"did not answer a read-only ListWebFunctions", "UnrecognizedClientException"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeRepo(t)
			dir, log := fakeAWS(t, fakeState{ListFailure: c.stderr, ListExit: c.exit})
			_, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=ap-east-2", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=s"), "deploy")
			assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
			for _, w := range append(c.want, "nothing was made") {
				assert.Contains(t, stderr, w, "stderr")
			}
			assert.Contains(t, calls(t, log), "lambda-web list-web-functions --max-items 1", "the preflight's calls")
			assertNothingMade(t, root, log)
		})
	}
}

func TestDeployWithoutRegionOrCredentialsNamesBoth(t *testing.T) {
	root := fakeRepo(t)
	dir, log := fakeAWS(t)
	_, stderr, code := runBinary(t, root, userEnv(t, dir), "deploy")
	assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
	assert.Contains(t, stderr, "no AWS region")
	assert.Contains(t, stderr, "no AWS credentials")
	assert.NotContains(t, stderr, "lambda-web` commands", "the fake CLI has them")
	assertNothingMade(t, root, log)
}

func TestDeployAboveTheCapIsRefusedBeforeAnythingIsMade(t *testing.T) {
	root := fakeRepo(t)
	dir, log := fakeAWS(t)
	env := userEnv(t, dir, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=do-not-print", "CLAIMS_LIVE_MAX_USD=0.01")
	stdout, stderr, code := runBinary(t, root, env, "deploy")
	assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
	assert.Contains(t, stdout, "estimate: $", "the estimate must be printed before the refusal")
	assert.Contains(t, stderr, "above the cap $0.01")
	assert.Contains(t, stderr, "CLAIMS_LIVE_MAX_USD")
	assert.NotContains(t, stdout+stderr, "do-not-print")
	assert.NotEmpty(t, calls(t, log), "the preflight must have asked the CLI")
	assertNothingMade(t, root, log)
}

func TestBadSettingsAreRefusedByName(t *testing.T) {
	dir, log := fakeAWS(t)
	for _, v := range []string{"CLAIMS_LIVE_MAX_USD=abc", "CLAIMS_TRIALS=many", "CLAIMS_SPIN_MS=-1"} {
		t.Run(v, func(t *testing.T) {
			root := fakeRepo(t)
			_, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=us-east-1", v), "deploy")
			assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
			name, _, _ := strings.Cut(v, "=")
			assert.Contains(t, stderr, name, "stderr = %q; want it to name %s", stderr, name)
			assertNothingMade(t, root, log)
		})
	}
}

func TestDryRunPrintsThePlanAndTheEstimate(t *testing.T) {
	root := fakeRepo(t)
	dir, log := fakeAWS(t)
	stdout, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=s"), "deploy", "-n")
	require.Equal(t, 0, code, "exit status = %d; want 0 (stderr %q)", code, stderr)
	for _, want := range []string{
		"in eu-west-1 will make", "IAM role claims-", "S3 bucket claims-", "-web-code (versioned",
		"Web Function claims-", "-node (node-probe.zip, nodejs24.x, arm64): endpoint claims, IamAuth, maxEnvironments 2, maxConcurrencyPerEnvironment 64",
		"-go-c1 (go-probe.zip, nodejs24.x, arm64): endpoint claims, IamAuth, maxEnvironments 3, maxConcurrencyPerEnvironment 1",
		"claims:run=", "W12: 20 trials", "rate not published", "estimate: $", "cap $0.25 (CLAIMS_LIVE_MAX_USD)",
		"-n: nothing was made",
	} {
		assert.Contains(t, stdout, want, "liveweb deploy -n printed:\n%s", stdout)
	}
	assertNothingMade(t, root, log)

	// Without the CLI the dry run still prints the plan, and says where a deploy would stop.
	stdout, _, code = runBinary(t, root, userEnv(t, t.TempDir()), "deploy", "-n")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "not on PATH")
	assert.Contains(t, stdout, "estimate: $")
}

func TestDestroyWithoutADeploymentDoesNothing(t *testing.T) {
	root := fakeRepo(t)
	stdout, stderr, code := runBinary(t, root, userEnv(t, t.TempDir()), "destroy")
	assert.Equal(t, 0, code, "exit status = %d; want 0 (stderr %q)", code, stderr)
	assert.Contains(t, stdout, "nothing to destroy")
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"deploy", "x"}, {"launch"}, {"destroy", "-n"}, {"clean", "x"}, {"clean", "-y"}} {
		_, stderr, code := runBinary(t, fakeRepo(t), userEnv(t, t.TempDir()), args...)
		assert.Equal(t, 2, code, "liveweb %v: exit status = %d; want 2", args, code)
		assert.Contains(t, stderr, "usage: liveweb")
	}
}

// TestMakeLiveWebDeployStopsAtOnce runs `make live-web-deploy` as a user without the right CLI,
// region or credentials would: it stops at the preflight, naming each.
func TestMakeLiveWebDeployStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command through make")
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	root, err := repo.Root()
	require.NoError(t, err)
	goEnv := func(k string) string {
		out, err := exec.Command(build.GoCommand(), "env", k).Output()
		require.NoError(t, err)
		return "" + k + "=" + strings.TrimSpace(string(out))
	}
	// PATH holds go and make but no aws.
	bin := t.TempDir()
	for _, p := range []string{build.GoCommand(), makeBin} {
		require.NoError(t, os.Symlink(p, filepath.Join(bin, filepath.Base(p))))
	}
	env := userEnv(t, bin+":/usr/bin:/bin", goEnv("GOPATH"), goEnv("GOMODCACHE"), goEnv("GOCACHE"), goEnv("GOROOT"), "GOTOOLCHAIN=local")
	if _, err := os.Stat("/usr/bin/aws"); err == nil {
		t.Skip("/usr/bin/aws would be found")
	}
	cmd := exec.CommandContext(t.Context(), makeBin, "-C", root, "live-web-deploy")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "make live-web-deploy succeeded:\n%s", out)
	assert.Contains(t, string(out), "the AWS CLI (aws) is not on PATH", "make printed:\n%s", out)
	assert.Contains(t, string(out), "no AWS region", "make printed:\n%s", out)
}

// TestCleanRefusesWhenTheEndpointsFileCannotBeRead: what is in use would be unknown, so clean
// deletes nothing and asks the CLI nothing.
func TestCleanRefusesWhenTheEndpointsFileCannotBeRead(t *testing.T) {
	root := fakeRepo(t)
	file := filepath.Join(root, ".cache", "live-web", "endpoints.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte("{not json"), 0o600))
	dir, log := fakeAWS(t)
	_, stderr, code := runBinary(t, root, userEnv(t, dir, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=s"), "clean")
	assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, stderr)
	assert.Contains(t, stderr, "nothing was deleted")
	assert.Empty(t, calls(t, log), "clean called the CLI with an unreadable endpoints file")
}
