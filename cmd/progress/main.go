// Command progress reads `go test -json` on stdin, passes the tests' output through as it comes,
// and prints a line for each claim's verdict as its result is written (the results.Event line
// the claim test logs, read with results.ParseEvent), with the time elapsed
// against the time the last complete run of the same name took; at the end, the verdicts counted,
// the failing tests by name and the total time. It records that time under .cache/progress/ for
// the next run, and exits non-zero when a test failed or the input ended before the run did.
//
//	go test -json ./experiments/... | go run ./cmd/progress -name experiments-local -expect 12m
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

func main() {
	name := flag.String("name", "", "the run's name, which keys its recorded duration: experiments-local")
	expect := flag.Duration("expect", 0, "the run's expected total when none of this name was recorded yet: 12m")
	flag.Parse()
	log.SetFlags(0)
	root, err := repo.Root()
	if err != nil {
		log.Fatalf("progress: %v", err)
	}
	o := options{Name: *name, Expect: *expect, Root: root, Start: time.Now()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		o.Module = bi.Main.Path
	}
	ok, err := run(os.Stdin, os.Stdout, o)
	if err != nil {
		log.Fatalf("progress: %v", err)
	}
	if !ok {
		os.Exit(1)
	}
}

// options are what one run of progress needs besides its input.
type options struct {
	Name   string        // keys the recorded duration
	Expect time.Duration // the expected total while no run of Name is recorded; 0 for none
	Root   string        // the repository's root: results are shown relative to it, durations kept under it
	Module string        // the module's path, which packages are shown without; "" shows them whole
	Start  time.Time     // when the run started: elapsed times count from it
}

// event is one test2json event; Action "build-output" and "build-fail" carry ImportPath instead
// of Package and no Time.
type event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// recorded is what a complete run leaves for the next run of its name.
type recorded struct {
	Name         string    `json:"name"`
	FinishedAt   time.Time `json:"finishedAt"`
	TotalSeconds float64   `json:"totalSeconds"`
}

var validName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// recordPath is where the durations of runs named name are kept, under root.
func recordPath(root, name string) string {
	return filepath.Join(root, ".cache", "progress", name+".json")
}

// tracker is the state of one run read from its events.
type tracker struct {
	o        options
	out      io.Writer
	expected time.Duration
	estimate bool // expected is the -expect flag's, not a recorded run's

	packages map[string]*pkgState
	pkgOrder []string
	started  map[string]time.Time // each test's run event, by package and test
	partial  map[string]string    // output of each test not yet ended by a newline
	counts   map[string]int       // results by verdict: pass, fail, fail-asserted, inconclusive..., and unread events
	failed   []testID             // tests whose fail event arrived, in order
	last     time.Time            // the latest event's time
}

// pkgState is how far a package got: its end event, and whether that said it failed.
type pkgState struct {
	ended       bool
	failed      bool
	failedBuild bool
}

// testID names a test across packages.
type testID struct{ pkg, test string }

// key is a test's key in the tracker's maps; test "" is the package's own output.
func key(pkg, test string) string { return pkg + "\x00" + test }

// run reads events from in until it ends, writing the tests' output and the progress lines to out.
// ok is false when a test or package failed or the input ended before every package did; err is
// for what progress itself could not do (read its input, write the recorded durations).
func run(in io.Reader, out io.Writer, o options) (ok bool, err error) {
	if !validName.MatchString(o.Name) {
		return false, fmt.Errorf("-name %q: want letters, digits, '.', '_' or '-' (it names a file under .cache/progress)", o.Name)
	}
	tr := &tracker{o: o, out: out, packages: map[string]*pkgState{}, started: map[string]time.Time{},
		partial: map[string]string{}, counts: map[string]int{}, last: o.Start}
	tr.expect()
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			tr.line(line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, fmt.Errorf("reading go test's events: %w", err)
		}
	}
	return tr.finish()
}

// expect sets the expected total from the last complete run of the name, else the -expect flag,
// and says which.
func (tr *tracker) expect() {
	path := recordPath(tr.o.Root, tr.o.Name)
	tr.expected, tr.estimate = tr.o.Expect, true
	why := "no complete run recorded yet"
	data, err := os.ReadFile(path)
	var rec recorded
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		why = err.Error()
	case json.Unmarshal(data, &rec) != nil || rec.TotalSeconds <= 0:
		why = tr.rel(path) + " unreadable"
	default:
		tr.expected = time.Duration(rec.TotalSeconds * float64(time.Second))
		tr.estimate = false
		fmt.Fprintf(tr.out, "progress: %s: expecting %s, as the last complete run took (%s)\n",
			tr.o.Name, approx(tr.expected), rec.FinishedAt.Local().Format("2006-01-02 15:04"))
		return
	}
	if tr.expected > 0 {
		fmt.Fprintf(tr.out, "progress: %s: expecting %s (estimate: %s)\n", tr.o.Name, approx(tr.expected), why)
	}
}

// line handles one line of input: an event, or a line go test wrote that is not one (passed on).
func (tr *tracker) line(line []byte) {
	var ev event
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
		tr.out.Write(line)
		return
	}
	if !ev.Time.IsZero() {
		tr.last = ev.Time
	}
	if ev.Package != "" && tr.packages[ev.Package] == nil {
		tr.packages[ev.Package] = &pkgState{}
		tr.pkgOrder = append(tr.pkgOrder, ev.Package)
	}
	k := key(ev.Package, ev.Test)
	switch ev.Action {
	case "output", "build-output":
		io.WriteString(tr.out, ev.Output)
		if ev.Test != "" {
			tr.output(ev, k)
		}
	case "run":
		tr.started[k] = ev.Time
	case "pass", "fail", "skip":
		if ev.Test == "" {
			p := tr.packages[ev.Package]
			p.ended, p.failed, p.failedBuild = true, ev.Action == "fail", ev.FailedBuild != ""
			return
		}
		if ev.Action == "fail" {
			tr.failed = append(tr.failed, testID{ev.Package, ev.Test})
		}
	}
}

// output gathers a test's output into whole lines (test2json splits very long ones) and reads
// each that is a results.Event: a written result. A marked line that does not read is said so,
// not passed by, since a verdict would go uncounted.
func (tr *tracker) output(ev event, k string) {
	text := tr.partial[k] + ev.Output
	if !strings.HasSuffix(text, "\n") {
		tr.partial[k] = text
		return
	}
	delete(tr.partial, k)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		e, err := results.ParseEvent(l)
		switch {
		case err == nil:
			tr.result(ev, e)
		case !errors.Is(err, results.ErrNotEvent):
			tr.counts["unread"]++
			fmt.Fprintf(tr.out, "[ %s ] %s: %v\n", tr.clock(ev.Time), ev.Test, err)
		}
	}
}

// result prints the progress line of a result written at ev, as its event and file say.
func (tr *tracker) result(ev event, e results.Event) {
	outcome, path := e.Outcome, e.Path
	if !filepath.IsAbs(path) {
		// A relative CLAIMS_RESULTS_DIR is relative to the test's folder, its package's.
		path = filepath.Join(tr.o.Root, tr.pkg(ev.Package), path)
	}
	word, note := string(outcome), ""
	count := word
	res, err := results.Read(path)
	switch {
	case err != nil:
		note = fmt.Sprintf("  (result not read: %v)", err)
	case res.Broken != "":
		word += ", broken on purpose: " + res.Broken
		count = "sensitivity"
	case res.Expected != nil && res.Expected.Outcome == outcome:
		word += ", refutation asserted"
		count += "-asserted"
	case res.Expected != nil:
		word += ", but its test asserts " + string(res.Expected.Outcome)
	}
	tr.counts[count]++
	took := ""
	if at, ok := tr.started[key(ev.Package, ev.Test)]; ok {
		took = fmt.Sprintf("  (%s)", short(ev.Time.Sub(at)))
	}
	fmt.Fprintf(tr.out, "[ %s ] %s %s  %s%s  -> %s%s\n", tr.clock(ev.Time),
		strings.Join(e.Claims, ","), word, ev.Test, took, tr.rel(path), note)
}

// clock is the time elapsed at t against the expected total: "5m12s of ~14m".
func (tr *tracker) clock(t time.Time) string {
	s := short(max(t.Sub(tr.o.Start), 0))
	if tr.expected > 0 {
		s += " of " + approx(tr.expected)
		if tr.estimate {
			s += " (estimate)"
		}
	}
	return s
}

// finish prints the summary and, for a complete run, records its total for the next.
func (tr *tracker) finish() (bool, error) {
	total := max(tr.last.Sub(tr.o.Start), 0)
	ok := len(tr.failed) == 0
	var unended, lines []string
	complete := len(tr.pkgOrder) > 0
	for _, p := range tr.pkgOrder {
		st := tr.packages[p]
		switch {
		case !st.ended:
			unended = append(unended, tr.pkg(p))
			complete, ok = false, false
		case st.failedBuild:
			lines = append(lines, "failed: "+tr.pkg(p)+" [build failed]")
			complete, ok = false, false
		case st.failed:
			ok = false
			if !tr.anyFailed(p) {
				lines = append(lines, "failed: "+tr.pkg(p)+" (outside any test: see its output)")
			}
		}
	}
	for _, f := range tr.failed {
		if !tr.hasFailedSubtest(f) {
			lines = append(lines, fmt.Sprintf("failed: %s (%s)", f.test, tr.pkg(f.pkg)))
		}
	}
	if len(tr.pkgOrder) == 0 {
		lines = append(lines, "no test events read: did go test fail before running any package?")
		ok = false
	} else if len(unended) > 0 {
		lines = append(lines, "input ended before the run did: no end for "+strings.Join(unended, ", "))
	}
	counts := fmt.Sprintf("pass %d / fail %d / fail-asserted %d / inconclusive %d",
		tr.counts["pass"], tr.counts["fail"], tr.counts["fail-asserted"], tr.counts["inconclusive"])
	if n := tr.counts["sensitivity"]; n > 0 {
		counts += fmt.Sprintf(" / broken on purpose %d", n)
	}
	if n := tr.counts["unread"]; n > 0 {
		counts += fmt.Sprintf(" / result events unread %d", n)
	}
	verdictWord := "FAIL"
	if ok {
		verdictWord = "ok"
	}
	expected := ""
	if tr.expected > 0 {
		expected = ", expected " + approx(tr.expected)
		if tr.estimate {
			expected += " (estimate)"
		}
	}
	fmt.Fprintf(tr.out, "progress: %s %s in %s%s: %s\n", tr.o.Name, verdictWord, short(total), expected, counts)
	for _, l := range lines {
		fmt.Fprintf(tr.out, "progress: %s\n", l)
	}
	if !complete {
		return ok, nil
	}
	data, err := json.MarshalIndent(recorded{Name: tr.o.Name, FinishedAt: tr.last.UTC(), TotalSeconds: total.Seconds()}, "", "  ")
	if err != nil {
		return ok, err
	}
	if err := wholefile.Write(recordPath(tr.o.Root, tr.o.Name), append(data, '\n')); err != nil {
		return ok, fmt.Errorf("recording the run's duration: %w", err)
	}
	return ok, nil
}

// anyFailed says whether a test of package p failed.
func (tr *tracker) anyFailed(p string) bool {
	for _, f := range tr.failed {
		if f.pkg == p {
			return true
		}
	}
	return false
}

// hasFailedSubtest says whether a subtest of f failed: a parent fails with its subtests, and
// naming the subtest is enough.
func (tr *tracker) hasFailedSubtest(f testID) bool {
	for _, g := range tr.failed {
		if g.pkg == f.pkg && strings.HasPrefix(g.test, f.test+"/") {
			return true
		}
	}
	return false
}

// pkg is a package's path without the module's: experiments/threadpool.
func (tr *tracker) pkg(p string) string {
	if tr.o.Module == "" {
		return p
	}
	if p == tr.o.Module {
		return "."
	}
	return strings.TrimPrefix(p, tr.o.Module+"/")
}

// rel is path relative to the repository's root where it is below it.
func (tr *tracker) rel(path string) string {
	r, err := filepath.Rel(tr.o.Root, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return path
	}
	return r
}

// short is a duration to read at a glance: 41.7s, 5m12s, 1h02m03s.
func short(d time.Duration) string {
	if d = d.Round(100 * time.Millisecond); d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	if d = d.Round(time.Second); d < time.Hour {
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// approx is an expected duration, no finer than it can be known: ~14m, ~40s, ~1h05m.
func approx(d time.Duration) string {
	if d < time.Minute-time.Second/2 {
		return fmt.Sprintf("~%ds", int(d.Round(time.Second).Seconds()))
	}
	if d = d.Round(time.Minute); d < time.Hour {
		return fmt.Sprintf("~%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("~%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
