// Package ghstub is a stand-in of GitHub's CLI, gh, for the calls this repository's workflows and
// cmd/history make: label create, issue list (open, by label), issue create and issue comment (the
// history's alerts), and gh api on a workflow (the heartbeat's GET and PUT .../enable). It keeps
// the repository's state (its issues, its workflows, every call) in a JSON file, so that a test,
// or the runner stand-in's workflow runner, reads what a run did to the repository.
//
// A program becomes the fake by calling Main where StateEnv is set (a test binary's TestMain, or
// a binary linked on PATH as gh). Where FailEnv is "1", every call fails, as gh does without
// network. Where the state holds Tokens, gh needs GH_TOKEN to be one of them, as in a workflow,
// and a write needs that token's permission: as GitHub refuses a GITHUB_TOKEN without it.
package ghstub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// StateEnv names the fake's state file; FailEnv, where "1", makes every call fail.
const (
	StateEnv = "CLAIMS_FAKE_GH_STATE"
	FailEnv  = "CLAIMS_FAKE_GH_FAIL"
)

// State is the fake's repository: its issues, its workflows by file name, the tokens it accepts,
// and every call made.
type State struct {
	Issues    []Issue             `json:"issues"`
	Workflows map[string]Workflow `json:"workflows,omitempty"`
	// ReadOnly makes every token one that reads and does not write: a PUT is refused with 403, as
	// GitHub refuses a GITHUB_TOKEN without actions: write.
	ReadOnly bool `json:"read_only,omitempty"`
	// Tokens, where set, are the tokens gh accepts in GH_TOKEN, each with its permissions by
	// scope ("actions": "write"), as a workflow job's GITHUB_TOKEN has its job's.
	Tokens map[string]map[string]string `json:"tokens,omitempty"`
	Calls  []string                     `json:"calls"`
}

// Workflow is a workflow as the REST API's "Get a workflow" gives it, in the fields the heartbeat
// reads: its state (active, disabled_inactivity, disabled_manually, disabled_fork) and when it
// last changed.
type Workflow struct {
	State     string `json:"state"`
	UpdatedAt string `json:"updated_at"`
}

// Issue is an issue of the fake's repository.
type Issue struct {
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	Label    string   `json:"label"`
	Bodies   []string `json:"bodies"` // the body it was opened with, then each comment's
	Comments int      `json:"comments"`
}

// Read reads the state file at path; a file not yet written is a repository with nothing in it.
func Read(path string) (State, error) {
	var st State
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// Write writes st to the state file at path.
func Write(path string, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Main is gh with args, on the state file at path: its output on stdout and stderr, its exit
// status returned.
func Main(path string, args []string, stdout, stderr io.Writer) int {
	if os.Getenv(FailEnv) == "1" {
		fmt.Fprintln(stderr, "error connecting to api.github.com")
		return 1
	}
	st, err := Read(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	st.Calls = append(st.Calls, fmt.Sprint(args))
	if code := run(&st, args, stdout, stderr); code != 0 {
		// The call is on record, as GitHub logs a refused request.
		if err := Write(path, st); err != nil {
			fmt.Fprintln(stderr, err)
		}
		return code
	}
	if err := Write(path, st); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// run answers one call on st.
func run(st *State, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintf(stderr, "fake gh: no %v\n", args)
		return 1
	}
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	body := func() string {
		data, _ := os.ReadFile(flag("--body-file"))
		return string(data)
	}
	// may says whether the call's token may do what needs scope at level ("read" or "write"),
	// and where not, says so as gh does.
	may := func(scope, level string) bool {
		if st.Tokens == nil {
			if st.ReadOnly && level == "write" {
				fmt.Fprintln(stderr, "gh: Resource not accessible by integration (HTTP 403)")
				return false
			}
			return true
		}
		token := os.Getenv("GH_TOKEN")
		perms, ok := st.Tokens[token]
		switch {
		case token == "":
			fmt.Fprintln(stderr, "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.")
			return false
		case !ok:
			fmt.Fprintln(stderr, "gh: Bad credentials (HTTP 401)")
			return false
		case perms[scope] == "write" || (level == "read" && perms[scope] == "read"):
			return true
		}
		fmt.Fprintln(stderr, "gh: Resource not accessible by integration (HTTP 403)")
		return false
	}
	switch args[0] + " " + args[1] {
	case "api " + args[1]:
		return api(st, args[1:], may, stdout, stderr)
	case "label create":
		if !may("issues", "write") {
			return 1
		}
	case "issue list":
		if !may("issues", "read") {
			return 1
		}
		type listed struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
		}
		out := []listed{}
		for _, i := range st.Issues {
			if i.Label == flag("--label") {
				out = append(out, listed{i.Number, i.Title})
			}
		}
		json.NewEncoder(stdout).Encode(out)
	case "issue create":
		if !may("issues", "write") {
			return 1
		}
		st.Issues = append(st.Issues, Issue{Number: len(st.Issues) + 1, Title: flag("--title"), Label: flag("--label"), Bodies: []string{body()}})
	case "issue comment":
		if !may("issues", "write") {
			return 1
		}
		n, _ := strconv.Atoi(args[2])
		if n < 1 || n > len(st.Issues) {
			fmt.Fprintf(stderr, "no issue %d\n", n)
			return 1
		}
		st.Issues[n-1].Bodies = append(st.Issues[n-1].Bodies, body())
		st.Issues[n-1].Comments++
	default:
		fmt.Fprintf(stderr, "fake gh: no %v\n", args)
		return 1
	}
	return 0
}

// workflowAPI is the path of a workflow in the REST API, by its file name, with /enable after it
// for "Enable a workflow".
var workflowAPI = regexp.MustCompile(`^repos/[^/]+/[^/]+/actions/workflows/([^/]+)(/enable)?$`)

// api answers gh api on a workflow: GET gives it (through --jq where given), PUT on its /enable
// makes it active and changes its updated_at, as GitHub does, or is refused where the token may
// not write; any other call fails, naming it.
func api(st *State, args []string, may func(scope, level string) bool, stdout, stderr io.Writer) int {
	method, jq, path := "GET", "", ""
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-X" && i+1 < len(args):
			method, i = args[i+1], i+1
		case args[i] == "--jq" && i+1 < len(args):
			jq, i = args[i+1], i+1
		case path == "":
			path = args[i]
		default:
			fmt.Fprintf(stderr, "fake gh api: no argument %q\n", args[i])
			return 1
		}
	}
	m := workflowAPI.FindStringSubmatch(path)
	if m == nil {
		fmt.Fprintf(stderr, "fake gh api: no path %q\n", path)
		return 1
	}
	level := "read"
	if method != "GET" {
		level = "write"
	}
	if !may("actions", level) {
		return 1
	}
	w, ok := st.Workflows[m[1]]
	if !ok {
		fmt.Fprintln(stderr, "gh: Not Found (HTTP 404)")
		return 1
	}
	switch {
	case method == "PUT" && m[2] == "/enable":
		w.State, w.UpdatedAt = "active", fmt.Sprintf("2026-12-03T04:%02d:00Z", len(st.Calls))
		st.Workflows[m[1]] = w
	case method == "GET" && m[2] == "":
		out, err := jqOf(w, jq)
		if err != nil {
			fmt.Fprintln(stderr, "fake gh api:", err)
			return 1
		}
		fmt.Fprintln(stdout, out)
	default:
		fmt.Fprintf(stderr, "fake gh api: no %s %s\n", method, path)
		return 1
	}
	return 0
}

// jqOf evaluates the part of jq the heartbeat uses on w: fields (.state) and string literals
// joined by +, printed raw as gh api --jq prints a string. Without an expression, w as JSON.
func jqOf(w Workflow, expr string) (string, error) {
	if expr == "" {
		data, err := json.Marshal(w)
		return string(data), err
	}
	fields := map[string]string{".state": w.State, ".updated_at": w.UpdatedAt}
	var out strings.Builder
	for term := range strings.SplitSeq(expr, "+") {
		term = strings.TrimSpace(term)
		if v, ok := fields[term]; ok {
			out.WriteString(v)
			continue
		}
		lit, err := strconv.Unquote(term)
		if err != nil {
			return "", fmt.Errorf("no jq term %q in %q", term, expr)
		}
		out.WriteString(lit)
	}
	return out.String(), nil
}
