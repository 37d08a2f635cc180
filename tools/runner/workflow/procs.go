package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// processes are this machine's processes by id, each with its parent's id, from /proc.
func processes() map[int]int {
	parents := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so after the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 2 {
			continue
		}
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		ppid, err2 := strconv.Atoi(fields[1])
		if err1 == nil && err2 == nil {
			parents[pid] = ppid
		}
	}
	return parents
}

// killTree kills pid and every process descended from it, as ProcessInvoker's KillProcessTree
// does: children before their parent could reparent them.
func killTree(pid int) {
	children := map[int][]int{}
	for p, parent := range processes() {
		children[parent] = append(children[parent], p)
	}
	var tree []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		tree = append(tree, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	for i := len(tree) - 1; i >= 0; i-- {
		syscall.Kill(tree[i], syscall.SIGKILL)
	}
}

// killTracked kills every process whose environment holds RUNNER_TRACKING_ID=id, as the hosted
// runner ends a job's orphan processes, and gives how many. It reads only the environments this
// user may read, which are those of the processes the job started.
func killTracked(id string) int {
	want := []byte("RUNNER_TRACKING_ID=" + id + "\x00")
	n := 0
	self := os.Getpid()
	for pid := range processes() {
		if pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
