package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/standin/ghstub"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain is the fake gh where the test binary is started as one (the runner links itself as
// the fake, and in a test, itself is this binary), else the tests.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == fakeGH {
		os.Exit(ghstub.Main(os.Getenv(ghstub.StateEnv), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestExpressionsEvaluateAsGitHubEvaluatesThem: the forms the workflows use, with GitHub's rules
// for loose equality, || and && giving an operand, and an if: without a status function.
func TestExpressionsEvaluateAsGitHubEvaluatesThem(t *testing.T) {
	ev := evaluator{ctx: contexts{
		"inputs": map[string]any{"max_usd": ""},
		"vars":   map[string]any{"CLAIMS_LIVE_WEEKLY": "true"},
		"github": map[string]any{"event_name": "schedule", "ref": "refs/heads/main"},
		"steps":  map[string]any{"record": map[string]any{"outputs": map[string]any{"status": "0"}, "outcome": "success"}},
		"needs":  map[string]any{"shards": map[string]any{"outputs": map[string]any{"shards": `["node:path","go:local"]`}}},
		"env":    map[string]any{"CLAIMS_WEB_NODE_URL": ""},
	}}
	cases := map[string]string{
		"${{ inputs.max_usd || '0.25' }}":                                                      "0.25",
		"${{ vars.claims_live_weekly == 'TRUE' }}":                                             "true",
		"${{ github.event_name == 'workflow_dispatch' || vars.CLAIMS_LIVE_WEEKLY == 'true' }}": "true",
		"${{ steps.record.outputs.status != '0' }}":                                            "false",
		"${{ steps.record.outputs.status != 0 }}":                                              "false",
		"${{ fromJSON(needs.shards.outputs.shards)[1] }}":                                      "go:local",
		"${{ env.CLAIMS_WEB_NODE_URL != '' }}":                                                 "false",
		"a-${{ github.ref == 'refs/heads/main' && 'main' || 'other' }}":                        "a-main",
		"${{ format('{0}-{1}', 'shard', 3) }}":                                                 "shard-3",
		"${{ missing.thing }}":                                                                 "error",
	}
	for in, want := range cases {
		got, err := ev.interpolate(in)
		if want == "error" {
			assert.Error(t, err, "%s: an unknown context is an error, not ''", in)
			continue
		}
		require.NoError(t, err, in)
		assert.Equal(t, want, got, "%s", in)
	}

	failed := ev
	failed.status = status{failed: true}
	for cond, want := range map[string]bool{"": false, "${{ !cancelled() }}": true, "always()": true,
		"steps.record.outcome == 'success'": false, "failure() && steps.record.outcome == 'success'": true} {
		got, err := failed.condition(cond)
		require.NoError(t, err, cond)
		assert.Equal(t, want, got, "if: %q after a failed step", cond)
	}
}

// repoAt makes a git repository with one commit, for a run to be of.
func repoAt(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "first"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return dir
}

// runWorkflow runs the runner on file over a new repository, and gives its exit status, its
// output, the run's record and its folder.
func runWorkflow(t *testing.T, file string, args ...string) (int, string, Run, string) {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	code, err := run(append(append([]string{"-dir", dir, "-repo", repoAt(t)}, args...), file), &out)
	if code == 2 {
		require.NoError(t, err, "the runner: %s", out.String())
	}
	var r Run
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err, "run.json: %s", out.String())
	require.NoError(t, json.Unmarshal(data, &r))
	return code, out.String(), r, dir
}

// stepOf is job's step named name.
func stepOf(t *testing.T, j *Job, name string) *Step {
	t.Helper()
	i := slices.IndexFunc(j.Steps, func(s *Step) bool { return s.Name == name })
	require.GreaterOrEqual(t, i, 0, "%s: no step %q", j.Name, name)
	return j.Steps[i]
}

// jobsByName are a run's jobs by name.
func jobsByName(r Run) map[string]*Job {
	out := map[string]*Job{}
	for _, j := range r.Jobs {
		out[j.Name] = j
	}
	return out
}

// TestAWorkflowRunsAsGitHubRunsIt runs testdata/steps.yml: an input's default, GITHUB_ENV, a matrix from a job's output, a step
// cut off at its timeout that fails its instance, whose results are still uploaded under an
// if: ${{ !cancelled() }}, and downloaded by name pattern and merged; a push with the token
// checkout persisted, and one refused to a job whose token may not write; gh with the job's
// token; the job stopping at its AWS boundary; a push refused without the token and taken through
// tools/git-token.sh.
func TestAWorkflowRunsAsGitHubRunsIt(t *testing.T) {
	gitToken, err := filepath.Abs("../../git-token.sh")
	require.NoError(t, err)
	code, out, r, dir := runWorkflow(t, "testdata/steps.yml", "-set", "GIT_TOKEN_SH="+gitToken)
	jobs := jobsByName(r)
	want := map[string]string{"list": success, "each (a)": success, "each (b)": failure, "gather": boundary, "reader": failure, "token": success}
	for name, result := range want {
		require.Contains(t, jobs, name, "jobs run (%s)", out)
		assert.Equal(t, result, jobs[name].Result, "job %s's result (%s)", name, out)
	}
	assert.Equal(t, 1, code, "exit status with a failed job")

	b := jobs["each (b)"]
	assert.Equal(t, failure, b.Steps[2].Outcome, "the step cut off at its timeout")
	assert.Contains(t, b.Steps[2].Note, "timeout", "why it failed")
	assert.Equal(t, success, b.Steps[3].Outcome, "the upload after it, under !cancelled()")

	got, err := os.ReadFile(filepath.Join(dir, "artifacts", "out-1", "b.txt"))
	require.NoError(t, err, "the failed instance's artifact")
	assert.Equal(t, "b 1 top\n", string(got), "its file: matrix value, strategy.job-index, the workflow's env")

	gather := jobs["gather"]
	assert.Contains(t, gather.Boundary, "aws-actions/configure-aws-credentials", "where gather stopped")
	assert.Equal(t, skipped, gather.Steps[len(gather.Steps)-1].Outcome, "the step after the boundary")
	ref, err := exec.Command("git", "-C", filepath.Join(dir, "remote", "serverless-claims", "claims"), "rev-parse", "--verify", "-q", "refs/heads/pushed").Output()
	assert.NoError(t, err, "the branch gather pushed, with the token checkout persisted (%s)", ref)
	_, err = exec.Command("git", "-C", filepath.Join(dir, "remote", "serverless-claims", "claims"), "rev-parse", "--verify", "-q", "refs/heads/refused").Output()
	assert.Error(t, err, "the branch a contents: read job pushed landed")
	assert.Equal(t, failure, stepOf(t, jobs["token"], "Push without the token").Outcome, "a push with persist-credentials: false and no token")
	_, err = exec.Command("git", "-C", filepath.Join(dir, "remote", "serverless-claims", "claims"), "rev-parse", "--verify", "-q", "refs/heads/by-token").Output()
	assert.NoError(t, err, "the branch pushed through tools/git-token.sh")

	st, err := ghstub.Read(filepath.Join(dir, "gh.json"))
	require.NoError(t, err)
	require.Len(t, st.Issues, 1, "issues opened with gather's token (calls %v)", st.Calls)
	assert.Equal(t, "opened", st.Issues[0].Title)

	log, err := os.ReadFile(filepath.Join(dir, gather.Log))
	require.NoError(t, err)
	for token := range st.Tokens {
		assert.NotContains(t, string(log), token, "a job's token in gather's log")
	}
}

// TestAnArtifactNameIsTheRunsOnce: a second upload of a name in the same run is the service's
// 409, unless overwrite; the run stops where the workflow asks for what is not modelled, and an
// action not pinned by a commit SHA fails its step.
func TestAnArtifactNameIsTheRunsOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "twice.yml")
	require.NoError(t, os.WriteFile(file, []byte(`on: push
jobs:
  twice:
    runs-on: ubuntu-24.04
    steps:
      - run: echo x > x.txt
      - uses: actions/upload-artifact@0123456789abcdef0123456789abcdef01234567
        with: {name: same, path: x.txt}
      - id: again
        continue-on-error: true
        uses: actions/upload-artifact@0123456789abcdef0123456789abcdef01234567
        with: {name: same, path: x.txt}
      - uses: actions/upload-artifact@0123456789abcdef0123456789abcdef01234567
        with: {name: same, path: x.txt, overwrite: true}
      - uses: actions/upload-artifact@v4
        with: {name: other, path: x.txt}
`), 0o644))
	_, out, r, _ := runWorkflow(t, file, "-event", "push")
	steps := r.Jobs[0].Steps
	assert.Equal(t, failure, steps[2].Outcome, "a second upload of the name (%s)", out)
	assert.Contains(t, steps[2].Note, "(409) Conflict")
	assert.Equal(t, success, steps[2].Conclusion, "its conclusion under continue-on-error")
	assert.Equal(t, success, steps[3].Outcome, "the same with overwrite: true")
	assert.Equal(t, failure, steps[4].Outcome, "an action pinned by a tag")
	assert.Contains(t, steps[4].Note, "not pinned")
}

// TestHereRunsTheJobsInTheCheckoutItself: with -here (the guest's), a job's workspace is the
// checkout the run is of, whose origin becomes the server's as checkout makes it; a checkout that
// would persist the job's token there is refused.
func TestHereRunsTheJobsInTheCheckoutItself(t *testing.T) {
	file := filepath.Join(t.TempDir(), "here.yml")
	write := func(persist string) {
		require.NoError(t, os.WriteFile(file, []byte(`on: push
jobs:
  here:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@0123456789abcdef0123456789abcdef01234567
        with: {persist-credentials: `+persist+`}
      - run: test "$PWD" = "$GITHUB_WORKSPACE" && git remote get-url origin > origin.txt
`), 0o644))
	}
	write("false")
	repoDir := repoAt(t)
	var out bytes.Buffer
	code, err := run([]string{"-dir", t.TempDir(), "-repo", repoDir, "-here", "-event", "push", file}, &out)
	require.NoError(t, err, out.String())
	assert.Equal(t, 0, code, "exit status (%s)", out.String())
	origin, err := os.ReadFile(filepath.Join(repoDir, "origin.txt"))
	require.NoError(t, err, "the step's file in the checkout itself")
	assert.Contains(t, string(origin), "http://127.0.0.1:", "origin: the stand-in git server's")

	write("true")
	code, err = run([]string{"-dir", t.TempDir(), "-repo", repoDir, "-here", "-event", "push", file}, io.Discard)
	assert.Equal(t, 2, code, "exit status with persist-credentials under -here")
	assert.ErrorContains(t, err, "persist-credentials")
}

// TestFlagsThatMakeNoSenseAreRefused: each names itself; a step's name may hold '='.
func TestFlagsThatMakeNoSenseAreRefused(t *testing.T) {
	o, _, err := parseFlags([]string{"-dir", t.TempDir(), "-timeout", "shard (function:python)/make matrix SHARD=function:python=40s", "x.yml"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 40*time.Second, o.timeouts["shard (function:python)/make matrix SHARD=function:python"], "-timeout of a step named with '='")
	for args, want := range map[string]string{
		"-dir d -event release x.yml":   "-event release",
		"-dir d -ref main x.yml":        "-ref main",
		"-dir d -timeout shard=5 x.yml": "-timeout",
		"-dir d -matrix shard x.yml":    "-matrix",
		"-dir d -attempt 0 x.yml":       "-attempt 0",
		"-event push x.yml":             "-dir",
		"-dir d":                        "name one workflow file",
	} {
		_, _, err := parseFlags(strings.Fields(args), io.Discard)
		assert.ErrorContains(t, err, want, "%s", args)
	}
}

// TestAStepsOrphansRunOnUntilTheJobsEnd: a step whose background process holds its output open
// is over 5 s after its shell exits, as on the hosted runner; the process runs on through the
// job's next step and is ended at the job's end, found by the job's RUNNER_TRACKING_ID.
func TestAStepsOrphansRunOnUntilTheJobsEnd(t *testing.T) {
	file := filepath.Join(t.TempDir(), "orphan.yml")
	require.NoError(t, os.WriteFile(file, []byte(`on: push
jobs:
  orphan:
    runs-on: ubuntu-24.04
    steps:
      - run: sleep 300 & echo $! > "$RUNNER_TEMP/orphan.pid"
      - run: kill -0 "$(cat "$RUNNER_TEMP/orphan.pid")"
`), 0o644))
	start := time.Now()
	code, out, r, dir := runWorkflow(t, file, "-event", "push")
	assert.Equal(t, 0, code, "exit status (%s)", out)
	assert.Less(t, time.Since(start), time.Minute, "the run's time, with a 300 s orphan")
	assert.Equal(t, success, r.Jobs[0].Steps[1].Outcome, "the orphan alive in the next step")
	data, err := os.ReadFile(filepath.Join(dir, filepath.Dir(r.Jobs[0].Log), "temp", "orphan.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	// Ended: gone, or a zombie its new parent has yet to reap. A SIGKILL takes effect when the
	// kernel next schedules the process, so the test waits for it, a few seconds at most.
	var stat []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if stat, _ = os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); stat == nil || strings.Contains(string(stat), ") Z ") {
			break
		}
	}
	assert.True(t, stat == nil || strings.Contains(string(stat), ") Z "), "the orphan %d 10 s after the job's end: %s", pid, stat)
}
