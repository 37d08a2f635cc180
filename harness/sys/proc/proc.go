// Package proc starts the processes an experiment needs (probes, and later emulators and
// databases) and makes sure they stop: on the test's cleanup, when the test fails or times out,
// and when the test binary is interrupted.
//
// Every process starts in a process group of its own, with a clean environment, and its output
// goes to a log that is written into the test's log only when the test fails. Stop ends the
// whole group (a launcher and the server it started), SIGTERM first and SIGKILL after a grace
// period: it cancels the command's context, exec.Cmd's Cancel sends the group SIGTERM and its
// WaitDelay bounds the wait. Three things make sure nothing outlives the test binary:
//   - Start registers Stop with t.Cleanup;
//   - SIGINT, SIGTERM or SIGHUP to the test binary (Ctrl-C) kills every live group before the
//     binary dies of the signal, as it would have without this package;
//   - the kernel sends SIGTERM to the process if the test binary dies any other way (a test
//     timeout's panic, a crash): Linux's parent-death signal. Other systems have none (see
//     sysproc_other.go): there only the first two hold.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/sys/interrupt"
)

// Spec says what to start and how to know it is ready.
type Spec struct {
	// Name labels the process in logs and errors ("node probe").
	Name string
	// Path and Args are the command.
	Path string
	Args []string
	// Env is the whole environment of the process; see CleanEnv.
	Env []string
	// Dir is the working directory; empty means the test's.
	Dir string
	// Ready is called with each line the process prints on stdout until it returns true; an
	// error stops the start. Nil means the process is ready once started.
	Ready func(line string) (bool, error)
	// ReadyTimeout bounds the wait for readiness; zero means 30 seconds. It never runs past the
	// test's own deadline.
	ReadyTimeout time.Duration
	// Grace is how long Stop waits after SIGTERM before SIGKILL, and how long the process's
	// end waits for a child that outlived it to let go of its stdout and stderr (exec.Cmd's
	// WaitDelay is both); zero means 3 seconds.
	Grace time.Duration
}

// CleanEnv is the environment a process gets: PATH and HOME from the test's environment (a
// launcher must find its runtime, npm its cache) and nothing else but extra, so that no setting
// of the user's shell leaks into a measurement.
func CleanEnv(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	if h := os.Getenv("HOME"); h != "" {
		env = append(env, "HOME="+h)
	}
	return append(env, extra...)
}

// Vars turns a map of variables into "KEY=value" entries for CleanEnv, sorted by key so that a
// process's environment, and its log, read the same from run to run.
func Vars(m map[string]string) []string {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m[k]
	}
	return out
}

// Process is a started process group.
type Process struct {
	spec      Spec
	cmd       *exec.Cmd
	log       syncBuffer
	stdout    []string // every stdout line, for Run; written only by exec's copying goroutine
	readyLine string
	readyDone bool
	exited    chan struct{} // closed when the process has been waited for
	waitErr   error
	cancel    context.CancelFunc // cancels the command's context, which stops the process
	stopOnce  sync.Once
}

// Start starts spec's process, waits until it is ready, and registers its stop with t.Cleanup.
// It fails the test (with the process's log) when the process cannot start, exits or says
// something wrong before it is ready, or is not ready in time.
func Start(t testing.TB, spec Spec) *Process {
	t.Helper()
	return startIn(context.Background(), t, spec)
}

// Launch is Start returning its failure instead of failing the test, for a caller that must not
// call t.Fatalf, such as a stand-in's HTTP handler. The process's stop is registered with
// t.Cleanup either way; on an error it has been stopped already.
func Launch(t testing.TB, spec Spec) (*Process, error) {
	t.Helper()
	p, err := launchIn(context.Background(), t, spec)
	if err != nil {
		if p != nil {
			_ = p.Stop()
		}
		return nil, err
	}
	return p, nil
}

// startIn is Start with the command's context: when ctx is done, the process is stopped as Stop
// stops it, SIGTERM to the group and SIGKILL after the grace period.
func startIn(ctx context.Context, t testing.TB, spec Spec) *Process {
	t.Helper()
	p, err := launchIn(ctx, t, spec)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return p
}

// launchIn is startIn returning its failure; the process, when it started, is returned with it
// and stops at t's end.
func launchIn(ctx context.Context, t testing.TB, spec Spec) (*Process, error) {
	t.Helper()
	p, err := start(ctx, spec, deadline(t, spec.ReadyTimeout))
	if p != nil {
		t.Cleanup(func() {
			if err := p.Stop(); err != nil {
				t.Errorf("stop %s: %v", spec.Name, err)
			}
			if t.Failed() {
				t.Logf("%s (pid %d) log:\n%s", spec.Name, p.Pid(), p.Log())
			}
		})
	}
	if err != nil {
		return p, fmt.Errorf("start %s: %w", spec.Name, err)
	}
	return p, nil
}

// Run starts spec's process under the same supervision as Start (its own group, stopped on
// cleanup and on Ctrl-C), waits for it to exit, and returns the lines it printed on stdout. The
// process is killed and an error returned when it runs longer than timeout (zero means 30
// seconds, never past the test's deadline), or exits with an error; spec.Ready is not used.
// Use it for programs that measure something and exit.
func Run(t testing.TB, spec Spec, timeout time.Duration) ([]string, error) {
	t.Helper()
	spec.Ready = nil
	by := deadline(t, timeout)
	limit := time.Until(by)
	ctx, cancel := context.WithDeadline(context.Background(), by)
	defer cancel()
	p := startIn(ctx, t, spec)
	<-p.exited
	if ctx.Err() != nil {
		_ = p.Stop() // what is left of the group, and the bookkeeping
		return p.stdout, fmt.Errorf("%s did not exit within %v; killed", spec.Name, limit.Round(time.Millisecond))
	}
	if p.waitErr != nil {
		return p.stdout, fmt.Errorf("%s: %v; its stderr:\n%s", spec.Name, p.waitErr, p.stderrTail(20))
	}
	return p.stdout, nil
}

// stderrTail is the last n stderr lines of the log, for an error message.
func (p *Process) stderrTail(n int) string {
	var lines []string
	for _, l := range strings.Split(p.Log(), "\n") {
		if s, ok := strings.CutPrefix(l, "stderr: "); ok {
			lines = append(lines, s)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func deadline(t testing.TB, timeout time.Duration) time.Time {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	d := time.Now().Add(timeout)
	if td, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := td.Deadline(); ok && dl.Before(d) {
			d = dl
		}
	}
	return d
}

func start(ctx context.Context, spec Spec, readyBy time.Time) (*Process, error) {
	if spec.Path == "" {
		return nil, errors.New("no command")
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &Process{spec: spec, exited: make(chan struct{}), cancel: cancel}
	cmd := exec.CommandContext(ctx, spec.Path, spec.Args...)
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = CleanEnv()
	}
	cmd.Dir = spec.Dir
	cmd.SysProcAttr = sysProcAttr()
	ready := make(chan error, 1)
	cmd.Stdout = &lineWriter{line: func(l string) { p.onStdout(l, ready) }}
	cmd.Stderr = &lineWriter{line: func(l string) { p.log.WriteString("stderr: " + l + "\n") }}
	// When ctx is done (Stop, or Run's deadline) the whole group gets SIGTERM, and the leader
	// SIGKILL if it has not ended a grace period later; Stop then kills what is left of the
	// group. The same delay keeps Wait from hanging on a child that outlived its parent and
	// keeps stdout open.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = spec.grace()
	p.cmd = cmd

	live.Lock() // held across the fork so a signal cannot slip between start and tracking
	watchSignals()
	err := cmd.Start()
	if err == nil {
		live.groups[cmd.Process.Pid] = spec.Name
	}
	live.Unlock()
	if err != nil {
		cancel()
		return nil, err
	}

	if spec.Ready == nil {
		ready <- nil
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()

	wait := time.Until(readyBy)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-ready:
		return p, err
	case <-p.exited:
		// Wait returns only after stdout is copied, so a ready line the process printed
		// just before it exited is in the channel by now.
		select {
		case err := <-ready:
			return p, err
		default:
		}
		return p, fmt.Errorf("exited before it was ready: %v", p.waitErr)
	case <-timer.C:
		return p, fmt.Errorf("not ready within %v", wait.Round(time.Millisecond))
	}
}

// onStdout logs a stdout line and, until the process is ready, asks spec.Ready about it.
// Lines come one at a time from exec's copying goroutine, so readiness needs no lock.
func (p *Process) onStdout(line string, ready chan<- error) {
	p.log.WriteString("stdout: " + line + "\n")
	p.stdout = append(p.stdout, line)
	if p.readyDone || p.spec.Ready == nil {
		return
	}
	ok, err := p.spec.Ready(line)
	switch {
	case err != nil:
		p.readyDone = true
		ready <- err
	case ok:
		p.readyDone = true
		p.readyLine = line
		ready <- nil
	}
}

// ReadyLine is the stdout line that made the process ready.
func (p *Process) ReadyLine() string { return p.readyLine }

// Pid is the process's id, which is also its process group's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Log is everything the process printed so far, each line marked stdout: or stderr:.
func (p *Process) Log() string { return p.log.String() }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Stop ends the process's whole group: SIGTERM, then SIGKILL after the grace period, and a last
// SIGKILL to the group for any child that outlived its parent. It is safe to call more than once.
func (p *Process) Stop() error {
	var err error
	p.stopOnce.Do(func() {
		pgid := p.cmd.Process.Pid
		p.cancel() // Cancel sends the group SIGTERM; WaitDelay later, the leader gets SIGKILL
		<-p.exited
		if p.killedAfterGrace() {
			err = fmt.Errorf("did not end within %v of SIGTERM; killed", p.spec.grace())
		}
		// The group outlives its leader while any member is alive, so its id cannot have been
		// reused: this reaches only what this Process started.
		if kerr := syscall.Kill(-pgid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) && err == nil {
			err = kerr
		}
		live.Lock()
		delete(live.groups, pgid)
		live.Unlock()
	})
	return err
}

// killedAfterGrace says whether the leader died of SIGKILL, which, once the context has sent
// SIGTERM, is what exec sends when WaitDelay has passed. Call it only after exited is closed.
func (p *Process) killedAfterGrace() bool {
	if p.cmd.ProcessState == nil {
		return false // never waited for: wait4 itself failed
	}
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// grace is Grace, or its default.
func (s Spec) grace() time.Duration {
	if s.Grace <= 0 {
		return 3 * time.Second
	}
	return s.Grace
}

// live tracks the process groups started and not yet stopped, for the signal handler.
var live = struct {
	sync.Mutex
	groups   map[int]string
	watching bool
}{groups: map[int]string{}}

// watchSignals registers, once, the interrupt hook that kills every live group when the test
// binary gets SIGINT, SIGTERM or SIGHUP (see harness/sys/interrupt). live must be held.
func watchSignals() {
	if live.watching {
		return
	}
	live.watching = true
	interrupt.OnSignal(func() {
		live.Lock()
		defer live.Unlock()
		for pgid := range live.groups {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
}

// LiveGroups returns the ids of the process groups started and not yet stopped, for tests that
// check nothing is left behind.
func LiveGroups() []int {
	live.Lock()
	defer live.Unlock()
	return slices.Collect(maps.Keys(live.groups))
}

// syncBuffer is a bytes.Buffer safe for the stdout and stderr goroutines at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) WriteString(str string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(str)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lineWriter calls line with each whole line written to it (without the newline).
type lineWriter struct {
	line    func(string)
	partial []byte
}

func (lw *lineWriter) Write(b []byte) (int, error) {
	lw.partial = append(lw.partial, b...)
	for {
		i := bytes.IndexByte(lw.partial, '\n')
		if i < 0 {
			break
		}
		lw.line(string(lw.partial[:i]))
		lw.partial = lw.partial[i+1:]
	}
	return len(b), nil
}
