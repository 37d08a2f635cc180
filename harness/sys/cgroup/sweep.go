package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/serverless-claims/claims/harness/sys/interrupt"
)

// live tracks the groups made and not yet removed, for the interrupt handler and Stale.
var live = struct {
	sync.Mutex
	groups   map[string]string // by path: where its remaining members go when it is removed (removeDir)
	next     int               // the last n used in a group's name
	watching bool
}{groups: map[string]string{}}

// watchSignals registers, once, the interrupt hook that removes every live group when the test
// binary gets SIGINT, SIGTERM or SIGHUP (see harness/sys/interrupt). live must be held.
func watchSignals() {
	if live.watching {
		return
	}
	live.watching = true
	interrupt.OnSignal(func() {
		live.Lock()
		defer live.Unlock()
		// removeDir, not Remove: Remove may hold a group's lock while it waits for live.
		for path, home := range live.groups {
			if removeDir(path, home) == nil {
				delete(live.groups, path)
			}
		}
	})
}

// Live is the paths of the groups this process made and has not removed yet.
func Live() []string {
	live.Lock()
	defer live.Unlock()
	return slices.Sorted(maps.Keys(live.groups))
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
	stale, _, err := staleIn(h.parent)
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
		_, isLive := live.groups[path]
		switch {
		case !ok:
			stale = append(stale, path)
		case pid == os.Getpid() && !isLive, pid != os.Getpid() && !running(pid):
			stale = append(stale, path)
			sweepable = append(sweepable, path)
		}
	}
	return stale, sweepable, nil
}

// sweep removes the stale groups under root that say their owner, and returns a line for the
// test's log about each.
func sweep(h hierarchy) []string {
	live.Lock()
	defer live.Unlock()
	_, sweepable, err := staleIn(h.parent)
	if err != nil {
		return []string{fmt.Sprintf("cgroup: looking for stale groups: %v", err)}
	}
	var msgs []string
	for _, path := range sweepable {
		if err := removeDir(path, h.home); err != nil {
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
