//go:build runnerstandin

package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/serverless-claims/claims/harness/standin/ghstub"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stand-in's settings for every step (docs/runner.md, "The workflows, step by step"): the
// userland shares a cgroup v1 host's hierarchy, where tools/delegate.sh can delegate nothing (the
// guest runs the quota step delegated); and the claims shards run two claim tests, one a Node
// shard runs and one a function's, since what is tested here is the workflow, not the claims
// (make test, in test.yml's job, decides those).
var standInSettings = []string{
	"CLAIMS_NO_DELEGATION=1",
	"MATRIX_TESTS=TestPoolSizeFromInsideProgram,TestPhasesAreTheSDKsOwnConnection",
}

// The claims workflow's two shards: one that runs to its end, and one whose make matrix fails at
// once, before it writes anything: the run's MATRIX_FUNCTIONS leaves its language out, so that
// cmd/matrix refuses the shard ("not a shard of -node, -go and -functions"), while the shards
// job's list (go run ./cmd/matrix -list, not through make) still names it. A step cut off by its timeout would not
// do: the hosted runner ends the step's shell and lets its descendants run on until the job's
// end (TestAStepsOrphansRunOnUntilTheJobsEnd), so a shard cut off late may still write its
// descriptor before its upload; that a shard cut off mid-run uploads what it wrote is the
// runner's own test's (TestAWorkflowRunsAsGitHubRunsIt).
const (
	greenShard    = "node:path"
	brokenShard   = "function:python"
	brokenSetting = "MATRIX_FUNCTIONS=rust node"
)

// workflowRun runs a workflow of this repository as the hosted runner would, in a folder of its
// own under the stand-in's folder, with the git server's repository and the fake gh's state
// shared by every run of the test, as one repository's are.
func workflowRun(t *testing.T, file string, args ...string) (Run, string) {
	t.Helper()
	root, err := repo.Root()
	require.NoError(t, err)
	base := os.Getenv("CLAIMS_WORKFLOWS_DIR")
	if base == "" {
		base = t.TempDir()
	}
	dir := filepath.Join(base, strings.TrimSuffix(filepath.Base(file), ".yml"))
	require.NoError(t, os.RemoveAll(dir))
	all := []string{"-dir", dir, "-repo", root, "-remote", filepath.Join(base, "remote"), "-gh", filepath.Join(base, "gh.json")}
	for _, s := range standInSettings {
		all = append(all, "-set", s)
	}
	var out bytes.Buffer
	code, err := run(append(append(all, args...), filepath.Join(root, file)), &out)
	t.Logf("%s:\n%s", file, out.String())
	require.NotEqual(t, 2, code, "the runner on %s: %v", file, err)
	keep(t, dir)
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err)
	var r Run
	require.NoError(t, json.Unmarshal(data, &r))
	return r, dir
}

// keep copies a run's record, its jobs' logs and summaries into CLAIMS_WORKFLOWS_KEEP, where
// set (make runner-workflows brings that folder back from the userland); the workspaces stay.
func keep(t *testing.T, dir string) {
	t.Helper()
	to := os.Getenv("CLAIMS_WORKFLOWS_KEEP")
	if to == "" {
		return
	}
	for _, f := range filesUnder(t, dir) {
		if f == "run.json" || (strings.HasPrefix(f, "jobs/") && strings.Count(f, "/") == 2 && (strings.HasSuffix(f, "/log") || strings.HasSuffix(f, "/summary.md"))) {
			require.NoError(t, copyFile(filepath.Join(dir, f), filepath.Join(to, filepath.Base(dir), f)))
		}
	}
}

// assertResults checks each job's result, naming the step that failed where one did.
func assertResults(t *testing.T, r Run, want map[string]string) {
	t.Helper()
	jobs := jobsByName(r)
	for name, result := range want {
		j, ok := jobs[name]
		if !assert.True(t, ok, "%s: job %s did not run (jobs %v)", r.Workflow, name, names(r)) {
			continue
		}
		var failed []string
		for _, s := range j.Steps {
			if s.Outcome == failure {
				failed = append(failed, s.Name+": "+s.Note)
			}
		}
		assert.Equal(t, result, j.Result, "%s: job %s's result = %s; want %s (failed steps %q; log %s)", r.Workflow, name, j.Result, result, failed, j.Log)
	}
}

func names(r Run) []string {
	var out []string
	for _, j := range r.Jobs {
		out = append(out, j.Name)
	}
	return out
}

// workspaceOf is the workspace of a job of the run in dir.
func workspaceOf(dir string, j *Job) string {
	return filepath.Join(dir, filepath.Dir(j.Log), "work", "claims")
}

// filesUnder lists the files under dir, relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestTheWorkflowsRunGreenOnTheRunner runs every job of the three workflows, step by step as
// user runner in the runner stand-in's userland (make runner-workflows), from the workflow files
// themselves: test.yml's make test; claims.yml's heartbeat, shard list, two shards (one whose make
// matrix fails, whose upload still runs and whose column the merge names missing), the
// merge with its history push, issues and site, and the pages job up to GitHub's Pages API; and
// live.yml's build and its live job up to AWS.
func TestTheWorkflowsRunGreenOnTheRunner(t *testing.T) {
	u, err := user.Current()
	require.NoError(t, err)
	require.Equal(t, "runner", u.Username, "the user; want runner, as the hosted runner's jobs run: run it through make runner-workflows")

	t.Run("test.yml", func(t *testing.T) {
		r, dir := workflowRun(t, ".github/workflows/test.yml", "-event", "push")
		assertResults(t, r, map[string]string{"test": success})
		// Its two paths' least common ancestor is the one above the workspace and RUNNER_TEMP,
		// so the artifact holds claims/results/... beside _temp/junit/... (here, work/claims and
		// temp/junit).
		files := filesUnder(t, filepath.Join(dir, "artifacts", "test-results"))
		assert.True(t, slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, "/results/report.md") }),
			"test-results: make test's report (%d files)", len(files))
		assert.True(t, slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".xml") }), "test-results: JUnit files (%v)", files)
	})

	t.Run("claims.yml", func(t *testing.T) {
		step := "make matrix SHARD=" + brokenShard
		r, dir := workflowRun(t, ".github/workflows/claims.yml", "-event", "schedule",
			"-workflow-state", "live.yml=disabled_inactivity",
			"-matrix", "shard="+greenShard+","+brokenShard, "-set", brokenSetting)
		assertResults(t, r, map[string]string{"heartbeat": success, "shards": success,
			"shard (" + greenShard + ")": success, "shard (" + brokenShard + ")": failure, "merge": success, "pages": boundary})
		jobs := jobsByName(r)

		st, err := ghstub.Read(filepath.Join(filepath.Dir(dir), "gh.json"))
		require.NoError(t, err)
		assert.Equal(t, "active", st.Workflows["live.yml"].State, "live.yml after the heartbeat; it was disabled for inactivity")

		broken := jobs["shard ("+brokenShard+")"]
		if assert.NotNil(t, broken) {
			assert.Equal(t, failure, stepOf(t, broken, step).Outcome, "%s: its make matrix", broken.Name)
			upload := broken.Steps[len(broken.Steps)-1]
			assert.Equal(t, success, upload.Outcome, "%s: its upload after the failed step", broken.Name)
			// What the failed shard had written is what it uploaded, whatever that was.
			wrote := filesUnder(t, filepath.Join(workspaceOf(dir, broken), "results", "matrix"))
			var uploaded []string
			shards, _ := filepath.Glob(filepath.Join(dir, "artifacts", "shard-*"))
			for _, a := range shards {
				for _, f := range filesUnder(t, filepath.Join(a, "results", "matrix")) {
					if strings.HasPrefix(f, "function-python/") {
						uploaded = append(uploaded, f)
					}
				}
			}
			assert.ElementsMatch(t, wrote, uploaded, "%s: the results it wrote and those uploaded", broken.Name)
		}

		merge := jobs["merge"]
		if assert.NotNil(t, merge) {
			data, err := os.ReadFile(filepath.Join(workspaceOf(dir, merge), "results", report.MatrixFile))
			if assert.NoError(t, err, "the merge's matrix") {
				var m report.Matrix
				require.NoError(t, json.Unmarshal(data, &m))
				missing := slices.IndexFunc(m.Skipped, func(s report.SkippedRun) bool {
					return s.Runtime == brokenShard && strings.Contains(s.Reason, "left no descriptor")
				})
				assert.GreaterOrEqual(t, missing, 0, "the merged matrix's missing columns %v; want %s named, as its shard left no descriptor", m.Skipped, brokenShard)
				assert.True(t, slices.ContainsFunc(m.Columns, func(c report.Column) bool { return c.Kind == "node" }),
					"the merged matrix's columns %v; want %s's", m.Columns, greenShard)
			}
			assert.FileExists(t, filepath.Join(dir, "artifacts", "claims-report", "results", "matrix.md"), "the claims-report artifact")
			assert.True(t, slices.ContainsFunc(filesUnder(t, filepath.Join(dir, "artifacts")), func(f string) bool {
				return strings.HasPrefix(f, "github-pages-1/") && strings.HasSuffix(f, "artifact.tar")
			}), "the site's artifact, for the pages job")
		}
		log, err := exec.Command("git", "-C", filepath.Join(filepath.Dir(dir), "remote", "serverless-claims", "claims"),
			"log", "--format=%s", "claims-history").CombinedOutput()
		assert.NoError(t, err, "the history branch on the server after the merge's push: %s", log)
	})

	t.Run("live.yml", func(t *testing.T) {
		r, dir := workflowRun(t, ".github/workflows/live.yml", "-event", "workflow_dispatch")
		assertResults(t, r, map[string]string{"heartbeat": success, "build": success, "live": boundary})
		live := jobsByName(r)["live"]
		if assert.NotNil(t, live) {
			assert.Contains(t, live.Boundary, "aws-actions/configure-aws-credentials", "where the live job stopped")
			restore := stepOf(t, live, "What the build job installed and built")
			assert.Equal(t, success, restore.Outcome, "the live job unpacked the build's archive")
		}
		assert.FileExists(t, filepath.Join(dir, "artifacts", "live-build", "live-build.tar"), "the build's archive")
	})
}
