package lambdaapi

// Freezing an environment (Options.KeepEnvironmentsOnUpdate): Lambda freezes an execution
// environment between invocations, so an idle one takes no CPU, and thaws it for the next. Here
// every process of the environment (the emulator and the runtime it started, which the emulator
// puts in a process group of its own) is stopped with SIGSTOP and continued with SIGCONT.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/harness/sys/interrupt"
	"github.com/serverless-claims/claims/harness/sys/proc"
)

// emulatorAddrFlag is the emulator's flag for its invoke address, which names its process.
const emulatorAddrFlag = "--runtime-interface-emulator-address"

// stopWait bounds the wait for a stopped process to show as stopped.
const stopWait = 2 * time.Second

// stopped are the processes frozen and not yet thawed, of every server in this binary: when the
// binary is interrupted they are killed, since a stopped process is delivered no SIGTERM, and
// its emulator's group, which harness/sys/proc kills, does not hold the runtime.
var stopped = struct {
	sync.Mutex
	pids    map[int]bool
	hooking sync.Once
}{pids: map[int]bool{}}

// freeze stops every process of f's environment and records them in f.frozen. Call with envMu
// held.
func (s *Server) freeze(f *function) error {
	stopped.hooking.Do(func() {
		interrupt.OnSignal(func() {
			stopped.Lock()
			defer stopped.Unlock()
			for pid := range stopped.pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	})
	rie, err := emulatorPid(f.env.Addr)
	if err != nil {
		return err
	}
	stopped.Lock()
	defer stopped.Unlock()
	// The emulator first, so it starts nothing more; then its descendants, until no new one.
	pids := []int{}
	for next := []int{rie}; len(next) > 0; {
		for _, pid := range next {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil && !errors.Is(err, syscall.ESRCH) {
				return errors.Join(fmt.Errorf("SIGSTOP to pid %d: %w", pid, err), s.continueAll(pids))
			}
			pids = append(pids, pid)
			stopped.pids[pid] = true
		}
		next = slices.DeleteFunc(proc.Descendants(rie), func(p int) bool { return slices.Contains(pids, p) })
	}
	f.frozen = pids
	// Frozen means taking no CPU from now on, not once the signal has landed.
	deadline := time.Now().Add(stopWait)
	for _, pid := range pids {
		for {
			state, ok := processState(pid)
			if !ok || state == "T" || state == "t" || state == "Z" {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("pid %d is in state %s %v after SIGSTOP; want stopped (T)", pid, state, stopWait)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// thaw continues the processes of f's environment, if it is frozen. Call with envMu held.
func (s *Server) thaw(f *function) {
	if f.frozen == nil {
		return
	}
	stopped.Lock()
	err := s.continueAll(f.frozen)
	stopped.Unlock()
	if err != nil {
		s.t.Logf("lambdaapi: thawing %s's environment: %v", f.name, err)
	}
	f.frozen = nil
}

// continueAll sends each of pids SIGCONT, its descendants before the emulator, and forgets them.
// Call with stopped held.
func (s *Server) continueAll(pids []int) error {
	var errs []error
	for _, pid := range slices.Backward(pids) {
		delete(stopped.pids, pid)
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("SIGCONT to pid %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

// emulatorPid finds the emulator serving invokes on addr among this process's descendants, by
// its command line (harness/lambda/lambdalocal starts it with that address, a port of its own).
func emulatorPid(addr string) (int, error) {
	for _, pid := range proc.Descendants(os.Getpid()) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		if i := slices.Index(args, emulatorAddrFlag); i >= 0 && i+1 < len(args) && args[i+1] == addr {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no emulator process with %s %s among this process's descendants", emulatorAddrFlag, addr)
}

// processState is pid's state letter in /proc/<pid>/stat ("R", "S", "T" for stopped...); ok is
// false once it is gone.
func processState(pid int) (state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// The command name in parentheses may hold spaces; the fields after it do not.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) == 0 {
		return "", false
	}
	return fields[0], true
}
