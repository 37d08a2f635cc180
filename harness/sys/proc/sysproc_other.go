//go:build !linux

package proc

import "syscall"

// sysProcAttr starts a process in a group of its own (so that Stop ends the whole group). Only
// Linux has a parent-death signal: elsewhere a test binary that dies without running its cleanup
// or its signal handler (a test timeout's panic, a crash) leaves the group running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
