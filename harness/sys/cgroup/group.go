package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Group is a cgroup with a CPU quota, made by New.
type Group struct {
	h      hierarchy
	path   string
	period time.Duration
	desc   string
	mu     sync.Mutex // orders Add, SetShare and Remove
	gone   bool       // removed; guarded by mu
}

// New makes a group with quota q named claims-<name>-<pid>-<n> (name: letters, digits, '-',
// '_', '.'), and registers its removal with t.Cleanup. It first removes the groups left behind
// by test binaries that no longer run, and logs each. A bad Quota is an error naming its field,
// a quota the kernel refuses one naming the file and the value; either way no group is left.
func New(t testing.TB, name string, q Quota) (*Group, error) {
	t.Helper()
	if err := checkName(name); err != nil {
		return nil, err
	}
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	h, err := find()
	if err != nil {
		return nil, err
	}
	for _, msg := range sweep(h) {
		t.Log(msg)
	}
	if h.version == 2 {
		if err := enableCPU(h.parent); err != nil {
			return nil, err
		}
	}

	g := &Group{h: h, period: q.Period}
	live.Lock() // held from mkdir to registration so that an interrupt cannot miss the group
	watchSignals()
	live.next++
	g.path = filepath.Join(h.parent, fmt.Sprintf("%s%s-%d-%d", prefix, name, os.Getpid(), live.next))
	err = os.Mkdir(g.path, 0o755)
	if err == nil {
		live.groups[g.path] = h.home
	}
	live.Unlock()
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Errorf("%v", err)
		}
	})

	if err := g.apply(q, quotaSettings(h.version, q)); err != nil {
		return nil, errors.Join(err, g.Remove())
	}
	return g, nil
}

// apply writes settings, which set q, and reads back what the kernel holds for Describe.
func (g *Group) apply(q Quota, settings []setting) error {
	for _, s := range settings {
		if err := writeFile(filepath.Join(g.path, s.file), s.value); err != nil {
			quota, period := q.micros()
			return fmt.Errorf("cgroup: the kernel refused %s = %q (for a quota of %dµs per %dµs period, share %g): %w",
				s.file, s.value, quota, period, q.Share, err)
		}
	}
	// Describe reports what the kernel holds, read back, not what was written.
	var parts []string
	for _, f := range describedFiles(g.h.version) {
		b, err := os.ReadFile(filepath.Join(g.path, f))
		if err != nil {
			return fmt.Errorf("cgroup: %w", err)
		}
		parts = append(parts, f+"="+strings.TrimSpace(string(b)))
	}
	g.desc = fmt.Sprintf("%s (v%d)", strings.Join(parts, " "), g.h.version)
	return nil
}

// SetShare changes the group's quota to share CPUs per period, the period staying as it was,
// while its processes run: the emulated Lambda's Init runs with a burst of CPU, its invocations
// with the memory size's share. The kernel applies it from the current period on.
func (g *Group) SetShare(share float64) error {
	q, err := Quota{Share: share, Period: g.period}.normalize()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return fmt.Errorf("cgroup: %s was removed", g.path)
	}
	var settings []setting
	for _, s := range quotaSettings(g.h.version, q) {
		// The period is unchanged; the quota is the one file to write (v2's cpu.max holds both).
		if s.file == "cpu.cfs_quota_us" || s.file == "cpu.max" {
			settings = append(settings, s)
		}
	}
	return g.apply(q, settings)
}

// checkName keeps name to characters that are safe in a directory name and cannot be confused
// with the path separator.
func checkName(name string) error {
	ok := name != "" && len(name) <= 64
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}
	if !ok {
		return fmt.Errorf("cgroup: name = %q: want 1 to 64 letters, digits, '-', '_' or '.'", name)
	}
	return nil
}

// writeFile writes value to a cgroup file in one write, as the kernel wants: it does not take a
// value in pieces, and the file must already exist.
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Path is the group's directory.
func (g *Group) Path() string { return g.path }

// Describe is the group's quota and weight as the kernel holds them, for a result's environment:
// "cpu.cfs_quota_us=7236 cpu.cfs_period_us=100000 cpu.shares=262144 (v1)" or
// "cpu.max=7236 100000 cpu.weight=10000 (v2)".
func (g *Group) Describe() string { return g.desc }

// Add moves the whole process pid (all its threads) into the group. Children it starts from
// then on are born inside the group; children it already has stay where they are.
func (g *Group) Add(pid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return fmt.Errorf("cgroup: add pid %d to %s: the group was removed", pid, g.path)
	}
	if err := writeFile(filepath.Join(g.path, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("cgroup: add pid %d: %w", pid, err)
	}
	return nil
}

// Procs is the pids of the processes in the group.
func (g *Group) Procs() ([]int, error) {
	return procs(g.path)
}

// CPUStat is the group's cpu.stat: how often the quota stopped the group (nr_periods,
// nr_throttled) and for how long (throttled_time in ns on v1, throttled_usec on v2), evidence
// that the quota, not something else, slowed a measurement.
func (g *Group) CPUStat() (map[string]int64, error) {
	b, err := os.ReadFile(filepath.Join(g.path, "cpu.stat"))
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	stat := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				stat[k] = n
			}
		}
	}
	return stat, nil
}

// Remove moves any processes still in the group out (to its parent, or in a delegated subtree to
// this process's own group: see hierarchy.home), where they run on without the quota, and
// removes the group. It is safe to call more than once; an error leaves the
// group registered, for the interrupt handler, and another Remove may succeed.
func (g *Group) Remove() error {
	g.mu.Lock()
	if g.gone {
		g.mu.Unlock()
		return nil
	}
	err := removeDir(g.path, g.h.home)
	g.gone = err == nil
	g.mu.Unlock()
	if err != nil {
		return err
	}
	live.Lock()
	delete(live.groups, g.path)
	live.Unlock()
	return nil
}

// procs reads a group's cgroup.procs.
func procs(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// removeDir empties the group dir into home (its parent where home is "") and removes it. A group already gone counts
// as removed, so that Remove, the interrupt handler and another binary's sweep can race. A
// member that forks while it is moved can leave its child behind, which makes rmdir fail with
// EBUSY; moving again catches the child, for up to a second.
func removeDir(dir, home string) error {
	if home == "" {
		home = filepath.Dir(dir)
	}
	parentProcs := filepath.Join(home, "cgroup.procs")
	deadline := time.Now().Add(time.Second)
	for {
		pids, err := procs(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, pid := range pids {
			// ESRCH: it ended since cgroup.procs was read, and has left the group by itself.
			if err := writeFile(parentProcs, strconv.Itoa(pid)); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("cgroup: move pid %d out of %s: %w", pid, dir, err)
			}
		}
		err = syscall.Rmdir(dir)
		switch {
		case err == nil || errors.Is(err, syscall.ENOENT):
			return nil
		case errors.Is(err, syscall.EBUSY) && time.Now().Before(deadline):
			time.Sleep(10 * time.Millisecond)
		default:
			left, _ := procs(dir)
			return fmt.Errorf("cgroup: remove %s: %w (members: %v)", dir, err, left)
		}
	}
}

// memoryPeakFiles are where a group's peak memory use is kept, in bytes: cgroup v2's memory.peak
// (Linux 5.19 on, where the group has the memory controller) and cgroup v1's
// memory.max_usage_in_bytes (where the hierarchy has the memory controller). The kernel counts
// every page charged to the group, its processes' anonymous memory and the page cache they
// caused alike, and keeps the peak over the group's life.
var memoryPeakFiles = []string{"memory.peak", "memory.max_usage_in_bytes"}

// MemoryPeak is the most memory the group's processes have used together since the group was
// made, in bytes, as the kernel counts it, and the file it was read from; file is "" and the
// error nil where the group keeps no such figure: in a hierarchy without the memory controller
// (this package makes its groups in the one with cpu, on cgroup v1 rarely the memory one's), or
// on a kernel before memory.peak.
func (g *Group) MemoryPeak() (bytes int64, file string, err error) {
	return memoryPeak(g.path)
}

// memoryPeak reads the first of memoryPeakFiles that dir has.
func memoryPeak(dir string) (int64, string, error) {
	for _, f := range memoryPeakFiles {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, "", fmt.Errorf("cgroup: %w", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n < 0 {
			return 0, "", fmt.Errorf("cgroup: %s = %q: want a number of bytes", filepath.Join(dir, f), strings.TrimSpace(string(b)))
		}
		return n, f, nil
	}
	return 0, "", nil
}
