// Command workflow runs a GitHub Actions workflow of this repository, job by job and step by
// step, as GitHub's hosted runner would, on the machine it runs on: the runner stand-in's test of
// the workflows (docs/runner.md, "The workflows, step by step") runs it as user runner in the
// stand-in's userland.
//
//	go run ./tools/runner/workflow -dir DIR [-event schedule] [-input k=v] [-var k=v] [-set K=V]
//	    [-matrix key=v1,v2] [-job id] [-timeout 'job/step=5m'] [-attempt N] [-here] .github/workflows/claims.yml
//
// It reads the workflow file itself (through actionlint's parser) and runs every job its event
// starts, each after the jobs it needs, each instance of a matrix on a machine of its own: a
// fresh folder under DIR with its workspace and temporary folder, a token of its own with the
// job's permissions, the workflow's and job's env. A run: step runs as GitHub runs it (bash -e
// on a file of the script, GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY read
// after it, its timeout ending its process group as the runner does); if:, env: and ${{ }} are
// evaluated as GitHub evaluates them (expr.go). A uses: step runs through the stand-in's model of
// its action (actions.go), which must be pinned by a commit SHA; the artifacts pass between jobs
// by name and path as the artifact actions pass them; git talks to the stand-in of GitHub's git
// server (gitserver.go), and gh is the fake (harness/standin/ghstub), both knowing the jobs'
// tokens. A step that needs what cannot be reached from here (AWS, GitHub's Pages API) is the
// job's boundary: the job stops there, named.
//
// DIR/run.json is what ran (jobs, steps, outcomes, boundaries); DIR/jobs/*/log each job's log.
// It exits 0 when every job that ran succeeded (or stopped at its boundary), 1 when one failed
// or was cancelled, and 2 when the workflow asks for what the stand-in does not model.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rhysd/actionlint"
	"github.com/serverless-claims/claims/harness/standin/ghstub"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// fakeGH is the name this program answers to as the fake gh: bin/gh, a script first on every
// step's PATH, starts it so with the state file in ghstub.StateEnv for gh's process alone, as a
// step's own programs (cmd/history's test binary among them) read that variable too.
const fakeGH = "claims-fake-gh"

// options are the command's flags.
type options struct {
	dir, remote, ghState, repoDir, repository string
	event, ref                                string
	attempt                                   int
	inputs, vars                              map[string]string
	settings                                  []string
	matrix                                    map[string][]string
	jobs                                      []string
	timeouts                                  map[string]time.Duration
	workflowStates                            map[string]string
	here                                      bool // every job's workspace is repoDir itself
	bin                                       string
	out                                       io.Writer
}

// selects says whether a matrix combination is one -matrix keeps.
func (o options) selects(c map[string]any) bool {
	for key, want := range o.matrix {
		if !slices.Contains(want, str(property(c, key))) {
			return false
		}
	}
	return true
}

// keyValues is a repeatable k=v flag.
type keyValues map[string]string

func (kv keyValues) String() string { return fmt.Sprint(map[string]string(kv)) }
func (kv keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want name=value", s)
	}
	kv[k] = v
	return nil
}

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	// Where it is started as the fake gh (through bin/gh), it is that.
	if filepath.Base(os.Args[0]) == fakeGH {
		os.Exit(ghstub.Main(os.Getenv(ghstub.StateEnv), os.Args[1:], os.Stdout, os.Stderr))
	}
	code, err := run(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "workflow:", err)
	}
	os.Exit(code)
}

// run runs the command with args: its exit status, and an error that says why where it is 2.
func run(args []string, stdout io.Writer) (int, error) {
	o, file, err := parseFlags(args, stdout)
	if err != nil {
		return 2, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return 2, err
	}
	wf, errs := actionlint.Parse(data)
	if len(errs) > 0 {
		return 2, fmt.Errorf("%s: %s", file, errs[0].Error())
	}
	if !triggers(wf, o.event) {
		return 2, fmt.Errorf("-event %s: %s has no such trigger in its on:", o.event, file)
	}
	if err := dispatchInputs(wf, o); err != nil {
		return 2, err
	}
	for _, id := range o.jobs {
		if _, ok := wf.Jobs[id]; !ok {
			return 2, fmt.Errorf("-job %s: %s has no such job", id, file)
		}
	}
	for _, d := range []string{o.dir, o.remote, filepath.Dir(o.ghState)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 2, err
		}
	}
	if err := initGH(o, filepath.Dir(file)); err != nil {
		return 2, err
	}
	// gh: this program, linked as gh first on every step's PATH.
	self, err := os.Executable()
	if err != nil {
		return 2, err
	}
	o.bin = filepath.Join(o.dir, "bin")
	os.RemoveAll(o.bin)
	if err := os.MkdirAll(o.bin, 0o755); err != nil {
		return 2, err
	}
	if err := os.Symlink(self, filepath.Join(o.bin, fakeGH)); err != nil {
		return 2, err
	}
	script := fmt.Sprintf("#!/bin/sh\n%s=%s exec %s \"$@\"\n", ghstub.StateEnv, shellQuote(o.ghState), shellQuote(filepath.Join(o.bin, fakeGH)))
	if err := os.WriteFile(filepath.Join(o.bin, "gh"), []byte(script), 0o755); err != nil {
		return 2, err
	}
	branch := strings.TrimPrefix(o.ref, "refs/heads/")
	commit, err := seed(o.remote, o.repository, o.repoDir, branch)
	if err != nil {
		return 2, err
	}
	server, err := startGitServer(o.remote, o.ghState)
	if err != nil {
		return 2, err
	}
	defer server.close()

	canceled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rel, _ := filepath.Rel(o.repoDir, file)
	r := &runner{opt: o, wf: wf, file: rel, commit: commit, server: server,
		store: &artifactStore{dir: filepath.Join(o.dir, "artifacts")}, byID: map[string][]*Job{},
		run:   &Run{Workflow: rel, Event: o.event, Commit: commit, Settings: o.settings},
		runID: strconv.FormatInt(time.Now().Unix(), 10), canceled: canceled, events: event(o)}
	fmt.Fprintf(stdout, "workflow: %s on %s at %.12s, in %s\n", rel, o.event, commit, o.dir)
	ran, runErr := r.execute(context.Background())
	if err := writeRun(filepath.Join(o.dir, "run.json"), ran); err != nil {
		return 2, err
	}
	if runErr != nil {
		return 2, runErr
	}
	code := 0
	for _, j := range ran.Jobs {
		fmt.Fprintf(stdout, "workflow: %-40s %s%s\n", j.Name, j.Result, suffix(j.Reason+j.Boundary))
		if j.Result == failure || j.Result == cancelled {
			code = 1
		}
	}
	return code, nil
}

// parseFlags reads the flags, refusing what makes no sense, and gives the workflow's file.
func parseFlags(args []string, stdout io.Writer) (options, string, error) {
	o := options{inputs: keyValues{}, vars: keyValues{}, matrix: map[string][]string{}, timeouts: map[string]time.Duration{},
		workflowStates: keyValues{}, out: stdout}
	fs := flag.NewFlagSet("workflow", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "the run's folder: its jobs' folders and logs, its artifacts, run.json")
	fs.StringVar(&o.remote, "remote", "", "the stand-in git server's repositories, kept between runs (default DIR/remote)")
	fs.StringVar(&o.ghState, "gh", "", "the fake gh's state file, kept between runs (default DIR/gh.json)")
	fs.StringVar(&o.repoDir, "repo", ".", "the checkout whose HEAD the run is of")
	fs.StringVar(&o.repository, "repository", "serverless-claims/claims", "the repository's owner/name on GitHub")
	fs.StringVar(&o.event, "event", "workflow_dispatch", "the event that starts the run: push, schedule, workflow_dispatch")
	fs.StringVar(&o.ref, "ref", "refs/heads/main", "the run's ref (a branch)")
	fs.IntVar(&o.attempt, "attempt", 1, "the run's attempt, github.run_attempt")
	fs.BoolVar(&o.here, "here", false, "run every job in the checkout -repo names, a throwaway one (the runner stand-in's guest), rather than a fresh one each: its HEAD must be the run's commit")
	fs.Var(keyValues(o.inputs), "input", "a workflow_dispatch input, name=value (repeatable)")
	fs.Var(keyValues(o.vars), "var", "a repository variable, name=value (repeatable)")
	fs.Var((*list)(&o.settings), "set", "the stand-in's own setting for every step's environment, NAME=value (repeatable), recorded in run.json")
	fs.Var(keyValues(o.workflowStates), "workflow-state", "a workflow's state for the heartbeat, file=state (default active)")
	var matrix, jobs, timeouts list
	fs.Var(&matrix, "matrix", "run only the matrix's combinations with these values, key=v1,v2 (repeatable)")
	fs.Var(&jobs, "job", "run only this job (repeatable); the jobs it needs are then skipped")
	fs.Var(&timeouts, "timeout", "a step's limit instead of its timeout-minutes, 'job/step=duration' (repeatable)")
	if err := fs.Parse(args); err != nil {
		return o, "", err
	}
	if fs.NArg() != 1 {
		return o, "", errors.New("name one workflow file, as .github/workflows/claims.yml")
	}
	if o.dir == "" {
		return o, "", errors.New("-dir: name the run's folder")
	}
	if !slices.Contains([]string{"push", "schedule", "workflow_dispatch", "pull_request"}, o.event) {
		return o, "", fmt.Errorf("-event %s: want push, schedule, workflow_dispatch or pull_request", o.event)
	}
	if !strings.HasPrefix(o.ref, "refs/heads/") {
		return o, "", fmt.Errorf("-ref %s: want a branch, refs/heads/<name>", o.ref)
	}
	if o.attempt < 1 {
		return o, "", fmt.Errorf("-attempt %d: want 1 or more", o.attempt)
	}
	for _, s := range o.settings {
		if k, _, ok := strings.Cut(s, "="); !ok || k == "" {
			return o, "", fmt.Errorf("-set %q: want NAME=value", s)
		}
	}
	for _, m := range matrix {
		k, v, ok := strings.Cut(m, "=")
		if !ok || k == "" || v == "" {
			return o, "", fmt.Errorf("-matrix %q: want key=value[,value...]", m)
		}
		o.matrix[k] = append(o.matrix[k], strings.Split(v, ",")...)
	}
	o.jobs = jobs
	for _, t := range timeouts {
		// The step's name may hold '=' (make matrix SHARD=...): the duration follows the last.
		i := strings.LastIndex(t, "=")
		k, v, ok := t[:max(i, 0)], t[i+1:], i > 0
		d, err := time.ParseDuration(v)
		if !ok || !strings.Contains(k, "/") || err != nil || d <= 0 {
			return o, "", fmt.Errorf("-timeout %q: want 'job/step=duration', as 'shard/make matrix=30s'", t)
		}
		o.timeouts[k] = d
	}
	var err error
	for _, p := range []*string{&o.dir, &o.repoDir} {
		if *p, err = filepath.Abs(*p); err != nil {
			return o, "", err
		}
	}
	if o.remote == "" {
		o.remote = filepath.Join(o.dir, "remote")
	}
	if o.ghState == "" {
		o.ghState = filepath.Join(o.dir, "gh.json")
	}
	if o.remote, err = filepath.Abs(o.remote); err != nil {
		return o, "", err
	}
	if o.ghState, err = filepath.Abs(o.ghState); err != nil {
		return o, "", err
	}
	file, err := filepath.Abs(fs.Arg(0))
	return o, file, err
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// triggers says whether wf runs on event.
func triggers(wf *actionlint.Workflow, event string) bool {
	for _, e := range wf.On {
		if e.EventName() == event {
			return true
		}
	}
	return false
}

// dispatchInputs gives each workflow_dispatch input not given by -input its default, as
// GitHub's form does, and refuses an input the workflow does not declare.
func dispatchInputs(wf *actionlint.Workflow, o options) error {
	if o.event != "workflow_dispatch" {
		if len(o.inputs) > 0 {
			return fmt.Errorf("-input with -event %s: inputs are workflow_dispatch's", o.event)
		}
		return nil
	}
	for _, e := range wf.On {
		d, ok := e.(*actionlint.WorkflowDispatchEvent)
		if !ok {
			continue
		}
		for k := range o.inputs {
			if _, ok := d.Inputs[strings.ToLower(k)]; !ok {
				return fmt.Errorf("-input %s: the workflow's workflow_dispatch has no such input", k)
			}
		}
		for _, in := range d.Inputs {
			if _, given := o.inputs[in.Name.Value]; !given && in.Default != nil {
				o.inputs[in.Name.Value] = in.Default.Value
			}
		}
	}
	return nil
}

// initGH gives the fake gh's repository the workflows of folder, each active unless
// -workflow-state says otherwise, where its state has none yet.
func initGH(o options, folder string) error {
	st, err := ghstub.Read(o.ghState)
	if err != nil {
		return err
	}
	if st.Workflows == nil {
		st.Workflows = map[string]ghstub.Workflow{}
	}
	files, err := filepath.Glob(filepath.Join(folder, "*.yml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		name := filepath.Base(f)
		if _, ok := st.Workflows[name]; !ok {
			st.Workflows[name] = ghstub.Workflow{State: "active", UpdatedAt: "2026-10-01T00:00:00Z"}
		}
	}
	for name, state := range o.workflowStates {
		w, ok := st.Workflows[name]
		if !ok {
			return fmt.Errorf("-workflow-state %s: no workflow %s in %s", name, name, folder)
		}
		w.State = state
		st.Workflows[name] = w
	}
	return ghstub.Write(o.ghState, st)
}

// event is github.event for the run's event.
func event(o options) map[string]any {
	ev := map[string]any{"repository": map[string]any{"full_name": o.repository}}
	if o.event == "workflow_dispatch" {
		inputs := map[string]any{}
		for k, v := range o.inputs {
			inputs[k] = v
		}
		ev["inputs"] = inputs
	}
	return ev
}

// writeRun writes the run's record, whole.
func writeRun(path string, run *Run) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return wholefile.Write(path, append(data, '\n'))
}
