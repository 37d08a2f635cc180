package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

func TestSummaryVerdictsEqualTheFiles(t *testing.T) {
	dirs := map[string]string{"written here": writeMixedSet(t)}
	if d := os.Getenv(reportDirEnv); d != "" {
		dirs[reportDirEnv+"="+d] = d
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			files := resultFiles(t, dir)
			require.NotEmpty(t, files, "no result files under %s", dir)
			s, err := Load(dir)
			require.NoError(t, err)

			var page, md strings.Builder
			require.NoError(t, WriteHTML(&page, s, time.Now()))
			require.NoError(t, WriteMarkdown(&md, s))
			for _, shown := range []struct {
				form string
				rows map[string]string
			}{
				{"HTML", htmlVerdicts(page.String())},
				{"Markdown", markdownVerdicts(md.String())},
			} {
				assert.Len(t, shown.rows, len(files), "%s summary rows = %d; want one per result file (%d)", shown.form, len(shown.rows), len(files))
				for path, want := range files {
					assert.Equal(t, want, shown.rows[path], "%s summary verdict of %s = %q; want %q, the file's", shown.form, path, shown.rows[path], want)
				}
			}
		})
	}
}

// writeMixedSet writes results of every outcome, a refutation the test asserts among them, in
// several folders, the way the experiments do.
func writeMixedSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range []struct {
		folder string
		res    results.Result
	}{
		{"eventloop", results.Result{Experiment: "TestPingWaitsBehindCPU/cpu=1", Claims: []string{"W2"}, Mode: results.ModeLocal,
			Verdict: verdict.Verdict{Outcome: verdict.Pass}}},
		{"eventloop", results.Result{Experiment: "TestGoPingDoesNotWait/cpu=2", Claims: []string{"W5"}, Mode: results.ModeLocal,
			Verdict: verdict.Verdict{Outcome: verdict.Inconclusive}}},
		{"threadpool", results.Result{Experiment: "TestSharedPoolInterference/node24/P7", Claims: []string{"P7"}, Mode: results.ModeLocal,
			Verdict: verdict.Verdict{Outcome: verdict.Fail}, Expected: &results.Expected{Outcome: verdict.Fail, Why: "a reason"}}},
		{"threadpool", results.Result{Experiment: "TestPoolSlots/node20", Claims: []string{"P3"}, Mode: results.ModeLocal,
			Verdict: verdict.Verdict{Outcome: verdict.Fail}}},
		{"live/coldstart", results.Result{Experiment: "TestThrottleSlices", Claims: []string{"T8"}, Mode: results.ModeLive,
			Verdict: verdict.Verdict{Outcome: verdict.Pass}}},
	} {
		_, err := results.Write(filepath.Join(dir, r.folder), results.FileName(r.res.Experiment), r.res)
		require.NoError(t, err)
	}
	return dir
}

// resultFiles reads the verdict of each of ResultFiles(dir) (the findings, not results/sensitivity,
// the runtime matrix or the schema) straight from its JSON, not through Load, by its path
// relative to dir.
func resultFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, err := ResultFiles(dir)
	require.NoError(t, err)
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		require.NoError(t, err)
		var r struct {
			Verdict struct{ Outcome string } `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal(data, &r), "reading %s", rel)
		out[rel] = r.Verdict.Outcome
	}
	return out
}

// htmlVerdicts are the summary table's rows of a page: the file each names and its verdict.
func htmlVerdicts(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<tr data-source="([^"]+)" data-verdict="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// markdownVerdicts are the Markdown table's rows: the file (last cell) and the bold verdict,
// without " (refutation asserted)".
func markdownVerdicts(md string) map[string]string {
	out := map[string]string{}
	row := regexp.MustCompile(`\| \*\*([a-z]+)[^*]*\*\* \|.*\| ` + "`([^`]+)`" + ` \|$`)
	for _, line := range strings.Split(md, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			out[m[2]] = m[1]
		}
	}
	return out
}
