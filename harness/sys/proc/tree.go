package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stat reads pid's state and parent from /proc/<pid>/stat; ok is false once it is gone.
func stat(pid int) (state string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	// The command name in parentheses may hold spaces; the fields after it do not.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, _ = strconv.Atoi(fields[1])
	return fields[0], ppid, true
}

// Alive reports whether pid runs; a zombie (ended, not yet reaped) counts as ended.
func Alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != "Z"
}

// Descendants returns the running processes whose parent chain leads to pid, for tests that
// check that a test binary's children are gone after it was interrupted.
func Descendants(pid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	children := map[int][]int{}
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if state, ppid, ok := stat(p); ok && state != "Z" {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}
