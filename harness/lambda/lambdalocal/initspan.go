package lambdalocal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Lambda's Init phase is the runtime's start ("Bootstrap the runtime (Runtime init)") and its
// static code, and "ends when the runtime and all extensions signal that they are ready by
// sending a Next API request" (docs/fidelity.md has the source). The emulator's own Init
// Duration stops its clock before the runtime has even started, so the harness keeps its own:
// the wrapper bootstrap (initburst.go) tells the harness through a FIFO that it is about to exec
// the runtime and waits for the harness's answer, so that the start is stamped before one
// instruction of the runtime runs; the Runtime API proxy stamps the runtime's first GET
// .../runtime/invocation/next. Both stamps are this process's clock, so the span is an ordering
// of two events the harness saw, not a figure read from the emulator.

//
// The emulator's Duration of a cold invoke runs from the invoke's arrival, so it holds the whole
// Init as well; Lambda's Duration is "the amount of time that your function's handler method
// spent processing the event". The proxy stamps that too: from the emulator's answer to the
// runtime's request for an event (the event delivered, Lambda-Runtime-Aws-Request-Id naming it)
// to the runtime's POST of its response or error for that request.

// initSpan is the Init of the environment's runtime, and the handler's time on each event, as the
// harness saw them.
type initSpan struct {
	mu      sync.Mutex
	started time.Time // the runtime's latest start; zero before the first
	ended   time.Time // its first request for an event since; zero until then
	taken   bool      // TakeInit has returned this span
	// delivered and answered are, by request ID, when the event reached the runtime and when
	// the runtime posted its outcome; an entry goes once Handled has read it.
	delivered, answered map[string]time.Time
}

// deliver records that the event of request id reached the runtime at now.
func (s *initSpan) deliver(id string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.delivered == nil {
		s.delivered, s.answered = map[string]time.Time{}, map[string]time.Time{}
	}
	s.delivered[id] = now
}

// answer records that the runtime posted the outcome of request id at now; only the first post
// counts.
func (s *initSpan) answer(id string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.delivered[id]; ok {
		if _, done := s.answered[id]; !done {
			s.answered[id] = now
		}
	}
}

// handled is the handler's time on request id, once, where both ends were seen.
func (s *initSpan) handled(id string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, ok1 := s.delivered[id]
	to, ok2 := s.answered[id]
	delete(s.delivered, id)
	delete(s.answered, id)
	if !ok1 || !ok2 {
		return 0, false
	}
	return to.Sub(from), true
}

// start records that a runtime is starting now: a new Init begins (the emulator starts the
// runtime again after one that exited).
func (s *initSpan) start(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started, s.ended, s.taken = now, time.Time{}, false
}

// next records a request for an event at now; only the first after a start ends Init.
func (s *initSpan) next(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started.IsZero() && s.ended.IsZero() {
		s.ended = now
	}
}

// take returns the Init that ended and was not taken yet, and marks it taken.
func (s *initSpan) take() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started.IsZero() || s.ended.IsZero() || s.taken {
		return 0, false
	}
	s.taken = true
	return s.ended.Sub(s.started), true
}

// startSignal is the pair of FIFOs through which the wrapper bootstrap says it is about to exec
// the runtime (one byte on started) and waits for the harness to have stamped it (one line on
// resume). The harness holds both open for reading and writing, so that neither side's open
// blocks, and a Close ends its reader.
type startSignal struct {
	startedPath, resumePath string
	started, resume         *os.File
}

// watchStarts makes the FIFOs in dir and stamps into span every start the wrapper signals, until
// the test ends.
func watchStarts(t testing.TB, dir string, span *initSpan) (*startSignal, error) {
	s := &startSignal{startedPath: filepath.Join(dir, "runtime-started"), resumePath: filepath.Join(dir, "runtime-resume")}
	for _, p := range []string{s.startedPath, s.resumePath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, fmt.Errorf("mkfifo %s: %w", p, err)
		}
	}
	var err error
	if s.started, err = os.OpenFile(s.startedPath, os.O_RDWR, 0); err != nil {
		return nil, err
	}
	if s.resume, err = os.OpenFile(s.resumePath, os.O_RDWR, 0); err != nil {
		return nil, errors.Join(err, s.started.Close())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 16)
		for {
			n, err := s.started.Read(buf)
			if err != nil {
				return // closed at the test's end
			}
			for range n {
				span.start(time.Now())
				if _, err := s.resume.Write([]byte("\n")); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = s.started.Close()
		_ = s.resume.Close()
		<-done
	})
	return s, nil
}
