package lambdazip

import "errors"

// buildPython builds a Python function (written in the next commits).
func buildPython(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	return errors.New("not built yet")
}
