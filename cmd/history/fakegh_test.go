package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeGHEnv names the state file of the fake gh: where it is set, this test binary, run as gh,
// is the fake (TestMain), keeping the repository's issues in that file as GitHub would. Where
// fakeGHFailEnv is "1" too, every call fails, as gh does without network or token.
const (
	fakeGHEnv     = "CLAIMS_FAKE_GH_STATE"
	fakeGHFailEnv = "CLAIMS_FAKE_GH_FAIL"
)

// TestMain runs the fake gh where the binary is started as one, else the tests.
func TestMain(m *testing.M) {
	if state := os.Getenv(fakeGHEnv); state != "" {
		os.Exit(fakeGH(state, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// ghState is the fake's repository: its issues, its workflows by file name, and every call made.
type ghState struct {
	Issues    []ghIssue             `json:"issues"`
	Workflows map[string]ghWorkflow `json:"workflows,omitempty"`
	// ReadOnly makes the token one that reads and does not write: a PUT is refused with 403,
	// as GitHub refuses a GITHUB_TOKEN without actions: write.
	ReadOnly bool     `json:"read_only,omitempty"`
	Calls    []string `json:"calls"`
}

// ghWorkflow is a workflow as the REST API's "Get a workflow" gives it, in the fields the
// heartbeat reads: its state (active, disabled_inactivity, disabled_manually, disabled_fork) and
// when it last changed.
type ghWorkflow struct {
	State     string `json:"state"`
	UpdatedAt string `json:"updated_at"`
}

type ghIssue struct {
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	Label    string   `json:"label"`
	Bodies   []string `json:"bodies"` // the body it was opened with, then each comment's
	Comments int      `json:"comments"`
}

// fakeGH answers the gh calls ghSink makes: label create, issue list (open, by label), issue
// create and issue comment; and the workflow heartbeat's (fakeGHAPI).
func fakeGH(path string, args []string) int {
	if os.Getenv(fakeGHFailEnv) == "1" {
		fmt.Fprintln(os.Stderr, "error connecting to api.github.com")
		return 1
	}
	var st ghState
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	st.Calls = append(st.Calls, fmt.Sprint(args))
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
	switch args[0] + " " + args[1] {
	case "api " + args[1]:
		if code := fakeGHAPI(&st, args[1:]); code != 0 {
			return code
		}
	case "label create":
	case "issue list":
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
		json.NewEncoder(os.Stdout).Encode(out)
	case "issue create":
		st.Issues = append(st.Issues, ghIssue{Number: len(st.Issues) + 1, Title: flag("--title"), Label: flag("--label"), Bodies: []string{body()}})
	case "issue comment":
		n, _ := strconv.Atoi(args[2])
		if n < 1 || n > len(st.Issues) {
			fmt.Fprintf(os.Stderr, "no issue %d\n", n)
			return 1
		}
		st.Issues[n-1].Bodies = append(st.Issues[n-1].Bodies, body())
		st.Issues[n-1].Comments++
	default:
		fmt.Fprintf(os.Stderr, "fake gh: no %v\n", args)
		return 1
	}
	data, _ := json.Marshal(st)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// installFakeGH puts the fake gh first on PATH for this test, with a repository of no issues,
// and gives its state file.
func installFakeGH(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(exe, filepath.Join(bin, "gh")))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	state := filepath.Join(t.TempDir(), "gh.json")
	t.Setenv(fakeGHEnv, state)
	t.Setenv(fakeGHFailEnv, "")
	return state
}

// readGH reads the fake's repository.
func readGH(t *testing.T, state string) ghState {
	t.Helper()
	var st ghState
	data, err := os.ReadFile(state)
	if os.IsNotExist(err) {
		return st
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &st))
	return st
}

// workflowAPI is the path of a workflow in the REST API, by its file name, with /enable after it
// for "Enable a workflow".
var workflowAPI = regexp.MustCompile(`^repos/[^/]+/[^/]+/actions/workflows/([^/]+)(/enable)?$`)

// fakeGHAPI answers gh api on a workflow: GET gives it (through --jq where given), PUT on its
// /enable makes it active and changes its updated_at, as GitHub does, or is refused where the
// token is read-only; any other call fails, naming it.
func fakeGHAPI(st *ghState, args []string) int {
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
			fmt.Fprintf(os.Stderr, "fake gh api: no argument %q\n", args[i])
			return 1
		}
	}
	m := workflowAPI.FindStringSubmatch(path)
	if m == nil {
		fmt.Fprintf(os.Stderr, "fake gh api: no path %q\n", path)
		return 1
	}
	w, ok := st.Workflows[m[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "gh: Not Found (HTTP 404)")
		return 1
	}
	switch {
	case method == "PUT" && m[2] == "/enable" && st.ReadOnly:
		fmt.Fprintln(os.Stderr, "gh: Resource not accessible by integration (HTTP 403)")
		return 1
	case method == "PUT" && m[2] == "/enable":
		w.State, w.UpdatedAt = "active", fmt.Sprintf("2026-12-03T04:%02d:00Z", len(st.Calls))
		st.Workflows[m[1]] = w
	case method == "GET" && m[2] == "":
		out, err := fakeJQ(w, jq)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake gh api:", err)
			return 1
		}
		fmt.Println(out)
	default:
		fmt.Fprintf(os.Stderr, "fake gh api: no %s %s\n", method, path)
		return 1
	}
	return 0
}

// fakeJQ evaluates the part of jq the heartbeat uses on w: fields (.state) and string literals
// joined by +, printed raw as gh api --jq prints a string. Without an expression, w as JSON.
func fakeJQ(w ghWorkflow, expr string) (string, error) {
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
