package lambdazip

import "errors"

// buildRust builds a Rust function (written in the next commits).
func buildRust(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	return errors.New("not built yet")
}
