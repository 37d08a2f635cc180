package lambdazip

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// sharedCacheEnv, when set, is the folder of the builds' shared caches instead of the user's
// cache folder (os.UserCacheDir).
const sharedCacheEnv = "CLAIMS_BUILD_CACHE"

// sharedCache is a folder of the caches every checkout of the repository on this machine shares,
// as they share Go's build cache: what a build made from some content, kept under a name that
// digests that content, so that a fresh clone of the same commit finds it and no checkout ever
// takes another content's. elem names it under the user's cache folder.
func sharedCache(elem ...string) (string, error) {
	base := os.Getenv(sharedCacheEnv)
	if base == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder for the builds (set %s): %w", sharedCacheEnv, err)
		}
		base = filepath.Join(user, "serverless-claims")
	}
	dir := filepath.Join(append([]string{base}, elem...)...)
	return dir, os.MkdirAll(dir, 0o755)
}

// dirDigest digests the regular files under dir but those skip leaves out, by their
// slash-separated names and bytes, in name order, as 16 hex digits.
func dirDigest(dir string, skip func(rel string) bool) (string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\n", name)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// withLock runs fn holding an exclusive lock on the file path (made if missing): one build at a
// time in a shared cache, whichever checkout runs it.
func withLock(path string, fn func() error) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // closing the file releases the lock
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("locking %s: %w", path, err)
		}
	}
	return fn()
}
