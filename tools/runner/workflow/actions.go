package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
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

// uploadArtifact models actions/upload-artifact: the files of each path (a file, a folder or a
// glob, relative to the workspace), hidden files left out unless include-hidden-files, stored
// under the least common ancestor of the paths (a single folder's contents at the root); no
// files is a warning, an error or nothing (if-no-files-found); a name already in the run is a
// conflict unless overwrite.
func uploadArtifact(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	name := with["name"]
	if name == "" {
		name = "artifact"
	}
	var search []string
	for _, p := range strings.Split(with["path"], "\n") {
		if p = strings.TrimSpace(p); p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(js.workspace, p)
			}
			search = append(search, p)
		}
	}
	if len(search) == 0 {
		return "", fmt.Errorf("actions/upload-artifact %s: no path", name)
	}
	files, root, err := artifactFiles(search, with["include-hidden-files"] == "true")
	if err != nil {
		return r.fail(js, s, "%v", err)
	}
	if len(files) == 0 {
		switch with["if-no-files-found"] {
		case "error":
			return r.fail(js, s, "No files were found with the provided path: %s. No artifacts will be uploaded.", with["path"])
		case "ignore":
		default:
			r.record(js, "warning: No files were found with the provided path: %s. No artifacts will be uploaded.", with["path"])
		}
		return success, nil
	}
	if err := r.store.put(name, root, files, with["overwrite"] == "true"); err != nil {
		return r.fail(js, s, "%v", err)
	}
	r.record(js, "artifact %s: %d files from %s", name, len(files), root)
	s.Outputs = map[string]string{"artifact-id": name}
	return success, nil
}

// artifactFiles are the files of the search paths and the root they are stored under.
func artifactFiles(search []string, hidden bool) ([]string, string, error) {
	var roots, files []string
	for _, p := range search {
		base := p
		if strings.ContainsAny(p, "*?[") {
			parts := strings.Split(p, string(filepath.Separator))
			i := slices.IndexFunc(parts, func(s string) bool { return strings.ContainsAny(s, "*?[") })
			base = strings.Join(parts[:i], string(filepath.Separator))
		}
		roots = append(roots, base)
		matches := []string{p}
		if base != p {
			m, err := filepath.Glob(p)
			if err != nil {
				return nil, "", err
			}
			matches = m
		}
		for _, m := range matches {
			err := filepath.WalkDir(m, func(f string, d fs.DirEntry, err error) error {
				if err != nil {
					if os.IsNotExist(err) {
						return nil
					}
					return err
				}
				rel, _ := filepath.Rel(base, f)
				if !hidden && slices.ContainsFunc(strings.Split(rel, string(filepath.Separator)), func(c string) bool { return strings.HasPrefix(c, ".") && c != "." }) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.Type().IsRegular() && !slices.Contains(files, f) {
					files = append(files, f)
				}
				return nil
			})
			if err != nil {
				return nil, "", err
			}
		}
	}
	root := roots[0]
	if len(roots) == 1 {
		if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
			root = filepath.Dir(root)
		}
	}
	for _, p := range roots[1:] {
		for !strings.HasPrefix(p+string(filepath.Separator), strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			root = filepath.Dir(root)
		}
	}
	return files, root, nil
}

// downloadArtifact models actions/download-artifact: one artifact by name into path (the
// workspace by default), or those whose names match pattern (every one without it), each into a
// folder of its name under path, or all into path with merge-multiple.
func downloadArtifact(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	dest := with["path"]
	switch {
	case dest == "":
		dest = js.workspace
	case !filepath.IsAbs(dest):
		dest = filepath.Join(js.workspace, dest)
	}
	if name := with["name"]; name != "" {
		if !r.store.has(name) {
			return r.fail(js, s, "Unable to download artifact(s): Artifact not found for name: %s", name)
		}
		if err := r.store.get(name, dest); err != nil {
			return r.fail(js, s, "%v", err)
		}
		r.record(js, "artifact %s into %s", name, dest)
		return success, nil
	}
	names, err := r.store.names()
	if err != nil {
		return "", err
	}
	var got []string
	for _, n := range names {
		if p := with["pattern"]; p != "" {
			if ok, _ := path.Match(p, n); !ok {
				continue
			}
		}
		to := filepath.Join(dest, n)
		if with["merge-multiple"] == "true" {
			to = dest
		}
		if err := r.store.get(n, to); err != nil {
			return r.fail(js, s, "%v", err)
		}
		got = append(got, n)
	}
	r.record(js, "artifacts %v into %s", got, dest)
	return success, nil
}

// uploadPagesArtifact models actions/upload-pages-artifact: path (_site/ by default) as
// artifact.tar, without .git and .github, uploaded as an artifact named name (github-pages by
// default), with no overwrite.
func uploadPagesArtifact(ctx context.Context, r *runner, js *jobState, s *Step, with, env map[string]string) (string, error) {
	dir := with["path"]
	if dir == "" {
		dir = "_site/"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(js.workspace, dir)
	}
	name := with["name"]
	if name == "" {
		name = "github-pages"
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return r.fail(js, s, "tar: %s: Cannot open: No such file or directory", with["path"])
	}
	staging := filepath.Join(js.temp, "pages-"+randomHex(4))
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return "", err
	}
	tarPath := filepath.Join(staging, "artifact.tar")
	if err := tarFolder(dir, tarPath); err != nil {
		return r.fail(js, s, "%v", err)
	}
	if err := r.store.put(name, staging, []string{tarPath}, false); err != nil {
		return r.fail(js, s, "%v", err)
	}
	r.record(js, "pages artifact %s: %s", name, dir)
	s.Outputs = map[string]string{"artifact_id": name}
	return success, nil
}

// tarFolder writes dir's files (links followed) into a tar at out, leaving .git and .github out.
func tarFolder(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".github") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: "./" + rel, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// artifactStore keeps a run's artifacts, each a folder of its files under its name.
type artifactStore struct{ dir string }

func (a *artifactStore) has(name string) bool {
	_, err := os.Stat(filepath.Join(a.dir, name))
	return err == nil
}

func (a *artifactStore) names() ([]string, error) {
	entries, err := os.ReadDir(a.dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// put stores files under name, by their paths relative to root; an artifact of that name already
// in the run is refused as the service refuses it, unless overwrite.
func (a *artifactStore) put(name, root string, files []string, overwrite bool) error {
	if strings.ContainsAny(name, `":<>|*?\/`+"\r\n") {
		return fmt.Errorf("The artifact name is not valid: %s. Contains the following character: one of \" : < > | * ? \\ / \\r \\n", name)
	}
	to := filepath.Join(a.dir, name)
	if a.has(name) {
		if !overwrite {
			return fmt.Errorf("Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run")
		}
		if err := os.RemoveAll(to); err != nil {
			return err
		}
	}
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return err
		}
		if err := copyFile(f, filepath.Join(to, rel)); err != nil {
			return err
		}
	}
	return nil
}

// get copies artifact name's files into dir.
func (a *artifactStore) get(name, dir string) error {
	from := filepath.Join(a.dir, name)
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		return copyFile(p, filepath.Join(dir, rel))
	})
}

// copyFile copies a file's bytes alone: an artifact keeps no permissions, links or owner
// (upload-artifact's README: "File permissions are not maintained during artifact upload").
func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
