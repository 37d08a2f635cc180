package main

// A workflow's jobs before any runs: their order from needs, what each sees of the jobs it
// needs, its matrix's instances and its token's permissions.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rhysd/actionlint"
)

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
