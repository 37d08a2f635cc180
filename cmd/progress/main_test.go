package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

const module = "github.com/serverless-claims/claims"

var start = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// stream builds a `go test -json` stream as test2json writes it, its times in seconds from start.
type stream struct {
	t     *testing.T
	lines []string
}

func (s *stream) event(sec float64, fields map[string]any) {
	s.t.Helper()
	if sec >= 0 {
		fields["Time"] = start.Add(time.Duration(sec * float64(time.Second)))
	}
	data, err := json.Marshal(fields)
	require.NoError(s.t, err)
	s.lines = append(s.lines, string(data))
}

func (s *stream) pkgStart(sec float64, pkg string) {
	s.event(sec, map[string]any{"Action": "start", "Package": module + "/" + pkg})
}

func (s *stream) out(sec float64, pkg, test, text string) {
	s.event(sec, map[string]any{"Action": "output", "Package": module + "/" + pkg, "Test": test, "Output": text})
}

func (s *stream) run(sec float64, pkg, test string) {
	s.event(sec, map[string]any{"Action": "run", "Package": module + "/" + pkg, "Test": test})
	s.out(sec, pkg, test, "=== RUN   "+test+"\n")
}

func (s *stream) end(sec float64, pkg, test, action string) {
	s.out(sec, pkg, test, fmt.Sprintf("--- %s: %s (1.00s)\n", strings.ToUpper(action), test))
	s.event(sec, map[string]any{"Action": action, "Package": module + "/" + pkg, "Test": test, "Elapsed": 1.0})
}

func (s *stream) pkgEnd(sec float64, pkg, action string) {
	word := map[string]string{"pass": "ok  ", "fail": "FAIL"}[action]
	s.out(sec, pkg, "", fmt.Sprintf("%s\t%s/%s\t%.3fs\n", word, module, pkg, sec))
	s.event(sec, map[string]any{"Action": action, "Package": module + "/" + pkg, "Elapsed": sec})
}

// buildFail is a package whose test binary did not compile, as go test -json reports it.
func (s *stream) buildFail(sec float64, pkg string) {
	p := module + "/" + pkg
	ip := p + " [" + p + ".test]"
	s.event(-1, map[string]any{"Action": "build-output", "ImportPath": ip, "Output": "# " + ip + "\n"})
	s.event(-1, map[string]any{"Action": "build-output", "ImportPath": ip, "Output": pkg + "/x.go:1:23: undefined: x\n"})
	s.event(-1, map[string]any{"Action": "build-fail", "ImportPath": ip})
	s.pkgStart(sec, pkg)
	s.out(sec, pkg, "", "FAIL\t"+p+" [build failed]\n")
	s.event(sec, map[string]any{"Action": "fail", "Package": p, "Elapsed": 0, "FailedBuild": ip})
}

func (s *stream) String() string { return strings.Join(s.lines, "\n") + "\n" }

// logCapture is a test's TB whose Logf is kept: claimtest.Record's line, as the claim tests log it.
type logCapture struct {
	testing.TB
	logged []string
}

func (c *logCapture) Logf(format string, args ...any) {
	c.logged = append(c.logged, fmt.Sprintf(format, args...))
}

// record writes a result for test under root/results/eventloop (the testdata result's family) with claimtest.Record, as a claim
// test does, and returns the output line its log makes in go test's verbose output. edit changes
// the result before it is written.
func record(t *testing.T, root, test, claim string, outcome verdict.Outcome, reason string, expected *results.Expected, edit ...func(*results.Result)) string {
	t.Helper()
	t.Setenv(results.DirEnv, filepath.Join(root, "results"))
	base, err := repo.Path("harness/claim/results/testdata/eventloop-result.json")
	require.NoError(t, err)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	var res results.Result
	require.NoError(t, json.Unmarshal(data, &res))
	res.Experiment, res.Claims = test, []string{claim}
	res.Published, err = results.PublishedFor(res.Claims)
	require.NoError(t, err)
	res.Verdict = verdict.Verdict{Outcome: outcome, Reason: reason, Checks: res.Verdict.Checks}
	res.Expected = expected
	for _, e := range edit {
		e(&res)
	}
	c := &logCapture{TB: t}
	claimtest.Record(c, res)
	require.Len(t, c.logged, 1, "lines claimtest.Record logged")
	// testing indents a message's later lines under its first.
	return "    claims_test.go:76: " + strings.ReplaceAll(c.logged[0], "\n", "\n        ") + "\n"
}

// progress runs progress over in as the experiments-local run started at start.
func progress(t *testing.T, root, in string, expect time.Duration) (string, bool) {
	t.Helper()
	var out strings.Builder
	ok, err := run(strings.NewReader(in), &out, options{Name: "experiments-local", Expect: expect, Root: root, Module: module, Start: start})
	require.NoError(t, err)
	return out.String(), ok
}

// lines are the lines of out that progress wrote: results' and the summary's.
func progressLines(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[ ") || strings.HasPrefix(l, "progress: ") {
			got = append(got, l)
		}
	}
	return got
}

func TestAFailingRunReportsEachVerdictAndTheFailures(t *testing.T) {
	root := t.TempDir()
	refuted := &results.Expected{Outcome: verdict.Fail, Why: "libuv runs getaddrinfo as slow I/O"}
	s := &stream{t: t}
	s.lines = append(s.lines, "go: downloading example.com/m v1.0.0")
	s.pkgStart(0.5, "experiments/threadpool")
	s.out(0.6, "experiments/threadpool", "", "setup: Node v24.22.3 is in .cache/node24\n")

	s.run(1.0, "experiments/threadpool", "TestSyncOnRequestPath")
	s.run(1.0, "experiments/threadpool", "TestSyncOnRequestPath/node24")
	pass := record(t, root, "TestSyncOnRequestPath/node24", "P10", verdict.Pass, "over 8/8 evidential trials: blocked = 8/8 (want 8/8)", nil)
	// test2json cuts a very long line into pieces; the verdict is read from the whole.
	s.out(42.7, "experiments/threadpool", "TestSyncOnRequestPath/node24", pass[:30])
	s.out(42.7, "experiments/threadpool", "TestSyncOnRequestPath/node24", pass[30:])
	s.end(42.8, "experiments/threadpool", "TestSyncOnRequestPath/node24", "pass")
	s.end(42.8, "experiments/threadpool", "TestSyncOnRequestPath", "pass")

	s.run(50.0, "experiments/threadpool", "TestDNSStarvesFileReads")
	s.out(60.5, "experiments/threadpool", "TestDNSStarvesFileReads",
		record(t, root, "TestDNSStarvesFileReads", "P7", verdict.Fail, "reads waiting = 0/8; want 8/8 (pool of 4)", refuted))
	s.out(60.5, "experiments/threadpool", "TestDNSStarvesFileReads", "    claims_test.go:80: [P7] refuted, as measured before: libuv runs getaddrinfo as slow I/O\n")
	s.end(60.6, "experiments/threadpool", "TestDNSStarvesFileReads", "pass")

	s.run(270.3, "experiments/threadpool", "TestPingWaitsBehindCPU")
	s.out(312.0, "experiments/threadpool", "TestPingWaitsBehindCPU",
		record(t, root, "TestPingWaitsBehindCPU", "W2", verdict.Fail, "/ping p50 / spin = 0.20; want within [0.90, 1.20]", nil))
	s.out(312.0, "experiments/threadpool", "TestPingWaitsBehindCPU", "    claims_test.go:90: verdict for [W2]: ...\n")
	s.end(312.1, "experiments/threadpool", "TestPingWaitsBehindCPU", "fail")

	s.run(312.2, "experiments/threadpool", "TestSecondCPU")
	s.run(312.2, "experiments/threadpool", "TestSecondCPU/go")
	// A reason of two lines: the event carries it escaped, on one line.
	s.out(319.0, "experiments/threadpool", "TestSecondCPU/go",
		record(t, root, "TestSecondCPU/go", "W3", verdict.Inconclusive, "only 3/8 trials were evidence;\nat least half are needed", nil))
	s.end(319.1, "experiments/threadpool", "TestSecondCPU/go", "fail")
	s.end(319.1, "experiments/threadpool", "TestSecondCPU", "fail")
	s.pkgEnd(319.2, "experiments/threadpool", "fail")
	s.buildFail(320.0, "experiments/coldstart")

	out, ok := progress(t, root, s.String(), 14*time.Minute)
	assert.False(t, ok, "ok = true; want false (a test and a build failed)")
	assert.Equal(t, []string{
		"progress: experiments-local: expecting ~14m (estimate: no complete run recorded yet)",
		"[ 42.7s of ~14m (estimate) ] P10 pass  TestSyncOnRequestPath/node24  (41.7s)  -> results/eventloop/TestSyncOnRequestPath--node24.json",
		"[ 1m01s of ~14m (estimate) ] P7 fail, refutation asserted  TestDNSStarvesFileReads  (10.5s)  -> results/eventloop/TestDNSStarvesFileReads.json",
		"[ 5m12s of ~14m (estimate) ] W2 fail  TestPingWaitsBehindCPU  (41.7s)  -> results/eventloop/TestPingWaitsBehindCPU.json",
		"[ 5m19s of ~14m (estimate) ] W3 inconclusive  TestSecondCPU/go  (6.8s)  -> results/eventloop/TestSecondCPU--go.json",
		"progress: experiments-local FAIL in 5m20s, expected ~14m (estimate): pass 1 / fail 1 / fail-asserted 1 / inconclusive 1",
		"progress: failed: experiments/coldstart [build failed]",
		"progress: failed: TestPingWaitsBehindCPU (experiments/threadpool)",
		"progress: failed: TestSecondCPU/go (experiments/threadpool)",
	}, progressLines(out), "progress lines (whole output:\n%s)", out)

	for _, through := range []string{"go: downloading example.com/m v1.0.0\n", "setup: Node v24.22.3 is in .cache/node24\n",
		pass, "--- FAIL: TestSecondCPU/go (1.00s)\n", "experiments/coldstart/x.go:1:23: undefined: x\n"} {
		assert.Contains(t, out, through, "output passed through; want %q in it", through)
	}
	assert.NoFileExists(t, recordPath(root, "experiments-local"), "a run with a build failure recorded its duration; want only complete runs")
}

// passingRun is a complete run of one claim, its result written, ending at end seconds.
func passingRun(t *testing.T, root string, end float64) string {
	t.Helper()
	s := &stream{t: t}
	s.pkgStart(0.5, "experiments/eventloop")
	s.run(1.0, "experiments/eventloop", "TestPingOnlyBaseline")
	s.out(end-1, "experiments/eventloop", "TestPingOnlyBaseline",
		record(t, root, "TestPingOnlyBaseline", "W1", verdict.Pass, "over 8/8 evidential trials: /ping p50 = 0.71 ms (want at most 1.00 ms)", nil))
	s.end(end-0.5, "experiments/eventloop", "TestPingOnlyBaseline", "pass")
	s.pkgEnd(end, "experiments/eventloop", "pass")
	return s.String()
}

func TestACompleteRunIsTheNextRunsExpectedTotal(t *testing.T) {
	root := t.TempDir()
	out, ok := progress(t, root, passingRun(t, root, 312.4), 14*time.Minute)
	assert.True(t, ok, "ok = false; want true (every test passed; output:\n%s)", out)
	assert.Contains(t, out, "progress: experiments-local ok in 5m12s, expected ~14m (estimate): pass 1 / fail 0 / fail-asserted 0 / inconclusive 0\n")

	data, err := os.ReadFile(recordPath(root, "experiments-local"))
	require.NoError(t, err, "the complete run's duration not recorded")
	var rec recorded
	require.NoError(t, json.Unmarshal(data, &rec), "recorded durations: %s", data)
	assert.InDelta(t, 312.4, rec.TotalSeconds, 1e-6, "recorded total = %v s; want 312.4 (the last event's time)", rec.TotalSeconds)
	left, err := os.ReadDir(filepath.Dir(recordPath(root, "experiments-local")))
	require.NoError(t, err)
	assert.Len(t, left, 1, "files in .cache/progress = %v; want only experiments-local.json, written whole", left)

	// The next run expects what this one took, whatever -expect says.
	out, ok = progress(t, root, passingRun(t, root, 100), 14*time.Minute)
	assert.True(t, ok, "second run ok = false; want true (output:\n%s)", out)
	assert.Equal(t, []string{
		"progress: experiments-local: expecting ~5m, as the last complete run took (" + start.Add(312400*time.Millisecond).Local().Format("2006-01-02 15:04") + ")",
		"[ 1m39s of ~5m ] W1 pass  TestPingOnlyBaseline  (1m38s)  -> results/eventloop/TestPingOnlyBaseline.json",
		"progress: experiments-local ok in 1m40s, expected ~5m: pass 1 / fail 0 / fail-asserted 0 / inconclusive 0",
	}, progressLines(out), "second run's progress lines (whole output:\n%s)", out)
}

func TestInputEndingBeforeTheRunFailsAndRecordsNothing(t *testing.T) {
	root := t.TempDir()
	_, ok := progress(t, root, passingRun(t, root, 300), 0)
	require.True(t, ok)
	before, err := os.ReadFile(recordPath(root, "experiments-local"))
	require.NoError(t, err)

	s := &stream{t: t}
	s.pkgStart(0.5, "experiments/eventloop")
	s.run(1.0, "experiments/eventloop", "TestPingOnlyBaseline")
	out, ok := progress(t, root, s.String(), 0)
	assert.False(t, ok, "ok = true for a run cut short; want false (output:\n%s)", out)
	assert.Contains(t, out, "progress: input ended before the run did: no end for experiments/eventloop\n")
	after, err := os.ReadFile(recordPath(root, "experiments-local"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "recorded durations changed by a run cut short")

	out, ok = progress(t, root, "", 0)
	assert.False(t, ok, "ok = true for no input; want false (output:\n%s)", out)
	assert.Contains(t, out, "progress: no test events read: did go test fail before running any package?\n")
}

func TestAResultThatCannotBeReadStillShowsItsVerdict(t *testing.T) {
	root := t.TempDir()
	s := &stream{t: t}
	s.pkgStart(0.5, "experiments/eventloop")
	s.run(1.0, "experiments/eventloop", "TestX")
	gone := results.Event{Claims: []string{"W1"}, Outcome: verdict.Pass, Reason: "fine", Path: filepath.Join(root, "results", "gone.json")}
	s.out(2.0, "experiments/eventloop", "TestX", "    x_test.go:9: "+gone.Format()+"\n")
	s.end(2.1, "experiments/eventloop", "TestX", "pass")
	s.pkgEnd(2.2, "experiments/eventloop", "pass")
	out, _ := progress(t, root, s.String(), 0)
	assert.Contains(t, out, "[ 2.0s ] W1 pass  TestX  (1.0s)  -> results/gone.json  (result not read: ",
		"progress line for a missing result file (whole output:\n%s)", out)
}

// TestAResultEventThatDoesNotReadIsSaidSo: a line marked as a result event whose JSON does not
// read is shown and counted, not passed by as other output, so that no verdict goes missing
// unseen; the prose a test logs about a verdict is no event.
func TestAResultEventThatDoesNotReadIsSaidSo(t *testing.T) {
	root := t.TempDir()
	good := results.Event{Claims: []string{"W1"}, Outcome: verdict.Pass, Reason: "fine", Path: filepath.Join(root, "results", "r.json")}
	s := &stream{t: t}
	s.pkgStart(0.5, "experiments/eventloop")
	s.run(1.0, "experiments/eventloop", "TestX")
	s.out(2.0, "experiments/eventloop", "TestX", "    x_test.go:9: "+strings.TrimSuffix(good.Format(), "}")+"\n")
	s.out(2.0, "experiments/eventloop", "TestX", "    x_test.go:10: [W1] pass: fine -> "+good.Path+"\n")
	s.end(2.1, "experiments/eventloop", "TestX", "pass")
	s.pkgEnd(2.2, "experiments/eventloop", "pass")
	out, _ := progress(t, root, s.String(), 0)
	lines := progressLines(out)
	require.Len(t, lines, 2, "progress lines = %q; want the unread event and the summary (whole output:\n%s)", lines, out)
	assert.Contains(t, lines[0], "[ 2.0s ] TestX: result event", "the unread event's line")
	assert.Equal(t, "progress: experiments-local ok in 2.2s: pass 0 / fail 0 / fail-asserted 0 / inconclusive 0 / result events unread 1", lines[1], "the summary")
}

func TestResultsThatAreNotFindingsAreToldApart(t *testing.T) {
	root := t.TempDir()
	s := &stream{t: t}
	s.pkgStart(0.5, "experiments/threadpool")
	s.run(1.0, "experiments/threadpool", "TestClaimTestsCatchBrokenLabs/P10")
	s.out(2.0, "experiments/threadpool", "TestClaimTestsCatchBrokenLabs/P10",
		record(t, root, "TestClaimTestsCatchBrokenLabs/P10", "P10", verdict.Fail, "blocked = 0/8; want 8/8", nil,
			func(r *results.Result) { r.Broken = "async-hash" }))
	s.end(2.1, "experiments/threadpool", "TestClaimTestsCatchBrokenLabs/P10", "pass")
	s.run(3.0, "experiments/threadpool", "TestDNSStarvesFileReads")
	s.out(4.0, "experiments/threadpool", "TestDNSStarvesFileReads",
		record(t, root, "TestDNSStarvesFileReads", "P7", verdict.Pass, "reads waiting = 8/8 (want 8/8)",
			&results.Expected{Outcome: verdict.Fail, Why: "libuv runs getaddrinfo as slow I/O"}))
	s.end(4.1, "experiments/threadpool", "TestDNSStarvesFileReads", "fail")
	s.pkgEnd(4.2, "experiments/threadpool", "fail")
	out, ok := progress(t, root, s.String(), 0)
	assert.False(t, ok, "ok = true; want false (a test failed)")
	assert.Equal(t, []string{
		"[ 2.0s ] P10 fail, broken on purpose: async-hash  TestClaimTestsCatchBrokenLabs/P10  (1.0s)  -> results/sensitivity/eventloop/TestClaimTestsCatchBrokenLabs--P10.json",
		"[ 4.0s ] P7 pass, but its test asserts fail  TestDNSStarvesFileReads  (1.0s)  -> results/eventloop/TestDNSStarvesFileReads.json",
		"progress: experiments-local FAIL in 4.2s: pass 1 / fail 0 / fail-asserted 0 / inconclusive 0 / broken on purpose 1",
		"progress: failed: TestDNSStarvesFileReads (experiments/threadpool)",
	}, progressLines(out), "progress lines (whole output:\n%s)", out)
}

func TestRunRefusesANameThatIsNotAFileName(t *testing.T) {
	_, err := run(strings.NewReader(""), &strings.Builder{}, options{Name: "../x", Root: t.TempDir()})
	assert.ErrorContains(t, err, "-name", "run with -name ../x = %v; want it refused", err)
}

func TestDurationsReadAtAGlance(t *testing.T) {
	for d, want := range map[time.Duration]string{
		41700 * time.Millisecond:        "41.7s",
		5*time.Minute + 12*time.Second:  "5m12s",
		time.Hour + 2*time.Minute + 3e9: "1h02m03s",
		59*time.Minute + 59600*1e6:      "1h00m00s",
		0:                               "0.0s",
	} {
		assert.Equal(t, want, short(d), "short(%v)", d)
	}
	for d, want := range map[time.Duration]string{
		40 * time.Second:                "~40s",
		14*time.Minute + 20*time.Second: "~14m",
		65 * time.Minute:                "~1h05m",
	} {
		assert.Equal(t, want, approx(d), "approx(%v)", d)
	}
}
