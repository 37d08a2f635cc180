package lambdalocal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/serverless-claims/claims/harness/sys/proc"
)

// Lambda's REPORT prints Max Memory Used, "the amount of memory used by the function", in whole
// MB; the emulator prints Memory Size there whatever the function used. PeakMemory measures it
// instead, for the environment as a whole: the emulator (which stands for Lambda's own process
// in the environment, the one that serves the Runtime API) and every process under it.

// MiB is the MB of Lambda's memory figures: a function's memory size is in MiB
// (AWS_LAMBDA_FUNCTION_MEMORY_SIZE 128 is 128 × 2^20 bytes to the runtime's own allocators).
const MiB = 1 << 20

// Memory is an environment's peak memory use, as far as it can be measured.
type Memory struct {
	// Bytes is the peak, in bytes.
	Bytes int64
	// Source says what was measured, for a result or a log line: the cgroup's file, or the
	// peak resident sets of how many processes.
	Source string
}

// MB is Bytes in whole MiB, rounded up: no source says how Lambda rounds, and rounding up never
// prints less than was used.
func (m Memory) MB() int { return int((m.Bytes + MiB - 1) / MiB) }

// memoryPeak is the largest Memory an environment has reported, so that its figure never falls
// when a process of it exits and takes its resident set's peak with it.
type memoryPeak struct {
	mu  sync.Mutex
	max Memory
}

// PeakMemory is the most memory the environment has used so far. Where it runs in a cgroup that
// keeps a memory peak (cgroup.Group.MemoryPeak: v2's memory.peak, v1's
// memory.max_usage_in_bytes), that is the figure: every page charged to the environment's
// processes, page cache they caused included, over the group's life. Elsewhere (no cgroup, as for
// a user who cannot make one, or a group in a hierarchy without the memory controller, as on a
// cgroup v1 machine) it is the sum of the peak resident sets (VmHWM in /proc/<pid>/status) of
// the emulator and its descendants alive now: a page two processes share counts twice and two
// peaks at different times count as one, so it errs high, and a process that has exited is no
// longer counted, though the figure never falls below one reported before. An error means
// neither could be read; the caller must then print no figure rather than a made-up one.
func (e *Environment) PeakMemory() (Memory, error) {
	m, err := e.measureMemory()
	if err != nil {
		return Memory{}, err
	}
	e.peak.mu.Lock()
	defer e.peak.mu.Unlock()
	if m.Bytes > e.peak.max.Bytes {
		e.peak.max = m
	}
	return e.peak.max, nil
}

// measureMemory reads the environment's memory peak now: the cgroup's where it keeps one, else
// its processes' resident sets.
func (e *Environment) measureMemory() (Memory, error) {
	if e.Group != nil {
		n, file, err := e.Group.MemoryPeak()
		if err != nil {
			return Memory{}, err
		}
		if file != "" {
			return Memory{Bytes: n, Source: "cgroup " + file}, nil
		}
	}
	root := e.proc.Pid()
	pids := append([]int{root}, proc.Descendants(root)...)
	var sum int64
	counted := 0
	for _, pid := range pids {
		n, err := residentPeak(pid)
		if errors.Is(err, os.ErrNotExist) {
			continue // it ended since the list was made
		}
		if err != nil {
			return Memory{}, err
		}
		sum += n
		counted++
	}
	if counted == 0 {
		return Memory{}, fmt.Errorf("no process of the environment (pid %d and its descendants) could be read in /proc", root)
	}
	return Memory{Bytes: sum, Source: fmt.Sprintf("VmHWM of %d processes (the emulator and its descendants)", counted)}, nil
}

// residentPeak is a process's peak resident set (VmHWM), in bytes; 0 for a process that has
// none (a zombie, a kernel thread).
func residentPeak(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmHWM(b)
}

// parseVmHWM reads VmHWM ("VmHWM:	   12345 kB") out of a /proc/<pid>/status; 0 without one.
func parseVmHWM(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("VmHWM %q: want <number> kB", rest)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("VmHWM %q: want <number> kB", rest)
		}
		return kb << 10, nil
	}
	return 0, sc.Err()
}
