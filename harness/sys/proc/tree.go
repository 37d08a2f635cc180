package proc

// Alive reports whether pid runs; a zombie (ended, not yet reaped) counts as ended.
func Alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != "Z"
}

// Descendants returns the running processes whose parent chain leads to pid, for tests that
// check that a test binary's children are gone after it was interrupted.
func Descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range processes() {
		if p.state != "Z" {
			children[p.ppid] = append(children[p.ppid], p.pid)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

// process is one entry of the machine's process table.
type process struct {
	pid, ppid int
	state     string // the first letter of ps's or /proc's state: "R", "S", "T", "Z"...
}
