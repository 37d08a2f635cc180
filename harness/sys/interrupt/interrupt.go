// Package interrupt runs the harness's last cleanups when the test binary is interrupted: on
// SIGINT, SIGTERM or SIGHUP (Ctrl-C, a CI runner giving up) every registered function runs, in
// the order registered, and then the signal takes its default course, so the binary still dies
// of it as it would have without the harness. One handler serves every package (harness/sys/proc
// kills its process groups, harness/sys/cgroup removes its cgroups): with a handler each, whichever
// re-raised the signal first would cut the others' cleanup short.
package interrupt

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// signals are the ones that end a test binary that a person or a runner can send politely.
var signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

var state struct {
	sync.Mutex
	hooks    []func()
	watching bool
}

// OnSignal registers f to run when the test binary gets one of the signals. f must not block on
// anything a signal can interrupt midway (it runs while the rest of the binary goes on); it
// should end processes or remove files and return.
func OnSignal(f func()) {
	state.Lock()
	defer state.Unlock()
	state.hooks = append(state.hooks, f)
	if state.watching {
		return
	}
	state.watching = true
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, signals...)
	go func() {
		sig := <-ch
		state.Lock()
		hooks := slices.Clone(state.hooks)
		state.Unlock()
		for _, h := range hooks {
			h()
		}
		signal.Reset(signals...)
		_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
	}()
}
