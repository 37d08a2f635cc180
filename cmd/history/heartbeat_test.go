package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heartbeatJob is the job of each scheduled workflow that keeps the schedules alive (docs/ci.md,
// "What keeps the schedule alive").
const heartbeatJob = "heartbeat"

// TestTheHeartbeatEnablesEachSchedule reads the heartbeat job of every workflow with a schedule:
// it is in each, the same in each, holds actions: write and no other permission, waits for no
// other job, runs no action; and its script, run as GitHub's bash runs a step against the fake
// gh, enables every scheduled workflow that is active or disabled for inactivity, leaves one a
// person disabled or a fork's as it is, and fails the job where gh fails or the enabling is
// refused.
func TestTheHeartbeatEnablesEachSchedule(t *testing.T) {
	scheduled := scheduledWorkflows(t)
	require.NotEmpty(t, scheduled, "workflows with a schedule")

	var script string
	for _, file := range scheduled {
		job := workflowJob(t, file, heartbeatJob)
		require.NotEmpty(t, job, "%s: no job %s; every scheduled workflow keeps the schedules alive", file, heartbeatJob)
		assert.Equal(t, map[string]string{"actions": "write"}, jobPermissions(job),
			"%s: the heartbeat's permissions; want actions: write alone (Enable a workflow needs it)", file)
		for _, key := range []string{"needs", "if"} {
			assert.NotRegexp(t, `(?m)^    `+key+`:`, job, "%s: the heartbeat has %s:, so a run may skip it", file, key)
		}
		assert.NotContains(t, job, "uses:", "%s: the heartbeat runs an action, which would hold its token", file)
		s := runScript(t, job)
		if script == "" {
			script = s
		}
		assert.Equal(t, script, s, "%s: the heartbeat's script; want the same in every scheduled workflow (%s first)", file, scheduled[0])
	}

	for _, tc := range []struct {
		name    string
		states  map[string]string // file → state, for those not active
		enabled []string          // nil: every scheduled workflow
		left    string            // a workflow the script must say it left as it is
		readers bool              // the token reads and may not write
		fails   bool              // gh fails
	}{
		{name: "all active"},
		{name: "one disabled for inactivity", states: map[string]string{"live.yml": "disabled_inactivity"}},
		{name: "one disabled by a person", states: map[string]string{"live.yml": "disabled_manually"}, enabled: []string{"claims.yml"}, left: "live.yml"},
		{name: "one a fork's", states: map[string]string{"live.yml": "disabled_fork"}, enabled: []string{"claims.yml"}, left: "live.yml"},
		{name: "the token may not write", readers: true},
		{name: "gh fails", fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := installFakeGH(t)
			st := ghState{Workflows: map[string]ghWorkflow{}, ReadOnly: tc.readers}
			for _, file := range scheduled {
				s := "active"
				if v, ok := tc.states[file]; ok {
					s = v
				}
				st.Workflows[file] = ghWorkflow{State: s, UpdatedAt: "2026-10-01T00:00:00Z"}
			}
			writeGH(t, state, st)
			if tc.fails {
				t.Setenv(fakeGHFailEnv, "1")
			}
			out, summary, err := runStep(t, script)
			if tc.fails || tc.readers {
				assert.Error(t, err, "the heartbeat's exit status where gh fails or is refused; want the job to fail (output:\n%s)", out)
				return
			}
			require.NoError(t, err, "the heartbeat's exit status (output:\n%s)", out)

			want := tc.enabled
			if want == nil {
				want = scheduled
			}
			var enabled []string
			for _, c := range readGH(t, state).Calls {
				if m := regexp.MustCompile(`^\[api -X PUT repos/owner/claims/actions/workflows/([^ ]+)/enable\]$`).FindStringSubmatch(c); m != nil {
					enabled = append(enabled, m[1])
				}
			}
			slices.Sort(enabled)
			assert.Equal(t, want, enabled, "workflows enabled (calls %v)", readGH(t, state).Calls)
			for _, file := range want {
				was := "active"
				if v, ok := tc.states[file]; ok {
					was = v
				}
				// The fake's updated_at after a PUT is a time of 2026-12-03 (fakeGHAPI).
				assert.Contains(t, summary, "- "+file+": was "+was+", enabled: active, updated_at 2026-12-03T",
					"the step summary: %s enabled, read again after", file)
			}
			if tc.left != "" {
				assert.Equal(t, tc.states[tc.left], readGH(t, state).Workflows[tc.left].State, "%s's state after the heartbeat", tc.left)
				assert.Contains(t, out, "::notice::"+tc.left+" is "+tc.states[tc.left], "the heartbeat's output names what it left")
			}
		})
	}
}

// scheduledWorkflows gives the file names of the workflows with a schedule trigger, sorted.
func scheduledWorkflows(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(repoPath(t, filepath.Join(".github", "workflows", "*.yml")))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if regexp.MustCompile(`(?m)^  schedule:`).Match(data) {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

// workflowJob gives the lines of job name in the workflow file, from its key to the next job's
// (or a comment before it), or "" where there is none. A job is a key indented by two spaces
// under jobs:, as every workflow here writes them.
func workflowJob(t *testing.T, file, name string) string {
	t.Helper()
	data, err := os.ReadFile(repoPath(t, filepath.Join(".github", "workflows", file)))
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, "  "+name+":")
	if start < 0 {
		return ""
	}
	end := start + 1
	for end < len(lines) && (lines[end] == "" || strings.HasPrefix(lines[end], "   ")) {
		end++
	}
	return strings.TrimSpace(strings.Join(lines[start:end], "\n"))
}

// jobPermissions gives the job's permissions: key, as permission → access (nil without one).
func jobPermissions(job string) map[string]string {
	m := regexp.MustCompile(`(?m)^    permissions:\n((?:      .*\n?)*)`).FindStringSubmatch(job)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimRight(m[1], "\n"), "\n") {
		line, _, _ = strings.Cut(line, "#")
		k, v, _ := strings.Cut(line, ":")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// runScript gives the job's one run: | script, without its indentation: the lines after it that
// are blank or indented deeper than its key.
func runScript(t *testing.T, job string) string {
	t.Helper()
	lines := strings.Split(job, "\n")
	var at []int
	for i, l := range lines {
		if strings.TrimSpace(l) == "run: |" {
			at = append(at, i)
		}
	}
	require.Len(t, at, 1, "the heartbeat's run: | scripts (job:\n%s)", job)
	indent := strings.Repeat(" ", strings.Index(lines[at[0]], "run:")+2)
	var out []string
	for _, l := range lines[at[0]+1:] {
		if l != "" && !strings.HasPrefix(l, indent) {
			break
		}
		out = append(out, strings.TrimPrefix(l, indent))
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// runStep runs script as GitHub runs a run: step with the default shell on Linux
// (bash --noprofile --norc -eo pipefail), in the repository owner/claims, and gives its output
// and step summary.
func runStep(t *testing.T, script string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	file, summary := filepath.Join(dir, "step.sh"), filepath.Join(dir, "summary.md")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
	cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", file)
	cmd.Env = append(os.Environ(), "GITHUB_REPOSITORY=owner/claims", "GH_TOKEN=fake", "GITHUB_STEP_SUMMARY="+summary)
	out, err := cmd.CombinedOutput()
	data, _ := os.ReadFile(summary)
	return string(out), string(data), err
}

// writeGH sets the fake's repository.
func writeGH(t *testing.T, state string, st ghState) {
	t.Helper()
	data, err := json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state, data, 0o644))
}
