package ghstub

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gh runs the fake on state with GH_TOKEN set to token: its exit status and its output.
func gh(t *testing.T, state, token string, args ...string) (int, string) {
	t.Helper()
	t.Setenv("GH_TOKEN", token)
	t.Setenv(FailEnv, "")
	var out bytes.Buffer
	code := Main(state, args, &out, &out)
	return code, out.String()
}

// newState writes a repository with two workflows and the given tokens, and gives its file.
func newState(t *testing.T, tokens map[string]map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gh.json")
	require.NoError(t, Write(path, State{Tokens: tokens, Workflows: map[string]Workflow{
		"claims.yml": {State: "disabled_inactivity", UpdatedAt: "2026-10-01T00:00:00Z"},
	}}))
	return path
}

// TestATokenDoesWhatItsPermissionsAllow: with tokens on record, a call needs GH_TOKEN to be one,
// and a write needs its scope's write permission, as GitHub answers a job's GITHUB_TOKEN.
func TestATokenDoesWhatItsPermissionsAllow(t *testing.T) {
	state := newState(t, map[string]map[string]string{
		"reader": {"contents": "read"},
		"issues": {"issues": "write"},
		"beat":   {"actions": "write"},
	})
	cases := []struct {
		token string
		args  []string
		code  int
		says  string
	}{
		{"", []string{"issue", "list", "--label", "claim-flip"}, 1, "set the GH_TOKEN environment variable"},
		{"stolen", []string{"issue", "list", "--label", "claim-flip"}, 1, "Bad credentials (HTTP 401)"},
		{"reader", []string{"issue", "create", "--title", "T1 flipped", "--label", "claim-flip"}, 1, "HTTP 403"},
		{"issues", []string{"issue", "create", "--title", "T1 flipped", "--label", "claim-flip"}, 0, ""},
		{"issues", []string{"api", "-X", "PUT", "repos/o/r/actions/workflows/claims.yml/enable"}, 1, "HTTP 403"},
		{"beat", []string{"api", "-X", "PUT", "repos/o/r/actions/workflows/claims.yml/enable"}, 0, ""},
		{"beat", []string{"api", "repos/o/r/actions/workflows/claims.yml", "--jq", ".state"}, 0, "active"},
	}
	for _, tc := range cases {
		code, out := gh(t, state, tc.token, tc.args...)
		assert.Equal(t, tc.code, code, "gh %s with token %q: exit = %d; want %d (%s)", strings.Join(tc.args, " "), tc.token, code, tc.code, out)
		assert.Contains(t, out, tc.says, "gh %s with token %q: output", strings.Join(tc.args, " "), tc.token)
	}
	st, err := Read(state)
	require.NoError(t, err)
	assert.Len(t, st.Issues, 1, "issues opened (calls %v)", st.Calls)
	assert.Len(t, st.Calls, len(cases), "calls on record, refused ones included")
}

// TestWithoutTokensEveryCallIsAllowed: a state with no tokens is the repository cmd/history's
// tests use, where any GH_TOKEN writes, unless ReadOnly.
func TestWithoutTokensEveryCallIsAllowed(t *testing.T) {
	state := newState(t, nil)
	code, out := gh(t, state, "", "issue", "create", "--title", "t", "--label", "l")
	assert.Equal(t, 0, code, "issue create without tokens on record: exit (%s)", out)

	st, err := Read(state)
	require.NoError(t, err)
	st.ReadOnly = true
	require.NoError(t, Write(state, st))
	code, out = gh(t, state, "", "api", "-X", "PUT", "repos/o/r/actions/workflows/claims.yml/enable")
	assert.Equal(t, 1, code, "enable on a read-only repository: exit (%s)", out)
	assert.Contains(t, out, "HTTP 403")
}
