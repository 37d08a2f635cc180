package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rhysd/actionlint"
)

// contexts are the contexts an expression reads (github, env, vars, inputs, matrix, strategy,
// needs, steps, runner, job, secrets), by their lower-case names, each a map[string]any of JSON's
// values: nil, bool, float64, string, []any and map[string]any.
type contexts map[string]any

// status is what the status functions (success(), failure(), cancelled(), always()) answer: for a
// step, its job's steps so far; for a job, the jobs it needs.
type status struct {
	failed, cancelled bool
	blocked           bool // a job it needs was skipped: success() is false, failure() too
}

// ok is success(): nothing failed, was cancelled or was skipped.
func (s status) ok() bool { return !s.failed && !s.cancelled && !s.blocked }

// evaluator evaluates GitHub Actions' expressions, parsed by actionlint, as GitHub's runner does
// (docs: "Evaluate expressions in workflows and actions"): loose equality that ignores the case of
// strings and casts other mixed types to numbers, && and || that give one of their operands, and
// the functions this repository's workflows use. A function or form it does not model is an
// error naming it, never a guess.
type evaluator struct {
	ctx    contexts
	status status
}

// parse parses one expression, the text between ${{ and }}.
func parse(src string) (actionlint.ExprNode, error) {
	node, err := actionlint.NewExprParser().Parse(actionlint.NewExprLexer(src + "}}"))
	if err != nil {
		return nil, fmt.Errorf("expression %q: %s", src, err.Message)
	}
	return node, nil
}

// statusFunctions are the functions whose presence in an if: stops GitHub adding success() &&.
var statusFunctions = map[string]bool{"success": true, "failure": true, "cancelled": true, "always": true}

// condition evaluates an if: as GitHub does: with or without ${{ }} around it, and where it calls
// no status function, as success() && (it). An empty one is success().
func (e evaluator) condition(cond string) (bool, error) {
	cond = strings.TrimSpace(cond)
	if strings.HasPrefix(cond, "${{") && strings.HasSuffix(cond, "}}") && strings.Count(cond, "${{") == 1 {
		cond = strings.TrimSpace(cond[3 : len(cond)-2])
	}
	if cond == "" {
		return e.status.ok(), nil
	}
	node, err := parse(cond)
	if err != nil {
		return false, err
	}
	v, err := e.eval(node)
	if err != nil {
		return false, fmt.Errorf("if: %s: %w", cond, err)
	}
	if !callsStatus(node) && !e.status.ok() {
		return false, nil
	}
	return truthy(v), nil
}

// callsStatus says whether node calls a status function anywhere.
func callsStatus(node actionlint.ExprNode) bool {
	found := false
	actionlint.VisitExprNode(node, func(n, _ actionlint.ExprNode, entering bool) {
		if f, ok := n.(*actionlint.FuncCallNode); ok && entering && statusFunctions[strings.ToLower(f.Callee)] {
			found = true
		}
	})
	return found
}

// interpolate replaces each ${{ expression }} in s with its value as a string.
func (e evaluator) interpolate(s string) (string, error) {
	var out strings.Builder
	for {
		start := strings.Index(s, "${{")
		if start < 0 {
			out.WriteString(s)
			return out.String(), nil
		}
		end := strings.Index(s[start:], "}}")
		if end < 0 {
			return "", fmt.Errorf("%q: ${{ without }}", s)
		}
		out.WriteString(s[:start])
		src := s[start+3 : start+end]
		node, err := parse(src)
		if err != nil {
			return "", err
		}
		v, err := e.eval(node)
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", src, err)
		}
		out.WriteString(str(v))
		s = s[start+end+2:]
	}
}

// value evaluates s where it is one whole ${{ expression }}, keeping the value's type (a matrix's
// fromJSON); else it is the string interpolated.
func (e evaluator) value(s string) (any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "${{") && strings.HasSuffix(t, "}}") && strings.Count(t, "${{") == 1 {
		node, err := parse(t[3 : len(t)-2])
		if err != nil {
			return nil, err
		}
		return e.eval(node)
	}
	return e.interpolate(s)
}

// eval evaluates node.
func (e evaluator) eval(node actionlint.ExprNode) (any, error) {
	switch n := node.(type) {
	case *actionlint.VariableNode:
		v, ok := lookup(map[string]any(e.ctx), n.Name)
		if !ok {
			return nil, fmt.Errorf("no context %q here", n.Name)
		}
		return v, nil
	case *actionlint.NullNode:
		return nil, nil
	case *actionlint.BoolNode:
		return n.Value, nil
	case *actionlint.IntNode:
		return float64(n.Value), nil
	case *actionlint.FloatNode:
		return n.Value, nil
	case *actionlint.StringNode:
		return n.Value, nil
	case *actionlint.ObjectDerefNode:
		recv, err := e.eval(n.Receiver)
		if err != nil {
			return nil, err
		}
		return property(recv, n.Property), nil
	case *actionlint.IndexAccessNode:
		recv, err := e.eval(n.Operand)
		if err != nil {
			return nil, err
		}
		idx, err := e.eval(n.Index)
		if err != nil {
			return nil, err
		}
		if a, ok := recv.([]any); ok {
			i := int(number(idx))
			if i < 0 || i >= len(a) || float64(i) != number(idx) {
				return nil, nil
			}
			return a[i], nil
		}
		return property(recv, str(idx)), nil
	case *actionlint.NotOpNode:
		v, err := e.eval(n.Operand)
		if err != nil {
			return nil, err
		}
		return !truthy(v), nil
	case *actionlint.LogicalOpNode:
		l, err := e.eval(n.Left)
		if err != nil {
			return nil, err
		}
		if (n.Kind == actionlint.LogicalOpNodeKindAnd) != truthy(l) {
			return l, nil
		}
		return e.eval(n.Right)
	case *actionlint.CompareOpNode:
		l, err := e.eval(n.Left)
		if err != nil {
			return nil, err
		}
		r, err := e.eval(n.Right)
		if err != nil {
			return nil, err
		}
		return compare(n.Kind, l, r), nil
	case *actionlint.FuncCallNode:
		return e.call(n)
	}
	return nil, fmt.Errorf("%T: an expression form the runner stand-in does not model", node)
}

// call evaluates a function call.
func (e evaluator) call(n *actionlint.FuncCallNode) (any, error) {
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		v, err := e.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	name := strings.ToLower(n.Callee)
	want := map[string]int{"success": 0, "failure": 0, "cancelled": 0, "always": 0, "fromjson": 1, "tojson": 1,
		"contains": 2, "startswith": 2, "endswith": 2}
	if k, ok := want[name]; ok && len(args) != k {
		return nil, fmt.Errorf("%s() takes %d arguments, not %d", n.Callee, k, len(args))
	}
	switch name {
	case "success":
		return e.status.ok(), nil
	case "failure":
		return e.status.failed && !e.status.cancelled, nil
	case "cancelled":
		return e.status.cancelled, nil
	case "always":
		return true, nil
	case "fromjson":
		var v any
		if err := json.Unmarshal([]byte(str(args[0])), &v); err != nil {
			return nil, fmt.Errorf("fromJSON(%q): %w", str(args[0]), err)
		}
		return v, nil
	case "tojson":
		data, err := json.MarshalIndent(args[0], "", "  ")
		return string(data), err
	case "contains":
		if a, ok := args[0].([]any); ok {
			for _, x := range a {
				if compare(actionlint.CompareOpNodeKindEq, x, args[1]).(bool) {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	case "startswith":
		return strings.HasPrefix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	case "endswith":
		return strings.HasSuffix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1]))), nil
	case "format":
		if len(args) == 0 {
			return nil, errors.New("format() takes a format string")
		}
		out := str(args[0])
		for i, a := range args[1:] {
			out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", str(a))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s(): a function the runner stand-in does not model", n.Callee)
}

// lookup finds name in m, whose keys GitHub matches ignoring case.
func lookup(m map[string]any, name string) (any, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// property is recv's property name, or null where recv has none, as GitHub gives it.
func property(recv any, name string) any {
	switch m := recv.(type) {
	case map[string]any:
		v, _ := lookup(m, name)
		return v
	case map[string]string:
		for k, v := range m {
			if strings.EqualFold(k, name) {
				return v
			}
		}
	}
	return nil
}

// truthy is GitHub's: false, 0, -0, NaN, "" and null are false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// number casts v to a number as GitHub does: null 0, true 1, false 0, a string its parsed value
// (0 where empty), else NaN.
func number(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		if strings.HasPrefix(s, "0x") {
			if n, err := strconv.ParseInt(s[2:], 16, 64); err == nil {
				return float64(n)
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

// compare applies a comparison as GitHub does: two strings ignoring case, values of one type as
// they are, mixed types as numbers; arrays and objects equal only to themselves.
func compare(kind actionlint.CompareOpNodeKind, l, r any) any {
	var c int
	ls, lok := l.(string)
	rs, rok := r.(string)
	switch {
	case lok && rok:
		c = strings.Compare(strings.ToLower(ls), strings.ToLower(rs))
	default:
		_, la := l.([]any)
		_, lm := l.(map[string]any)
		_, ra := r.([]any)
		_, rm := r.(map[string]any)
		if la || lm || ra || rm {
			same := fmt.Sprintf("%p", l) == fmt.Sprintf("%p", r)
			switch kind {
			case actionlint.CompareOpNodeKindEq:
				return same
			case actionlint.CompareOpNodeKindNotEq:
				return !same
			}
			return false
		}
		ln, rn := number(l), number(r)
		if math.IsNaN(ln) || math.IsNaN(rn) {
			return kind == actionlint.CompareOpNodeKindNotEq
		}
		switch {
		case ln < rn:
			c = -1
		case ln > rn:
			c = 1
		}
	}
	switch kind {
	case actionlint.CompareOpNodeKindEq:
		return c == 0
	case actionlint.CompareOpNodeKindNotEq:
		return c != 0
	case actionlint.CompareOpNodeKindLess:
		return c < 0
	case actionlint.CompareOpNodeKindLessEq:
		return c <= 0
	case actionlint.CompareOpNodeKindGreater:
		return c > 0
	case actionlint.CompareOpNodeKindGreaterEq:
		return c >= 0
	}
	return false
}

// str is v as GitHub writes a value into a string: null as ”, a number without a needless
// fraction, an array or object as JSON.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	data, _ := json.Marshal(v)
	return string(data)
}
