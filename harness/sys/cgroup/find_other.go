//go:build !linux

package cgroup

import (
	"fmt"
	"runtime"
)

// find fails: a CPU quota here is a cgroup, and cgroups are Linux's.
func find() (hierarchy, error) {
	return hierarchy{}, fmt.Errorf("cgroup: needs Linux: a CPU quota is made with a cgroup, which %s does not have; run the claims that need one on Linux", runtime.GOOS)
}
