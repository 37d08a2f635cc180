// Package cgroup runs processes under a CPU quota, so that a cold-start experiment can give a
// Lambda function's process the share of one CPU that its memory size gets on Lambda (see
// lambdalocal.ShareForMemory; claim T5), and makes sure the quota's cgroup is gone afterwards.
//
// New makes a cgroup named claims-<name>-<pid>-<n> directly under the root of the hierarchy that
// has the cpu controller, found in /proc/self/mountinfo, and sets its CPU bandwidth (the CFS
// quota): cpu.max on cgroup v2 when the v2 hierarchy has the cpu controller, else
// cpu.cfs_period_us and cpu.cfs_quota_us on cgroup v1 (a controller belongs to one hierarchy at
// a time, so at most one of the two can have it). The group also gets the largest CPU weight,
// so that other work on the machine does not take its share (see quotaSettings). Add moves a
// whole process into the group; the children it starts later are born inside it.
//
// A cgroup outlives the process that made it, so removal is taken care of three ways. Removing
// first moves any remaining members back to the parent group, because the kernel refuses to
// remove a cgroup that has members; they go on running, without the quota.
//   - New registers Remove with t.Cleanup.
//   - SIGINT, SIGTERM or SIGHUP to the test binary (Ctrl-C) removes every live group before the
//     binary dies of the signal, as it would have without this package, through the one
//     handler harness/interrupt keeps for this package and harness/proc alike.
//   - A test binary that dies any other way (SIGKILL, a test timeout's panic, which runs no
//     cleanup) leaves its groups behind. Stale lists them, and the next New removes every
//     claims- group whose owner, the pid in its name, no longer runs. This assumes that every
//     process using the hierarchy sees the same pids (one pid namespace), which holds unless a
//     container shares the host's cgroup filesystem; a reused pid only delays the sweep.
//
// Making a cgroup needs root (or a delegated cgroup v2 subtree). Available says whether this
// machine can and, when it cannot, exactly why, for t.Skip.
package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/interrupt"
)

// DefaultPeriod is the CFS period a zero Quota.Period stands for: the kernel's own default. The
// quota is enforced per period, so a shorter one throttles in finer steps and a longer one lets
// a process run longer before it is stopped.
const DefaultPeriod = 100 * time.Millisecond

// The kernel refuses CFS periods outside this range with EINVAL.
const (
	minPeriod = time.Millisecond
	maxPeriod = time.Second
)

// MinQuota is the smallest CFS quota the kernel takes (a period's Share × Period); below it New
// and SetShare get the kernel's EINVAL. Callers that choose a period for a small share can check
// it first.
const MinQuota = time.Millisecond

// prefix starts the name of every group this package makes; Stale and the sweep in New look
// only at directories named so.
const prefix = "claims-"

// Quota is the CPU a group's processes may use together.
type Quota struct {
	// Share is the number of CPUs' worth of time the group gets per period: 0.0724 is 7.24% of
	// one CPU, 2 is two whole CPUs. It must be more than 0 and at most the CPUs this process may
	// run on (runtime.NumCPU): a quota above that could never be reached. The kernel also refuses a
	// quota (Share × Period) below 1ms, so small shares need a long enough period (128 MB's
	// share needs 14ms or more).
	Share float64
	// Period is the CFS period over which the quota is enforced; zero means DefaultPeriod. The
	// kernel takes whole microseconds from 1ms to 1s.
	Period time.Duration
}

// normalize fills in the default period and checks q against the kernel's limits, so that a bad
// setting is reported by its field's name rather than as the kernel's bare "invalid argument".
func (q Quota) normalize() (Quota, error) {
	if q.Period == 0 {
		q.Period = DefaultPeriod
	}
	if q.Period < minPeriod || q.Period > maxPeriod || q.Period%time.Microsecond != 0 {
		return q, fmt.Errorf("cgroup: Quota.Period = %v: want whole microseconds from %v to %v (the kernel's limits), or 0 for %v",
			q.Period, minPeriod, maxPeriod, DefaultPeriod)
	}
	if cpus := runtime.NumCPU(); !(q.Share > 0) || q.Share > float64(cpus) {
		return q, fmt.Errorf("cgroup: Quota.Share = %g: want more than 0 and at most %d (the CPUs this process may use)", q.Share, cpus)
	}
	return q, nil
}

// micros is the quota and the period in the kernel's unit.
func (q Quota) micros() (quota, period int64) {
	period = q.Period.Microseconds()
	return int64(math.Round(q.Share * float64(period))), period
}

// setting is one cgroup file and the value written to it.
type setting struct{ file, value string }

// The largest CPU weight each version takes: cpu.shares on v1 (the default is 1024), cpu.weight
// on v2 (the default is 100).
const (
	maxSharesV1 = 262144
	maxWeightV2 = 10000
)

// quotaSettings is what sets q in a group of the given cgroup version, in the order to write it:
// on v1 the period goes first, while the new group's quota is still unlimited, because the
// kernel checks each write against the other file's current value.
//
// The group also gets the largest CPU weight. The quota is only a ceiling: on a machine busy
// with other work the group's processes would get less than their share, by as much as the
// other work takes, and a measurement would depend on what else runs. With the largest weight
// the scheduler serves the group first, up to its quota, so that the share is also, as far as
// the kernel can make it, a floor: the emulated function gets its share whatever else runs. The
// quota bounds what the weight can take from the rest of the machine.
func quotaSettings(version int, q Quota) []setting {
	quota, period := q.micros()
	if version == 2 {
		return []setting{
			{"cpu.max", fmt.Sprintf("%d %d", quota, period)},
			{"cpu.weight", strconv.Itoa(maxWeightV2)},
		}
	}
	return []setting{
		{"cpu.cfs_period_us", strconv.FormatInt(period, 10)},
		{"cpu.cfs_quota_us", strconv.FormatInt(quota, 10)},
		{"cpu.shares", strconv.Itoa(maxSharesV1)},
	}
}

// describedFiles are the files Describe reports, in its order.
func describedFiles(version int) []string {
	if version == 2 {
		return []string{"cpu.max", "cpu.weight"}
	}
	return []string{"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.shares"}
}

// hierarchy is the mounted cgroup hierarchy that has the cpu controller.
type hierarchy struct {
	version int    // 1 or 2
	root    string // where it is mounted: groups are made directly under it
}

func (h hierarchy) String() string { return fmt.Sprintf("v%d %s", h.version, h.root) }

// mount is the part of a /proc/self/mountinfo line this package needs.
type mount struct {
	point, fsType string
	superOpts     []string
}

// parseMountinfo reads the mounts in a mountinfo file: "id parent major:minor root point
// options [optional fields...] - fstype source super-options".
func parseMountinfo(data []byte) []mount {
	var mounts []mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || len(fields) < sep+4 {
			continue
		}
		mounts = append(mounts, mount{
			point:     unescapeMountinfo(fields[4]),
			fsType:    fields[sep+1],
			superOpts: strings.Split(fields[sep+3], ","),
		})
	}
	return mounts
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) the kernel writes in paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// words reads a file of space-separated words, such as cgroup.controllers.
func words(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	return strings.Fields(string(b)), err
}

func has(list []string, word string) bool {
	for _, w := range list {
		if w == word {
			return true
		}
	}
	return false
}

// detect picks the hierarchy with the cpu controller out of mountinfo: v2 where its
// cgroup.controllers lists cpu, else the v1 hierarchy mounted with the cpu option. When there is
// none, the error lists what there is, so that a skipped test says what is missing.
func detect(mountinfo []byte) (hierarchy, error) {
	var v1 *hierarchy
	var seen []string
	for _, m := range parseMountinfo(mountinfo) {
		switch m.fsType {
		case "cgroup2":
			ctrls, err := words(filepath.Join(m.point, "cgroup.controllers"))
			if err == nil && has(ctrls, "cpu") {
				return hierarchy{2, m.point}, nil
			}
			if err != nil {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s: %v", m.point, err))
			} else {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s has controllers [%s], no cpu", m.point, strings.Join(ctrls, " ")))
			}
		case "cgroup":
			if v1 == nil && has(m.superOpts, "cpu") {
				v1 = &hierarchy{1, m.point}
			}
		}
	}
	if v1 != nil {
		return *v1, nil
	}
	if len(seen) == 0 {
		return hierarchy{}, errors.New("cgroup: no cgroup filesystem with the cpu controller is mounted (none in /proc/self/mountinfo)")
	}
	return hierarchy{}, fmt.Errorf("cgroup: no cgroup hierarchy has the cpu controller: %s; no cgroup v1 hierarchy is mounted with cpu",
		strings.Join(seen, "; "))
}

// usable checks that groups with a CPU quota can be made in h.
func usable(h hierarchy) error {
	if h.version == 1 {
		if _, err := os.Stat(filepath.Join(h.root, "cpu.cfs_quota_us")); err != nil {
			return fmt.Errorf("cgroup: %s has no cpu.cfs_quota_us: the kernel lacks CFS bandwidth control (CONFIG_CFS_BANDWIDTH): %v", h, err)
		}
	}
	const wOK = 2 // access(2)'s W_OK; it also reports a read-only mount (EROFS)
	if err := syscall.Access(h.root, wOK); err != nil {
		return fmt.Errorf("cgroup: %s is not writable by euid %d: %v; making a cgroup needs root or a delegated cgroup v2 subtree",
			h, os.Geteuid(), err)
	}
	return nil
}

// find is the hierarchy of this machine, without checking that groups can be made in it.
func find() (hierarchy, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return hierarchy{}, fmt.Errorf("cgroup: %v", err)
	}
	return detect(mi)
}

// Available says which cgroup hierarchy New uses ("v1 /sys/fs/cgroup/cpu", "v2
// /sys/fs/cgroup") or, as the error, exactly why no group with a CPU quota can be made here (no
// cpu controller mounted, no CFS bandwidth control in the kernel, not writable), for t.Skip.
func Available() (string, error) {
	h, err := find()
	if err == nil {
		err = usable(h)
	}
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

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
	if err == nil {
		err = usable(h)
	}
	if err != nil {
		return nil, err
	}
	for _, msg := range sweep(h.root) {
		t.Log(msg)
	}
	if h.version == 2 {
		if err := enableCPU(h.root); err != nil {
			return nil, err
		}
	}

	g := &Group{h: h, period: q.Period}
	live.Lock() // held from mkdir to registration so that an interrupt cannot miss the group
	watchSignals()
	live.next++
	g.path = filepath.Join(h.root, fmt.Sprintf("%s%s-%d-%d", prefix, name, os.Getpid(), live.next))
	err = os.Mkdir(g.path, 0o755)
	if err == nil {
		live.groups[g.path] = true
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

// enableCPU makes the cpu controller available to the children of a v2 root (writing +cpu to
// its cgroup.subtree_control), as systemd usually has already. It is left enabled: other
// groups may rely on it.
func enableCPU(root string) error {
	file := filepath.Join(root, "cgroup.subtree_control")
	ctrls, err := words(file)
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	if has(ctrls, "cpu") {
		return nil
	}
	if err := writeFile(file, "+cpu"); err != nil {
		return fmt.Errorf("cgroup: enable the cpu controller for the children of %s: %w", root, err)
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

// Remove moves any processes still in the group back to its parent, where they run on without
// the quota, and removes the group. It is safe to call more than once; an error leaves the
// group registered, for the interrupt handler, and another Remove may succeed.
func (g *Group) Remove() error {
	g.mu.Lock()
	if g.gone {
		g.mu.Unlock()
		return nil
	}
	err := removeDir(g.path)
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

// removeDir empties the group dir into its parent and removes it. A group already gone counts
// as removed, so that Remove, the interrupt handler and another binary's sweep can race. A
// member that forks while it is moved can leave its child behind, which makes rmdir fail with
// EBUSY; moving again catches the child, for up to a second.
func removeDir(dir string) error {
	parentProcs := filepath.Join(filepath.Dir(dir), "cgroup.procs")
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

// live tracks the groups made and not yet removed, for the interrupt handler and Stale.
var live = struct {
	sync.Mutex
	groups   map[string]bool // by path
	next     int             // the last n used in a group's name
	watching bool
}{groups: map[string]bool{}}

// watchSignals registers, once, the interrupt hook that removes every live group when the test
// binary gets SIGINT, SIGTERM or SIGHUP (see harness/interrupt). live must be held.
func watchSignals() {
	if live.watching {
		return
	}
	live.watching = true
	interrupt.OnSignal(func() {
		live.Lock()
		defer live.Unlock()
		// removeDir, not Remove: Remove may hold a group's lock while it waits for live.
		for path := range live.groups {
			if removeDir(path) == nil {
				delete(live.groups, path)
			}
		}
	})
}

// Live is the paths of the groups this process made and has not removed yet.
func Live() []string {
	live.Lock()
	defer live.Unlock()
	paths := make([]string, 0, len(live.groups))
	for p := range live.groups {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Stale is the paths of the claims- groups left behind: those whose owner (the pid in the name)
// no longer runs, those of this process that it no longer tracks (a Remove that failed, or a
// pid reused), and any claims- directory whose name does not say its owner. The groups of other
// test binaries that still run are theirs, and not listed. A test can check with it that
// nothing is left; New removes all but the last kind.
func Stale() ([]string, error) {
	h, err := find()
	if err != nil {
		return nil, err
	}
	live.Lock()
	defer live.Unlock()
	stale, _, err := staleIn(h.root)
	return stale, err
}

// staleIn lists the stale groups under root, and those of them that may be swept. live must be
// held, so that a group being made or removed by this process is not taken for stale.
func staleIn(root string) (stale, sweepable []string, err error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, fmt.Errorf("cgroup: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(root, e.Name())
		pid, ok := owner(e.Name())
		switch {
		case !ok:
			stale = append(stale, path)
		case pid == os.Getpid() && !live.groups[path], pid != os.Getpid() && !running(pid):
			stale = append(stale, path)
			sweepable = append(sweepable, path)
		}
	}
	return stale, sweepable, nil
}

// sweep removes the stale groups under root that say their owner, and returns a line for the
// test's log about each.
func sweep(root string) []string {
	live.Lock()
	defer live.Unlock()
	_, sweepable, err := staleIn(root)
	if err != nil {
		return []string{fmt.Sprintf("cgroup: looking for stale groups: %v", err)}
	}
	var msgs []string
	for _, path := range sweepable {
		if err := removeDir(path); err != nil {
			msgs = append(msgs, fmt.Sprintf("cgroup: stale group left in place: %v", err))
		} else {
			msgs = append(msgs, "cgroup: removed stale group "+path+" (its owner no longer runs)")
		}
	}
	return msgs
}

// owner is the pid in a group's name claims-<name>-<pid>-<n>; name may itself contain '-'.
func owner(base string) (int, bool) {
	parts := strings.Split(strings.TrimPrefix(base, prefix), "-")
	if len(parts) < 3 || parts[0] == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if _, nerr := strconv.Atoi(parts[len(parts)-1]); err != nil || nerr != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// running reports whether pid is a process that has not ended; a zombie (a SIGKILLed test
// binary its parent has not waited for yet) has ended.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// Without /proc, ask the kernel; EPERM means it exists.
		return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
