package report

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

func TestReportRendersEveryResult(t *testing.T) {
	dir := t.TempDir()
	for name, r := range map[string]results.Result{
		"b.json": {Experiment: "TestPingWaitsBehindCPU/cpu=1", Claims: []string{"W2"}, Mode: results.ModeLocal,
			Headline:  "p50 486.2 ms, p95 486.8, max 489.5 (n=20)",
			Verdict:   verdict.Verdict{Outcome: verdict.Pass, Reason: "2 checks hold"},
			Published: []results.Published{{Claim: "W2", Figure: "waited 20/20; p50 490 ms"}}},
		"a.json": {Experiment: "TestGoPingDoesNotWait/cpu=2", Claims: []string{"W5"},
			Verdict: verdict.Verdict{Outcome: verdict.Fail, Reason: "waited = 3/20 | want 0/20"}},
		"c.json": {Experiment: "TestPoolSlots/node24/default", Claims: []string{"P3"}, Mode: results.ModeLocal,
			Headline: "4 slots in 3/3 counts",
			Verdict:  verdict.Verdict{Outcome: verdict.Pass, Reason: "1 check holds"}},
	} {
		_, err := results.Write(filepath.Join(dir, "eventloop"), name, r)
		require.NoError(t, err)
	}
	broken := results.Result{Experiment: "TestCatchesBrokenProbes/W2", Claims: []string{"W2"}, Broken: "node-cpu-in-worker.js",
		Verdict: verdict.Verdict{Outcome: verdict.Fail, Reason: "waited 0/20"}}
	_, err := results.Write(filepath.Join(dir, results.SensitivityDir, "eventloop"), "s.json", broken)
	require.NoError(t, err)
	live := results.Result{Experiment: "TestPingWaitsBehindCPU/cpu=1", Claims: []string{"W2"}, Mode: results.ModeLive,
		Verdict: verdict.Verdict{Outcome: verdict.Pass, Reason: "2 checks hold"}}
	_, err = results.Write(filepath.Join(dir, results.ModeLive, "eventloop"), "b.json", live)
	require.NoError(t, err)
	s, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, s.Entries, 4)

	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, s))
	out := b.String()
	assert.Contains(t, out, "| W2 | `TestPingWaitsBehindCPU/cpu=1` | local |  | **pass** | p50 486.2 ms, p95 486.8, max 489.5 (n=20) | waited 20/20; p50 490 ms |")
	assert.Contains(t, out, `**fail**`)
	assert.Contains(t, out, "| W2 | `TestPingWaitsBehindCPU/cpu=1` | live |", "a live result has a row of its own, after the local one")
	assert.Contains(t, out, "| P3 | `TestPoolSlots/node24/default` | local |  | **pass** | 4 slots in 3/3 counts |", "a result without /ping shows its headline")
	assert.Contains(t, out, `waited = 3/20 \| want 0/20`, "a | in a reason must not split the row")
	assert.Less(t, strings.Index(out, "TestPingWaits"), strings.Index(out, "TestGoPing"), "rows in claim order: W2 before W5")
	assert.Less(t, strings.Index(out, "TestGoPing"), strings.Index(out, "TestPoolSlots"), "rows in claim order: W before P")
	assert.NotContains(t, out, "TestCatchesBroken", "a run against a broken probe is not a finding")
}

func TestReportRefusesABrokenRunAmongFindings(t *testing.T) {
	dir := t.TempDir()
	_, err := results.Write(filepath.Join(dir, "eventloop"), "s.json", results.Result{Experiment: "TestX", Claims: []string{"W2"}, Broken: "a broken probe"})
	require.NoError(t, err)
	_, err = Load(dir)
	assert.ErrorContains(t, err, "broken on purpose", "load = nil error; want a broken run outside sensitivity/ refused")
}

func TestRuntimeOfAGoProbeIsGoThoughItsLauncherIsNode(t *testing.T) {
	env := results.Environment{Go: "go1.26.8", Node: "v24.22.3"}
	goProbe := Entry{Result: results.Result{Environment: env, Target: json.RawMessage(`{"runtime":"go"}`)}}
	nodeProbe := Entry{Result: results.Result{Environment: env, Target: json.RawMessage(`{"runtime":"node"}`)}}
	function := Entry{Result: results.Result{Environment: results.Environment{Go: "go1.26.8"}, Target: json.RawMessage(`{"platform":{}}`)}}
	assert.Equal(t, "Go 1.26.8", goProbe.Runtime())
	assert.Equal(t, "Node v24.22.3", nodeProbe.Runtime())
	assert.Equal(t, "Go 1.26.8", function.Runtime())
}

// TestTheReportLinksNoAWSSDK: cmd/report reads results and prices cold starts from
// harness/aws/prices, so no package of the AWS SDK is linked into it.
func TestTheReportLinksNoAWSSDK(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "github.com/serverless-claims/claims/cmd/report").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	var sdk []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/aws/") {
			sdk = append(sdk, p)
		}
	}
	assert.Empty(t, sdk, "AWS SDK packages cmd/report links = %d (%v); want none", len(sdk), sdk[:min(len(sdk), 3)])
}
