package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// ghState is the fake's repository: its issues, and every call made.
type ghState struct {
	Issues []ghIssue `json:"issues"`
	Calls  []string  `json:"calls"`
}

type ghIssue struct {
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	Label    string   `json:"label"`
	Bodies   []string `json:"bodies"` // the body it was opened with, then each comment's
	Comments int      `json:"comments"`
}

// fakeGH answers the gh calls ghSink makes: label create, issue list (open, by label), issue
// create and issue comment.
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
