package lambdaapi

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/standin/managedruntime"
)

// later runs f in the background, unless the test is over.
func (s *Server) later(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.ctx.Err() == nil {
			f()
		}
	}()
}

// prepare starts f's environment for configuration gen and then marks the create or update
// done, as Lambda does once the function is ready; a start that fails marks it failed. With
// keep, an environment of f that runs already goes on serving (the update does not retire it).
func (s *Server) prepare(f *function, gen int, keep bool) {
	s.envMu.Lock()
	var err error
	if !keep || f.env == nil {
		err = s.startEnv(f) // a kept environment stays as it is, running or frozen
	}
	s.envMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.gen != gen || f.deleted {
		return // changed again meanwhile: the later change marks itself
	}
	if f.cfg.State == "Pending" {
		f.cfg.State = "Active"
		if err != nil {
			f.cfg.State, f.cfg.StateReasonCode, f.cfg.StateReason = "Failed", "InternalError", err.Error()
		}
		return
	}
	f.cfg.LastUpdateStatus = "Successful"
	if err != nil {
		f.cfg.LastUpdateStatus = "Failed"
	}
}

// startEnv ends f's environment, if it has one, makes room (displace) and starts a fresh one
// for f, returning one CFS period after the emulator listens. Call with envMu held.
func (s *Server) startEnv(f *function) error {
	s.endEnv(f)
	s.displace()
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("the stand-in is stopping: %w", err)
	}
	s.mu.Lock()
	cfg, deleted := f.cfg, f.deleted
	s.mu.Unlock()
	if deleted {
		return errors.New("the function was deleted")
	}
	env := map[string]string{}
	if cfg.Environment != nil {
		maps.Copy(env, cfg.Environment.Variables)
	}
	maps.Copy(env, s.o.FunctionEnv)
	maps.Copy(env, map[string]string{
		"AWS_REGION":                      s.o.Region,
		"AWS_DEFAULT_REGION":              s.o.Region,
		"AWS_LAMBDA_FUNCTION_NAME":        cfg.FunctionName,
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(cfg.MemorySize),
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(cfg.Timeout),
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + cfg.FunctionName,
		"AWS_EXECUTION_ENV":               "AWS_Lambda_" + cfg.Runtime,
		"_HANDLER":                        cfg.Handler,
	})
	maps.Copy(env, s.o.RuntimeEnv[cfg.Runtime])
	// What runs is the function's bootstrap (provided.*) or the stand-in of its managed runtime,
	// which loads _HANDLER from the task root.
	bootstrap, rtEnv, err := managedruntime.Bootstrap(s.ctx, cfg.Runtime, cfg.Handler, f.taskRoot, s.t.TempDir())
	if err != nil {
		return err
	}
	maps.Copy(env, rtEnv)
	// MeasureInit: the REPORT's Init Duration is the harness's, from the runtime's start to its
	// first request for an event (invoke.go's measured).
	o := lambdalocal.Options{Bootstrap: bootstrap, Env: env, MemoryMB: cfg.MemorySize, Quota: s.o.Quota, Period: s.period, MeasureInit: true}
	if s.o.Quota && s.o.InitShare > 0 {
		share, err := lambdalocal.ShareForMemory(cfg.MemorySize)
		if err != nil {
			return err
		}
		o.InitShare = math.Max(s.o.InitShare, share)
	}
	e, err := lambdalocal.Launch(s.t, o)
	if err != nil {
		return err
	}
	f.env, s.running, s.live[e] = e, f, f
	// The emulator's start-up spent part of this period's quota; Init starts on a fresh one.
	select {
	case <-time.After(s.period):
	case <-s.ctx.Done():
	}
	return nil
}

// endRunning ends the running environment, if any. Call with envMu held.
func (s *Server) endRunning() {
	if s.running != nil {
		s.endEnv(s.running)
	}
	s.running = nil
}

// endEnv ends f's environment, running or frozen, if it has one: a frozen one is thawed first,
// so that the emulator gets its SIGTERM and ends its runtime as it always does (a stopped
// process is delivered no signal but SIGKILL until it is continued). Call with envMu held.
func (s *Server) endEnv(f *function) {
	if s.running == f {
		s.running = nil
	}
	if f.env == nil {
		return
	}
	s.thaw(f)
	delete(s.live, f.env)
	if err := f.env.Stop(); err != nil {
		s.t.Logf("lambdaapi: ending %s's environment: %v", f.name, err)
	}
	f.env = nil
}

// endAll ends every environment, running and frozen. Call with envMu held.
func (s *Server) endAll() {
	for _, f := range s.live {
		s.endEnv(f)
	}
}

// displace makes room for another function's environment: the running one is ended, as Lambda
// ends no environment but this stand-in runs one at a time, or, with
// Options.KeepEnvironmentsOnUpdate, frozen, as Lambda freezes an idle environment, so that its
// function's next invoke is served by it, warm, as a platform whose environments outlive
// updates serves each function from its own. Call with envMu held.
func (s *Server) displace() {
	f := s.running
	if f == nil {
		return
	}
	if !s.o.KeepEnvironmentsOnUpdate || f.env == nil {
		s.endRunning()
		return
	}
	if err := s.freeze(f); err != nil {
		s.t.Logf("lambdaapi: freezing %s's environment: %v; ending it", f.name, err)
		s.endRunning()
		return
	}
	s.running = nil
}

// activate makes f's environment the running one: a frozen one is thawed, after the running
// one is displaced; without one, a fresh one starts (a cold start). Call with envMu held.
func (s *Server) activate(f *function) error {
	switch {
	case s.running == f && f.env != nil:
		return nil
	case f.env != nil && f.frozen != nil:
		s.displace()
		s.thaw(f)
		s.running = f
		return nil
	default:
		return s.startEnv(f)
	}
}
