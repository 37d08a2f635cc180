//go:build !linux

package proc

import (
	"os/exec"
	"strconv"
	"strings"
)

// stat reads pid's state and parent from ps, where there is no /proc (macOS); ok is false once
// it is gone.
func stat(pid int) (state string, ppid int, ok bool) {
	for _, p := range ps("-p", strconv.Itoa(pid)) {
		if p.pid == pid {
			return p.state, p.ppid, true
		}
	}
	return "", 0, false
}

// processes lists the machine's processes from ps.
func processes() []process { return ps("-A") }

// ps runs ps with which (-A, or -p PID) and reads its pid, parent and state columns.
func ps(which ...string) []process {
	out, err := exec.Command("ps", append(which, "-o", "pid=,ppid=,stat=")...).Output()
	if err != nil {
		return nil // ps exits 1 when -p names no process
	}
	var procs []process
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			procs = append(procs, process{pid: pid, ppid: ppid, state: f[2][:1]})
		}
	}
	return procs
}
