package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// action is the stand-in's model of one action: the inputs it knows (an input it does not know
// is refused, so that a model never ignores what a workflow asks), and what it does. A model
// that stops at a service the stand-in cannot reach gives the boundary's name and does nothing.
type action struct {
	inputs   []string
	boundary string
	run      func(ctx context.Context, r *runner, js *jobState, s *Step, with map[string]string, env map[string]string) (string, error)
}

// actions are the models, by owner/name: what each action does, as its own documentation and
// source say (docs/runner.md, "The workflows, step by step"), in the part the workflows use.
var actions = map[string]action{
	"actions/checkout":              {inputs: []string{"persist-credentials", "fetch-depth", "ref"}, run: checkout},
	"actions/setup-go":              {inputs: []string{"go-version-file", "go-version", "cache"}, run: setupGo},
	"actions/setup-node":            {inputs: []string{"node-version", "package-manager-cache", "cache"}, run: setupNode},
	"actions/upload-artifact":       {inputs: []string{"name", "path", "if-no-files-found", "retention-days", "overwrite", "include-hidden-files"}, run: uploadArtifact},
	"actions/download-artifact":     {inputs: []string{"name", "pattern", "path", "merge-multiple"}, run: downloadArtifact},
	"actions/upload-pages-artifact": {inputs: []string{"name", "path", "retention-days"}, run: uploadPagesArtifact},
	"actions/configure-pages":       {boundary: "GitHub Pages (its REST API)"},
	"actions/deploy-pages":          {inputs: []string{"artifact_name"}, boundary: "GitHub Pages (its REST API)"},
	"aws-actions/configure-aws-credentials": {inputs: []string{"role-to-assume", "aws-region", "role-duration-seconds", "unset-current-credentials"},
		boundary: "AWS (STS, through GitHub's OIDC token)"},
}

// pinned is a uses: pinned by a full commit SHA, as GitHub's security guidance asks.
var pinned = regexp.MustCompile(`^([^@/]+/[^@/]+)@[0-9a-f]{40}$`)

// action runs a uses: step through its model.
func (r *runner) action(ctx context.Context, js *jobState, j *Job, s *Step, with, env map[string]string) (string, error) {
	m := pinned.FindStringSubmatch(s.Uses)
	if m == nil {
		r.record(js, "%s: not pinned by a full commit SHA (owner/name@<40 hex digits>)", s.Uses)
		s.Note = "not pinned by a commit SHA"
		return failure, nil
	}
	a, ok := actions[m[1]]
	if !ok {
		return "", fmt.Errorf("uses: %s: an action the runner stand-in has no model of (actions.go)", s.Uses)
	}
	for k := range with {
		if !slices.Contains(a.inputs, k) {
			return "", fmt.Errorf("uses: %s with %s: an input its model does not know (actions.go)", m[1], k)
		}
	}
	if a.boundary != "" {
		j.Boundary = m[1] + ": " + a.boundary
		s.Note = "the boundary: " + a.boundary + " cannot be reached from the stand-in; the job stops here"
		r.record(js, "%s", s.Note)
		return boundary, nil
	}
	return a.run(ctx, r, js, s, with, env)
}

// command runs a program for a model, in the job's environment, its output to the job's log.
func (r *runner) command(ctx context.Context, js *jobState, s *Step, env map[string]string, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = r.stepEnv(js, env, nil, s.ID)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	fmt.Fprint(js.log, mask(out.String(), js.masks))
	if err != nil {
		return out.String(), fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(mask(out.String(), js.masks)))
	}
	return out.String(), nil
}

// fail records why a model's step failed and gives failure.
func (r *runner) fail(js *jobState, s *Step, format string, args ...any) (string, error) {
	s.Note = mask(fmt.Sprintf(format, args...), js.masks)
	r.record(js, "%s: %s", s.Name, s.Note)
	return failure, nil
}

// basicAuth is the header value actions/checkout gives git for the job's token.
func basicAuth(token string) string {
	return "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
}

// checkout models actions/checkout for a branch's push or a scheduled or manual run: a new
// repository in the workspace, origin at the server's URL of the repository, the run's commit
// fetched at depth 1 with the job's token and checked out on its branch; with
// persist-credentials (the default) the token stays in .git/config as http.<server>/.extraheader,
// where every later step's git uses it.
func checkout(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	if d := with["fetch-depth"]; d != "" && d != "1" {
		return "", fmt.Errorf("actions/checkout fetch-depth %s: not modelled (the default, 1, is)", d)
	}
	if with["ref"] != "" {
		return "", fmt.Errorf("actions/checkout ref %s: not modelled (the run's commit is)", with["ref"])
	}
	branch := strings.TrimPrefix(r.opt.ref, "refs/heads/")
	key := "http." + r.server.url + "/.extraheader"
	if r.opt.here {
		// The workspace is the checkout the run is of (-here): it holds the commit already;
		// origin becomes the server's, as checkout makes it. A persisted token would stay in
		// that checkout's .git/config, so the stand-in refuses it here.
		if with["persist-credentials"] != "false" {
			return "", errors.New("-here with actions/checkout's persist-credentials: it would leave the job's token in this checkout's .git/config")
		}
		set := "set-url"
		if _, err := r.command(ctx, js, s, env, js.workspace, "git", "remote", "get-url", "origin"); err != nil {
			set = "add"
		}
		if _, err := r.command(ctx, js, s, env, js.workspace, "git", "remote", set, "origin", r.server.url+"/"+r.opt.repository); err != nil {
			return r.fail(js, s, "%v", err)
		}
		return success, nil
	}
	steps := [][]string{
		{"git", "init", "-q", "-b", branch, "."},
		{"git", "remote", "add", "origin", r.server.url + "/" + r.opt.repository},
		{"git", "-c", key + "=" + basicAuth(js.token), "-c", "protocol.version=2", "fetch", "-q", "--no-tags", "--prune", "--depth=1",
			"origin", "+" + r.commit + ":refs/remotes/origin/" + branch},
		{"git", "checkout", "-q", "--force", "-B", branch, "refs/remotes/origin/" + branch},
	}
	if with["persist-credentials"] != "false" {
		steps = append(steps, []string{"git", "config", "--local", key, basicAuth(js.token)})
	}
	for _, args := range steps {
		if _, err := r.command(ctx, js, s, env, js.workspace, args...); err != nil {
			return r.fail(js, s, "%v", err)
		}
	}
	return success, nil
}

// goModVersion is the Go version setup-go installs for go-version-file: the toolchain line's,
// else the go line's (as tools/runner/lib.sh's go_version reads it).
func goModVersion(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var goLine string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "toolchain":
			return strings.TrimPrefix(f[1], "go"), nil
		case len(f) == 2 && f[0] == "go" && goLine == "":
			goLine = f[1]
		}
	}
	if goLine == "" {
		return "", fmt.Errorf("%s: no go or toolchain line", file)
	}
	return goLine, nil
}

// setupGo models actions/setup-go: the runner's tool cache has no go.mod version to install, so
// the model checks that the go first on PATH (the stand-in's, tools/runner/rootfs.sh) is the
// version setup-go would put there, and fails naming both where it is not.
func setupGo(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	want := with["go-version"]
	if f := with["go-version-file"]; f != "" {
		v, err := goModVersion(filepath.Join(js.workspace, f))
		if err != nil {
			return r.fail(js, s, "go-version-file: %v", err)
		}
		want = v
	}
	out, err := r.command(ctx, js, s, env, js.workspace, "go", "env", "GOVERSION")
	if err != nil {
		return r.fail(js, s, "%v", err)
	}
	if got := strings.TrimSpace(out); got != "go"+want {
		return r.fail(js, s, "go on PATH is %s; setup-go would install go%s", got, want)
	}
	s.Outputs = map[string]string{"go-version": want, "cache-hit": "false"}
	return success, nil
}

// setupNode models actions/setup-node the same way: the node first on PATH must be of the major
// version asked for.
func setupNode(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	want := with["node-version"]
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(want) {
		return "", fmt.Errorf("actions/setup-node node-version %q: only a major version is modelled", want)
	}
	out, err := r.command(ctx, js, s, env, js.workspace, "node", "--version")
	if err != nil {
		return r.fail(js, s, "%v", err)
	}
	got := strings.TrimSpace(out)
	if !strings.HasPrefix(got, "v"+want+".") {
		return r.fail(js, s, "node on PATH is %s; setup-node would install %s.x", got, want)
	}
	s.Outputs = map[string]string{"node-version": got}
	return success, nil
}
