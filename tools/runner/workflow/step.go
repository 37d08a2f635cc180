package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rhysd/actionlint"
)

// The runner's signals to a step it ends, as actions/runner's ProcessInvoker sends them
// (src/Runner.Sdk/ProcessInvoker.cs, _sigintTimeout and _sigtermTimeout): SIGINT, then SIGTERM
// 7.5 s later, then the process tree killed 2.5 s after that; and how long a step's output may
// stay open after its process exited (ProcessExitedHandler's 5 s).
const (
	sigintGrace  = 7500 * time.Millisecond
	sigtermGrace = 2500 * time.Millisecond
	outputGrace  = 5 * time.Second
)

// runStep runs one step: a run: script, or an action's model. It gives the step's outcome; an
// error is the stand-in's own (a workflow it cannot model), which ends the run.
func (r *runner) runStep(ctx context.Context, js *jobState, j *Job, sdef *actionlint.Step, s *Step, ev evaluator) (string, error) {
	env := maps.Clone(js.env)
	ev.ctx["env"] = toAny(env)
	if err := setEnv(sdef.Env, ev, env); err != nil {
		return "", err
	}
	switch e := sdef.Exec.(type) {
	case *actionlint.ExecRun:
		script, err := ev.interpolate(e.Run.Value)
		if err != nil {
			return "", err
		}
		dir := js.workspace
		if e.WorkingDirectory != nil {
			wd, err := ev.interpolate(e.WorkingDirectory.Value)
			if err != nil {
				return "", err
			}
			dir = filepath.Join(js.workspace, wd)
		}
		shell := "bash -e {0}" // GitHub's where shell: is not set and bash is on PATH
		if e.Shell != nil {
			switch e.Shell.Value {
			case "bash":
				shell = "bash --noprofile --norc -eo pipefail {0}"
			case "sh":
				shell = "sh -e {0}"
			default:
				return "", fmt.Errorf("shell: %s: not modelled by the runner stand-in", e.Shell.Value)
			}
		}
		r.record(js, "run: %s", s.Name)
		return r.script(ctx, js, s, env, dir, shell, script)
	case *actionlint.ExecAction:
		s.Uses = e.Uses.Value
		with := map[string]string{}
		for _, in := range e.Inputs {
			v, err := ev.interpolate(in.Value.Value)
			if err != nil {
				return "", fmt.Errorf("with.%s: %w", in.Name.Value, err)
			}
			with[in.Name.Value] = v
		}
		r.record(js, "uses: %s", s.Uses)
		return r.action(ctx, js, j, s, with, env)
	}
	return "", fmt.Errorf("%T: a step the runner stand-in does not model", sdef.Exec)
}

// stepEnv is the environment of a step's process: the runner's own (the login environment of
// user runner), GitHub's default variables, the stand-in's settings, then the step's.
func (r *runner) stepEnv(js *jobState, env map[string]string, files map[string]string, stepID string) []string {
	vars := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	gh := r.githubContext("")
	defaults := map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true",
		"GITHUB_WORKFLOW": r.workflowName(), "GITHUB_WORKFLOW_REF": r.opt.repository + "/" + r.file + "@" + r.opt.ref,
		"GITHUB_RUN_ID": r.runID, "GITHUB_RUN_NUMBER": "1", "GITHUB_RUN_ATTEMPT": strconv.Itoa(r.opt.attempt),
		"GITHUB_JOB": str(gh["job"]), "GITHUB_ACTION": stepID, "GITHUB_ACTOR": str(gh["actor"]),
		"GITHUB_REPOSITORY": r.opt.repository, "GITHUB_REPOSITORY_OWNER": str(gh["repository_owner"]),
		"GITHUB_EVENT_NAME": r.opt.event, "GITHUB_EVENT_PATH": filepath.Join(js.dir, "event.json"),
		"GITHUB_WORKSPACE": js.workspace, "GITHUB_SHA": r.commit, "GITHUB_REF": r.opt.ref,
		"GITHUB_REF_NAME": str(gh["ref_name"]), "GITHUB_REF_TYPE": "branch",
		"GITHUB_SERVER_URL": r.server.url, "GITHUB_API_URL": r.server.url + "/api", "GITHUB_GRAPHQL_URL": r.server.url + "/api/graphql",
		"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_NAME": "claims-runner-stand-in", "RUNNER_ENVIRONMENT": "github-hosted",
		"RUNNER_TEMP": js.temp, "RUNNER_TOOL_CACHE": filepath.Join(js.dir, "toolcache"), "ImageOS": "ubuntu24",
		"RUNNER_TRACKING_ID": js.trackingID,
	}
	maps.Copy(vars, defaults)
	maps.Copy(vars, files)
	for _, kv := range r.opt.settings {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	// The stand-in's plumbing: the fake gh first on PATH (bin/gh, which names its state file).
	vars["PATH"] = strings.Join(append(append([]string{r.opt.bin}, js.path...), vars["PATH"]), string(os.PathListSeparator))
	maps.Copy(vars, env)
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// script runs a run: step's script with shell, in dir, and reads the files it wrote
// (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY).
func (r *runner) script(ctx context.Context, js *jobState, s *Step, env map[string]string, dir, shell, script string) (string, error) {
	name := "step-" + randomHex(6)
	path := filepath.Join(js.temp, name+".sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return "", err
	}
	files := map[string]string{}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"} {
		p := filepath.Join(js.temp, "_runner_file_commands", strings.ToLower(f)+"_"+name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return "", err
		}
		files[f] = p
	}
	args := strings.Fields(strings.ReplaceAll(shell, "{0}", path))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = r.stepEnv(js, env, files, s.ID)
	outcome, err := r.execute1(ctx, js, s, cmd)
	if err != nil {
		return "", err
	}
	if err := r.readFiles(js, s, files); err != nil {
		r.record(js, "%s: %v", s.Name, err)
		return failure, nil
	}
	return outcome, nil
}

// execute1 runs cmd, its output to the job's log through the workflow commands' parser, as
// actions/runner's ProcessInvoker runs a step: when ctx ends, it ends the step (endStep); once
// the step's process has exited, the step is over when its output closes or 5 s later, whichever
// comes first (ProcessExitedHandler), so that a descendant holding the output open does not hold
// the job: it runs on, as on the hosted runner, until the job's end (killTracked).
func (r *runner) execute1(ctx context.Context, js *jobState, s *Step, cmd *exec.Cmd) (string, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	// A process group of its own, so that a terminal's Ctrl-C reaches the runner alone, which
	// ends the step as the hosted runner does. (No Pdeathsig: it follows the thread that started
	// the child, which Go may end; the stand-in's namespace ends what a killed runner leaves.)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		r.record(js, "%s: %v", s.Name, err)
		return failure, nil
	}
	pw.Close()
	tail := &lastLines{n: 40}
	eof := make(chan struct{})
	js.scanners.Add(1)
	go func() {
		defer js.scanners.Done()
		defer pr.Close()
		defer close(eof)
		r.scan(js, pr, tail)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	ended := false
	select {
	case werr = <-done:
	case <-ctx.Done():
		ended = true
		r.record(js, "%s: %v: ending it (SIGINT, SIGTERM, then its process tree killed)", s.Name, context.Cause(ctx))
		werr = endStep(cmd.Process.Pid, done)
	case <-r.canceled.Done():
		ended = true
		r.record(js, "%s: the run was cancelled: ending it", s.Name)
		werr = endStep(cmd.Process.Pid, done)
	}
	select {
	case <-eof:
	case <-time.After(outputGrace):
		r.record(js, "%s: its output stayed open %s after it ended: what holds it runs on until the job's end", s.Name, outputGrace)
	}
	switch {
	case r.canceled.Err() != nil && ended:
		s.Note = "cancelled"
		return cancelled, nil
	case ended:
		s.Note = context.Cause(ctx).Error()
		return failure, nil
	case werr != nil:
		s.Note = werr.Error()
		fmt.Fprintf(r.opt.out, "workflow:   %s: %v; its last lines:\n%s", s.Name, werr, tail.String())
		return failure, nil
	}
	return success, nil
}

// endStep ends a step as ProcessInvoker's CancelAndKillProcessTree does: SIGINT to the step's
// own process, SIGTERM sigintGrace later, and where it still runs sigtermGrace after that, its
// process tree killed. Its children get no signal before that kill, and none at all where the
// step's process exits on SIGINT or SIGTERM: they run on until the job's end, as on the hosted
// runner. It gives the step's exit.
func endStep(pid int, done chan error) error {
	for _, sig := range []struct {
		s     syscall.Signal
		grace time.Duration
	}{{syscall.SIGINT, sigintGrace}, {syscall.SIGTERM, sigtermGrace}} {
		syscall.Kill(pid, sig.s)
		select {
		case err := <-done:
			return err
		case <-time.After(sig.grace):
		}
	}
	killTree(pid)
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		return errors.New("the step did not end after its process tree was killed")
	}
}

// scan copies a step's output to the job's log, masked, acting on the workflow commands the
// repository's steps use (add-mask, notice, warning, error).
func (r *runner) scan(js *jobState, rd io.Reader, tail *lastLines) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "::add-mask::"); ok {
			if v != "" {
				js.masks = append(js.masks, v)
			}
			continue
		}
		line = mask(line, js.masks)
		for _, level := range []string{"notice", "warning", "error"} {
			if strings.HasPrefix(line, "::"+level) {
				fmt.Fprintf(r.opt.out, "workflow:   annotation: %s\n", line)
			}
		}
		fmt.Fprintln(js.log, line)
		tail.add(line)
	}
}

// mask replaces each secret in line with ***, as the runner masks its log.
func mask(line string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			line = strings.ReplaceAll(line, s, "***")
		}
	}
	return line
}

// lastLines keeps a step's last n lines, to show where it failed.
type lastLines struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func (l *lastLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > l.n {
		l.lines = l.lines[1:]
	}
}

func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, s := range l.lines {
		b.WriteString("workflow:   | " + s + "\n")
	}
	return b.String()
}

// readFiles reads what a step wrote to its files: outputs, environment, path, summary.
func (r *runner) readFiles(js *jobState, s *Step, files map[string]string) error {
	outputs, err := readKeyValues(files["GITHUB_OUTPUT"])
	if err != nil {
		return fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	if len(outputs) > 0 {
		s.Outputs = outputs
	}
	env, err := readKeyValues(files["GITHUB_ENV"])
	if err != nil {
		return fmt.Errorf("GITHUB_ENV: %w", err)
	}
	maps.Copy(js.env, env)
	data, err := os.ReadFile(files["GITHUB_PATH"])
	if err != nil {
		return err
	}
	for _, p := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if p != "" {
			js.path = append([]string{p}, js.path...)
		}
	}
	summary, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if err != nil {
		return err
	}
	if len(summary) > 0 {
		f, err := os.OpenFile(filepath.Join(js.dir, "summary.md"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write(summary)
		return err
	}
	return nil
}

// readKeyValues reads a GITHUB_OUTPUT or GITHUB_ENV file: name=value lines, and name<<DELIMITER
// blocks of lines ending at a line that is DELIMITER, as the runner reads them.
func readKeyValues(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, heredoc := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq > 0 && (heredoc < 0 || eq < heredoc):
			out[line[:eq]] = line[eq+1:]
		case heredoc > 0:
			name, delim := line[:heredoc], line[heredoc+2:]
			var value []string
			closed := false
			for i++; i < len(lines); i++ {
				if lines[i] == delim {
					closed = true
					break
				}
				value = append(value, lines[i])
			}
			if !closed {
				return nil, fmt.Errorf("%s: no line %q ends its value", name, delim)
			}
			out[name] = strings.Join(value, "\n")
		default:
			return nil, fmt.Errorf("line %q: want name=value or name<<DELIMITER", line)
		}
	}
	return out, nil
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// sanitize makes a job's name a folder's.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}
