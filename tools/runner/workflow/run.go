package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
