// Package wholefile writes a file whole or not at all: to a temporary file in the same folder,
// synced, then renamed over the old one, so that a reader sees the old file or the new one,
// never half of either, and a failed write leaves the old one as it was.
package wholefile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with mode 0644, making path's folder if it is missing.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
