package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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

// The results of jobs and steps, as GitHub names them; boundary is the stand-in's own: the job
// reached a step that talks to a service the stand-in cannot reach (AWS, GitHub's API), and
// stopped there, its steps after it not run.
const (
	success   = "success"
	failure   = "failure"
	cancelled = "cancelled"
	skipped   = "skipped"
	boundary  = "boundary"
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

// defaultJobMinutes is a job's timeout-minutes where it sets none (GitHub's: 360).
const defaultJobMinutes = 360

// Run is what a workflow run did: written to run.json in its folder, whole.
type Run struct {
	Workflow string   `json:"workflow"`
	Event    string   `json:"event"`
	Commit   string   `json:"commit"`
	Settings []string `json:"settings,omitempty"` // the stand-in's own environment for every step
	Jobs     []*Job   `json:"jobs"`
}

// Job is one job of a run, or one instance of a matrix job.
type Job struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Matrix   map[string]any    `json:"matrix,omitempty"`
	Result   string            `json:"result"`
	Reason   string            `json:"reason,omitempty"` // why it was skipped, failed or stopped
	Outputs  map[string]string `json:"outputs,omitempty"`
	Steps    []*Step           `json:"steps,omitempty"`
	Log      string            `json:"log,omitempty"`
	Seconds  float64           `json:"seconds"`
	Boundary string            `json:"boundary,omitempty"` // the service where it stopped
}

// Step is one step of a job: its outcome (before continue-on-error) and conclusion (after), as
// the steps context gives them.
type Step struct {
	Name       string            `json:"name"`
	ID         string            `json:"id,omitempty"`
	Uses       string            `json:"uses,omitempty"`
	Outcome    string            `json:"outcome"`
	Conclusion string            `json:"conclusion"`
	Outputs    map[string]string `json:"outputs,omitempty"`
	Note       string            `json:"note,omitempty"`
	Seconds    float64           `json:"seconds"`
}

// runner runs one workflow file's jobs, in the order their needs give, as GitHub's hosted runner
// would run each on a machine of its own.
type runner struct {
	opt      options
	wf       *actionlint.Workflow
	file     string // the workflow's path in the repository
	commit   string
	server   *gitServer
	store    *artifactStore
	run      *Run
	byID     map[string][]*Job // the instances of each job
	runID    string
	events   map[string]any  // github.event
	canceled context.Context // done when the run is cancelled (SIGINT, SIGTERM)
}

// jobIDs are wf's job ids in an order that runs each after what it needs, and otherwise in the
// file's order.
func jobIDs(wf *actionlint.Workflow) ([]string, error) {
	ids := slices.Collect(maps.Keys(wf.Jobs))
	slices.SortFunc(ids, func(a, b string) int { return wf.Jobs[a].Pos.Line - wf.Jobs[b].Pos.Line })
	var out []string
	done := map[string]bool{}
	for len(out) < len(ids) {
		progress := false
		for _, id := range ids {
			if done[id] {
				continue
			}
			ready := true
			for _, n := range wf.Jobs[id].Needs {
				if _, ok := wf.Jobs[strings.ToLower(n.Value)]; !ok {
					return nil, fmt.Errorf("job %s needs %s, which the workflow does not have", id, n.Value)
				}
				ready = ready && done[strings.ToLower(n.Value)]
			}
			if ready {
				out, done[id], progress = append(out, id), true, true
				break
			}
		}
		if !progress {
			return nil, errors.New("the jobs' needs make a cycle")
		}
	}
	return out, nil
}

// execute runs every job and gives the run's record.
func (r *runner) execute(ctx context.Context) (*Run, error) {
	ids, err := jobIDs(r.wf)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if len(r.opt.jobs) > 0 && !slices.Contains(r.opt.jobs, id) {
			continue
		}
		jobs, err := r.runJob(ctx, id)
		if err != nil {
			return r.run, fmt.Errorf("job %s: %w", id, err)
		}
		r.byID[id] = jobs
	}
	return r.run, nil
}

// needsContext is the needs context of job id, and the status its needs give its if:.
func (r *runner) needsContext(id string) (map[string]any, status) {
	needs := map[string]any{}
	var st status
	for _, n := range r.wf.Jobs[id].Needs {
		name := strings.ToLower(n.Value)
		result, outputs := r.result(name)
		out := map[string]any{}
		for k, v := range outputs {
			out[k] = v
		}
		needs[name] = map[string]any{"result": result, "outputs": out}
		switch result {
		case failure:
			st.failed = true
		case cancelled:
			st.cancelled = true
		case success:
		default:
			st.blocked = true
		}
	}
	return needs, st
}

// result is a job's result over its instances (failure if any failed, else cancelled if any was,
// else success if any succeeded) and its outputs, a later instance's over an earlier's, as
// GitHub merges a matrix job's; a job not run (left out by -job) is skipped.
func (r *runner) result(id string) (string, map[string]string) {
	jobs, ok := r.byID[id]
	if !ok || len(jobs) == 0 {
		return skipped, nil
	}
	outputs := map[string]string{}
	results := map[string]bool{}
	for _, j := range jobs {
		results[j.Result] = true
		for k, v := range j.Outputs {
			if v != "" {
				outputs[k] = v
			}
		}
	}
	for _, res := range []string{failure, cancelled, success, boundary} {
		if results[res] {
			if res == boundary {
				res = success // what ran of it ran green; run.json says where it stopped
			}
			return res, outputs
		}
	}
	return skipped, outputs
}

// baseContexts are the contexts every expression of a job sees.
func (r *runner) baseContexts(needs map[string]any) contexts {
	inputs := map[string]any{}
	for k, v := range r.opt.inputs {
		inputs[k] = v
	}
	vars := map[string]any{}
	for k, v := range r.opt.vars {
		vars[k] = v
	}
	return contexts{
		"github": r.githubContext(""),
		"inputs": inputs,
		"vars":   vars,
		"needs":  needs,
	}
}

// githubContext is the github context, with the job's token where it has one.
func (r *runner) githubContext(token string) map[string]any {
	return map[string]any{
		"event_name":       r.opt.event,
		"event":            r.events,
		"repository":       r.opt.repository,
		"repository_owner": strings.Split(r.opt.repository, "/")[0],
		"ref":              r.opt.ref,
		"ref_name":         strings.TrimPrefix(r.opt.ref, "refs/heads/"),
		"sha":              r.commit,
		"run_id":           r.runID,
		"run_number":       "1",
		"run_attempt":      strconv.Itoa(r.opt.attempt),
		"server_url":       r.server.url,
		"api_url":          r.server.url + "/api",
		"actor":            "claims-stand-in",
		"workflow":         r.workflowName(),
		"token":            token,
	}
}

func (r *runner) workflowName() string {
	if r.wf.Name != nil {
		return r.wf.Name.Value
	}
	return r.file
}

// runJob runs job id: each instance of its matrix, in order, or one.
func (r *runner) runJob(ctx context.Context, id string) ([]*Job, error) {
	def := r.wf.Jobs[id]
	needs, st := r.needsContext(id)
	base := r.baseContexts(needs)
	ev := evaluator{ctx: base, status: st}
	if r.canceled.Err() != nil {
		st.cancelled = true
		ev.status = st
	}
	cond := ""
	if def.If != nil {
		cond = def.If.Value
	}
	ok, err := ev.condition(cond)
	if err != nil {
		return nil, err
	}
	name := id
	if def.Name != nil {
		name = def.Name.Value
	}
	if !ok {
		why := "its if: is false"
		if cond == "" {
			why = "a job it needs did not succeed"
		}
		j := &Job{ID: id, Name: name, Result: skipped, Reason: why}
		r.run.Jobs = append(r.run.Jobs, j)
		fmt.Fprintf(r.opt.out, "workflow: %s: skipped: %s\n", name, why)
		return []*Job{j}, nil
	}
	instances, err := r.matrix(def, ev)
	if err != nil {
		return nil, err
	}
	var jobs []*Job
	for _, inst := range instances {
		j := &Job{ID: id, Name: name, Matrix: inst.values}
		if inst.values != nil {
			var vals []string
			for _, k := range slices.Sorted(maps.Keys(inst.values)) {
				vals = append(vals, str(inst.values[k]))
			}
			j.Name = name + " (" + strings.Join(vals, ", ") + ")"
		}
		r.run.Jobs = append(r.run.Jobs, j)
		jobs = append(jobs, j)
		if err := r.runInstance(ctx, def, j, base, inst); err != nil {
			return jobs, err
		}
	}
	return jobs, nil
}

// instance is one combination of a job's matrix, and its strategy context.
type instance struct {
	values   map[string]any
	strategy map[string]any
}

// matrix expands def's strategy.matrix (rows of values, or one expression), keeping the
// combinations -matrix selects, each with its index in the whole matrix, as strategy.job-index
// gives it. include and exclude are not modelled: a workflow that uses them is refused.
func (r *runner) matrix(def *actionlint.Job, ev evaluator) ([]instance, error) {
	if def.Strategy == nil || def.Strategy.Matrix == nil {
		return []instance{{strategy: map[string]any{"job-index": 0.0, "job-total": 1.0, "fail-fast": true, "max-parallel": 1.0}}}, nil
	}
	m := def.Strategy.Matrix
	if m.Include != nil || m.Exclude != nil || m.Expression != nil {
		return nil, errors.New("strategy.matrix with include, exclude or one expression: not modelled by the runner stand-in")
	}
	keys := slices.Sorted(maps.Keys(m.Rows))
	combos := []map[string]any{{}}
	for _, k := range keys {
		row := m.Rows[k]
		name := k
		if row.Name != nil {
			name = row.Name.Value
		}
		var values []any
		if row.Expression != nil {
			v, err := ev.value(row.Expression.Value)
			if err != nil {
				return nil, fmt.Errorf("strategy.matrix.%s: %w", name, err)
			}
			a, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("strategy.matrix.%s = %s: want an array", name, str(v))
			}
			values = a
		} else {
			for _, v := range row.Values {
				s, ok := v.(*actionlint.RawYAMLString)
				if !ok {
					return nil, fmt.Errorf("strategy.matrix.%s: a value that is not a string: not modelled", name)
				}
				values = append(values, s.Value)
			}
		}
		var next []map[string]any
		for _, c := range combos {
			for _, v := range values {
				n := maps.Clone(c)
				n[name] = v
				next = append(next, n)
			}
		}
		combos = next
	}
	failFast := true
	if def.Strategy.FailFast != nil {
		failFast = def.Strategy.FailFast.Value
	}
	var out []instance
	for i, c := range combos {
		if !r.opt.selects(c) {
			continue
		}
		out = append(out, instance{values: c, strategy: map[string]any{
			"job-index": float64(i), "job-total": float64(len(combos)), "fail-fast": failFast, "max-parallel": float64(len(combos))}})
	}
	for key, want := range r.opt.matrix {
		for _, w := range want {
			if !slices.ContainsFunc(combos, func(c map[string]any) bool { return str(property(c, key)) == w }) {
				return nil, fmt.Errorf("-matrix %s=%s: the matrix has no such value (it has %d combinations)", key, w, len(combos))
			}
		}
	}
	return out, nil
}

// permissions are a job's token's permissions, by scope: the job's, else the workflow's.
func (r *runner) permissions(def *actionlint.Job) map[string]string {
	p := def.Permissions
	if p == nil {
		p = r.wf.Permissions
	}
	out := map[string]string{"metadata": "read"}
	if p == nil {
		return out
	}
	if p.All != nil {
		for _, s := range []string{"actions", "contents", "issues", "pages", "id-token", "pull-requests", "statuses", "checks", "deployments", "packages"} {
			out[s] = strings.TrimSuffix(p.All.Value, "-all")
		}
		return out
	}
	for _, s := range p.Scopes {
		out[s.Name.Value] = s.Value.Value
	}
	return out
}

// jobState is what the steps of one job share.
type jobState struct {
	dir, workspace, temp string
	env                  map[string]string // the workflow's, the job's, and GITHUB_ENV's
	path                 []string          // GITHUB_PATH's, first first
	token                string
	masks                []string
	log                  *os.File
	steps                map[string]any
	status               status
	trackingID           string         // RUNNER_TRACKING_ID: every process of the job has it
	scanners             sync.WaitGroup // the readers of the steps' output, done at EOF
}

// runInstance runs one job on a machine of its own: a fresh folder with its workspace and its
// temporary folder, a token of its own with its permissions, its steps in order.
func (r *runner) runInstance(ctx context.Context, def *actionlint.Job, j *Job, base contexts, inst instance) error {
	start := time.Now()
	defer func() { j.Seconds = time.Since(start).Round(time.Millisecond).Seconds() }()
	dir := filepath.Join(r.opt.dir, "jobs", fmt.Sprintf("%02d-%s", len(r.run.Jobs), sanitize(j.Name)))
	js := &jobState{dir: dir, workspace: filepath.Join(dir, "work", filepath.Base(r.opt.repository)), temp: filepath.Join(dir, "temp"),
		env: map[string]string{}, steps: map[string]any{}}
	if r.opt.here {
		js.workspace = r.opt.repoDir
	}
	for _, d := range []string{js.workspace, js.temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var err error
	js.log, err = os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return err
	}
	defer js.log.Close()
	j.Log, _ = filepath.Rel(r.opt.dir, js.log.Name())
	event, err := json.Marshal(r.events)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "event.json"), event, 0o644); err != nil {
		return err
	}
	js.trackingID = "github_" + randomHex(16)
	// At the job's end, as the hosted runner cleans up "orphan processes": every process still
	// running with the job's RUNNER_TRACKING_ID; then the readers of their output end.
	defer func() {
		if n := killTracked(js.trackingID); n > 0 {
			fmt.Fprintf(js.log, "##[runner] the job's end: %d processes it left ended\n", n)
		}
		js.scanners.Wait()
	}()
	js.token = "ghs_" + randomHex(18)
	js.masks = append(js.masks, js.token)
	if err := r.server.grant(js.token, r.permissions(def)); err != nil {
		return err
	}

	ctxs := maps.Clone(base)
	ctxs["github"] = r.githubContext(js.token)
	ctxs["github"].(map[string]any)["workspace"] = js.workspace
	ctxs["github"].(map[string]any)["job"] = j.ID
	ctxs["runner"] = map[string]any{"temp": js.temp, "os": "Linux", "arch": "X64", "name": "claims-runner-stand-in",
		"environment": "github-hosted", "tool_cache": filepath.Join(dir, "toolcache")}
	ctxs["matrix"] = inst.values
	ctxs["strategy"] = inst.strategy
	ctxs["secrets"] = map[string]any{"GITHUB_TOKEN": js.token}
	ctxs["steps"] = js.steps
	ev := evaluator{ctx: ctxs}
	// The workflow's env, then the job's, each evaluated where GitHub evaluates them.
	for _, e := range []*actionlint.Env{r.wf.Env, def.Env} {
		ctxs["env"] = toAny(js.env)
		if err := setEnv(e, ev, js.env); err != nil {
			return err
		}
	}
	minutes := float64(defaultJobMinutes)
	if def.TimeoutMinutes != nil && def.TimeoutMinutes.Expression == nil {
		minutes = def.TimeoutMinutes.Value
	}
	jobCtx, cancelJob := context.WithTimeoutCause(ctx, time.Duration(minutes*float64(time.Minute)),
		fmt.Errorf("the job reached its timeout-minutes (%g)", minutes))
	defer cancelJob()
	fmt.Fprintf(r.opt.out, "workflow: %s: started (log %s)\n", j.Name, js.log.Name())

	j.Result = success
	for i, sdef := range def.Steps {
		s := &Step{Name: stepName(sdef, i)}
		if named, err := ev.interpolate(s.Name); err == nil {
			s.Name = named // as GitHub shows it, its expressions evaluated
		}
		if sdef.ID != nil {
			s.ID = sdef.ID.Value
		}
		j.Steps = append(j.Steps, s)
		if j.Boundary != "" {
			s.Outcome, s.Conclusion, s.Note = skipped, skipped, "not run: after the boundary ("+j.Boundary+")"
			continue
		}
		if jobCtx.Err() != nil || r.canceled.Err() != nil {
			js.status.cancelled = true
		}
		ctxs["env"] = toAny(js.env)
		ctxs["job"] = map[string]any{"status": jobStatus(js.status)}
		ev.status = js.status
		cond := ""
		if sdef.If != nil {
			cond = sdef.If.Value
		}
		ok, err := ev.condition(cond)
		if err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if !ok {
			s.Outcome, s.Conclusion = skipped, skipped
			r.record(js, "skipped: %s", s.Name)
			r.storeStep(js, s)
			continue
		}
		stepCtx, stop := jobCtx, context.CancelFunc(func() {})
		if limit, ok := r.stepTimeout(j, sdef, s); ok {
			stepCtx, stop = context.WithTimeoutCause(jobCtx, limit, fmt.Errorf("the step reached its timeout (%s)", limit))
		}
		t0 := time.Now()
		outcome, err := r.runStep(stepCtx, js, j, sdef, s, ev)
		stop()
		s.Seconds = time.Since(t0).Round(time.Millisecond).Seconds()
		if err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		s.Outcome, s.Conclusion = outcome, outcome
		if outcome == failure && sdef.ContinueOnError != nil && sdef.ContinueOnError.Value {
			s.Conclusion = success
		}
		switch {
		case s.Conclusion == failure:
			js.status.failed = true
			if jobCtx.Err() != nil {
				js.status.cancelled = true
			}
		case outcome == cancelled:
			js.status.cancelled = true
		}
		r.record(js, "%s: %s (%.1f s)%s", s.Conclusion, s.Name, s.Seconds, suffix(s.Note))
		r.storeStep(js, s)
	}
	switch {
	case js.status.cancelled:
		j.Result = cancelled
		if cause := context.Cause(jobCtx); cause != nil && jobCtx.Err() != nil {
			j.Reason = cause.Error()
		}
	case js.status.failed:
		j.Result = failure
	case j.Boundary != "":
		j.Result = boundary
	}
	// The job's outputs, from its steps'.
	j.Outputs = map[string]string{}
	for _, o := range def.Outputs {
		v, err := ev.interpolate(o.Value.Value)
		if err != nil {
			return fmt.Errorf("outputs.%s: %w", o.Name.Value, err)
		}
		j.Outputs[o.Name.Value] = v
	}
	fmt.Fprintf(r.opt.out, "workflow: %s: %s in %.0f s%s\n", j.Name, j.Result, time.Since(start).Seconds(), suffix(j.Reason+j.Boundary))
	return nil
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// jobStatus is the job context's status.
func jobStatus(st status) string {
	switch {
	case st.cancelled:
		return cancelled
	case st.failed:
		return failure
	}
	return success
}

// storeStep puts s in the steps context, where it has an id.
func (r *runner) storeStep(js *jobState, s *Step) {
	if s.ID == "" {
		return
	}
	outputs := map[string]any{}
	for k, v := range s.Outputs {
		outputs[k] = v
	}
	js.steps[s.ID] = map[string]any{"outcome": s.Outcome, "conclusion": s.Conclusion, "outputs": outputs}
}

// record writes a line to the job's log and the runner's output.
func (r *runner) record(js *jobState, format string, args ...any) {
	line := mask(fmt.Sprintf(format, args...), js.masks)
	fmt.Fprintf(js.log, "##[runner] %s\n", line)
	fmt.Fprintf(r.opt.out, "workflow:   %s\n", line)
}

// stepTimeout is a step's limit: -timeout's for it, else its timeout-minutes.
func (r *runner) stepTimeout(j *Job, sdef *actionlint.Step, s *Step) (time.Duration, bool) {
	for _, key := range []string{j.Name + "/" + s.Name, j.ID + "/" + s.Name, j.Name + "/" + s.ID, j.ID + "/" + s.ID} {
		if d, ok := r.opt.timeouts[key]; ok {
			return d, true
		}
	}
	if sdef.TimeoutMinutes != nil && sdef.TimeoutMinutes.Expression == nil {
		return time.Duration(sdef.TimeoutMinutes.Value * float64(time.Minute)), true
	}
	return 0, false
}

// stepName is a step's name as GitHub shows it: its name, else "Run <first line>" or the action.
func stepName(s *actionlint.Step, i int) string {
	if s.Name != nil {
		return s.Name.Value
	}
	switch e := s.Exec.(type) {
	case *actionlint.ExecRun:
		return "Run " + strings.SplitN(strings.TrimSpace(e.Run.Value), "\n", 2)[0]
	case *actionlint.ExecAction:
		return "Run " + strings.SplitN(e.Uses.Value, "@", 2)[0]
	}
	return "step " + strconv.Itoa(i+1)
}

// setEnv evaluates an env: block into env.
func setEnv(e *actionlint.Env, ev evaluator, env map[string]string) error {
	if e == nil {
		return nil
	}
	if e.Expression != nil {
		return errors.New("env: as one expression: not modelled by the runner stand-in")
	}
	for _, v := range e.Vars {
		val, err := ev.interpolate(v.Value.Value)
		if err != nil {
			return fmt.Errorf("env.%s: %w", v.Name.Value, err)
		}
		env[v.Name.Value] = val
	}
	return nil
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

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
