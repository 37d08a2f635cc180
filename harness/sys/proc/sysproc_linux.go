package proc

import "syscall"

// sysProcAttr starts a process in a group of its own (so that Stop ends the whole group) that the
// kernel sends SIGTERM when the test binary dies any other way: Linux's parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
