package lambdazip

import "errors"

// buildNode builds a Node function (written in the next commits).
func buildNode(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	return errors.New("not built yet")
}
