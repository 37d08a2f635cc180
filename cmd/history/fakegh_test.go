package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/serverless-claims/claims/harness/standin/ghstub"
	"github.com/stretchr/testify/require"
)

// TestMain runs the fake gh (harness/standin/ghstub) where the binary is started as one, that is
// where ghstub.StateEnv is set, else the tests.
func TestMain(m *testing.M) {
	if state := os.Getenv(ghstub.StateEnv); state != "" {
		os.Exit(ghstub.Main(state, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// The fake's names, as this package's tests use them.
type (
	ghState    = ghstub.State
	ghWorkflow = ghstub.Workflow
)

const fakeGHFailEnv = ghstub.FailEnv

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
	t.Setenv(ghstub.StateEnv, state)
	t.Setenv(fakeGHFailEnv, "")
	return state
}

// readGH reads the fake's repository.
func readGH(t *testing.T, state string) ghState {
	t.Helper()
	st, err := ghstub.Read(state)
	require.NoError(t, err)
	return st
}
