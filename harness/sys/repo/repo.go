// Package repo finds the repository's root, the directory holding go.mod, so that code which
// needs a file of the repository (a probe's script, a lab program, the results folder) does not
// depend on the working directory a test runs in.
package repo

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

var root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run from inside the repository")
		}
		dir = parent
	}
})

// Root returns the directory holding go.mod, found by walking up from the working directory (a
// test's working directory is its package's folder) once per process.
func Root() (string, error) { return root() }

// Path joins a slash-separated path below the repository root.
func Path(rel string) (string, error) {
	r, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(r, filepath.FromSlash(rel)), nil
}
