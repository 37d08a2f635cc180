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

// processes lists the machine's processes from /proc.
func processes() []process {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []process
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if state, ppid, ok := stat(p); ok {
			out = append(out, process{pid: p, ppid: ppid, state: state})
		}
	}
	return out
}
