package main

// The artifact actions' models (upload-artifact, download-artifact, upload-pages-artifact) and
// the store they share, as GitHub keeps a run's artifacts.

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

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
