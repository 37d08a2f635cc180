package cgroup

import (
	"fmt"
	"os"
)

// find is the hierarchy of this machine and where this process makes its groups in it (place).
func find() (hierarchy, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return hierarchy{}, fmt.Errorf("cgroup: %v", err)
	}
	h, err := detect(mi)
	if err != nil {
		return h, err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return h, fmt.Errorf("cgroup: %v", err)
	}
	return place(h, self, thisMachine())
}
