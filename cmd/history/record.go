package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/report"
)

// runFlags are the flags record and confirm share: where the history and the results are, and
// what the run is.
type runFlags struct {
	history, results, kind, trigger, commit, url, rerun string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.history, "history", "", "the history's folder (a checkout of its branch)")
	fs.StringVar(&f.results, "results", "results", "the run's results folder")
	fs.StringVar(&f.kind, "kind", "", "which claims, run how: runs compare with the last of their kind (claims, live, test...)")
	fs.StringVar(&f.trigger, "trigger", envOr("GITHUB_EVENT_NAME", "local"), "what started the run: schedule, workflow_dispatch, push, local")
	fs.StringVar(&f.commit, "commit", os.Getenv("GITHUB_SHA"), "the repository's commit (default: GITHUB_SHA, else git's HEAD)")
	fs.StringVar(&f.url, "url", ciRunURL(), "where the run's logs and files are")
	fs.StringVar(&f.rerun, "rerun", "", "the command that runs a flipped claim again (sh -c; {test} {run} {pkg} {tags} {dir}); default go test in its package")
}

func (f runFlags) check() error {
	switch {
	case f.history == "":
		return errors.New("-history: name the history's folder")
	case f.kind == "":
		return errors.New("-kind: name the run's kind (claims, live, test...)")
	case strings.ContainsAny(f.kind, "/\\ ."):
		return fmt.Errorf("-kind %q: want a plain word, it is part of file names", f.kind)
	}
	if _, ok := history.Period(f.kind); f.trigger == "schedule" && !ok {
		return fmt.Errorf("-kind %q -trigger schedule: the history declares no period for kind %q (history.Period), so its missing runs could not be told", f.kind, f.kind)
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// ciRunURL is the GitHub Actions run's page, where the job runs in one.
func ciRunURL() string {
	server, repository, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if server == "" || repository == "" || id == "" {
		return ""
	}
	return server + "/" + repository + "/actions/runs/" + id
}

// prepared is a run made from the results, with the history before it.
type prepared struct {
	runs    []history.Run
	past    []history.Run // the runs of now's kind, oldest first: what now is compared with
	last    history.Run
	hasLast bool
	now     history.Run
	files   map[history.Key]string // each record's result file
	flips   []history.Flip
}

// prepare reads the history and the results and finds the flips.
func prepare(f runFlags) (prepared, error) {
	var p prepared
	loaded, err := loadResults(f.results)
	if err != nil {
		return p, err
	}
	meta := history.Run{Kind: f.kind, Trigger: f.trigger, StartedAt: time.Now().UTC(), Commit: f.commit, URL: f.url}
	root, err := repo.Root()
	if err != nil {
		return p, err
	}
	if meta.Commit == "" {
		meta.Commit = gitHead(root)
	}
	if meta.Modules, err = goModules(filepath.Join(root, "go.mod")); err != nil {
		return p, err
	}
	if p.now, err = history.NewRun(meta, loaded); err != nil {
		return p, err
	}
	p.files = map[history.Key]string{}
	for i, k := range history.KeysOf(loaded) {
		p.files[k] = loaded[i].Path
	}
	if p.runs, err = history.Read(f.history); err != nil {
		return p, err
	}
	p.past = history.OfKind(p.runs, f.kind)
	p.last, p.hasLast = history.Last(p.runs, f.kind)
	p.flips = history.Flips(p.past, p.now)
	return p, nil
}

// loadResults reads every result of a results folder as report.Load does (report.ResultFiles),
// and those of each runtime matrix column's folder under it, with the column's name.
func loadResults(dir string) ([]history.Loaded, error) {
	var out []history.Loaded
	add := func(dir, column string) error {
		files, err := report.ResultFiles(dir)
		if err != nil {
			return err
		}
		for _, rel := range files {
			path := filepath.Join(dir, filepath.FromSlash(rel))
			r, err := results.Read(path)
			if err != nil {
				return err
			}
			out = append(out, history.Loaded{Path: path, Column: column, Runtime: report.Entry{Result: r}.Runtime(), Result: r})
		}
		return nil
	}
	if err := add(dir, ""); err != nil {
		return nil, err
	}
	columns, err := os.ReadDir(filepath.Join(dir, results.MatrixDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, c := range columns {
		if c.IsDir() {
			if err := add(filepath.Join(dir, results.MatrixDir, c.Name()), c.Name()); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w under %s", report.ErrNoResults, dir)
	}
	return out, nil
}

// goModules are go.mod's required modules and their versions.
func goModules(gomod string) (map[string]string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	inRequire := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "require" && len(fields) == 2 && fields[1] == "(":
			inRequire = true
		case fields[0] == ")":
			inRequire = false
		case fields[0] == "require" && len(fields) == 3:
			out[fields[1]] = fields[2]
		case inRequire && len(fields) == 2:
			out[fields[0]] = fields[1]
		}
	}
	return out, sc.Err()
}

// gitHead is the repository's commit, or "" where git cannot say.
func gitHead(root string) string {
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// record appends the run to the history, confirming its flips (or taking -confirmed's), reports,
// and alerts on the confirmed flips and warns of the claims that may flip; a warning it could not
// send it says on stderr and keeps, failing nothing.
func record(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("record")
	var f runFlags
	f.register(fs)
	confirmed := fs.String("confirmed", "", "a folder of confirm's -out folders (one per shard): take their confirmations instead of running again")
	alerts := fs.String("alerts", "", "write alerts as files into this folder")
	github := fs.String("github", "", "open or update a GitHub issue per flipped claim in OWNER/REPO, with the gh CLI")
	keep := fs.Int("keep", history.DefaultKeep, "the newest runs of the kind to keep")
	summary := fs.String("summary", os.Getenv("GITHUB_STEP_SUMMARY"), "append the report in Markdown to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if *keep < 1 {
		return fmt.Errorf("-keep %d: want at least 1", *keep)
	}
	var sinks []history.Sink
	if *alerts != "" {
		sinks = append(sinks, history.FileSink{Dir: *alerts})
	}
	if *github != "" {
		if strings.Count(*github, "/") != 1 {
			return fmt.Errorf("-github %q: want OWNER/REPO", *github)
		}
		sinks = append(sinks, ghSink{repo: *github})
	}
	p, err := prepare(f)
	if err != nil {
		return err
	}
	var cs []history.Confirmation
	var again map[history.Key]string
	if *confirmed != "" {
		cs, again, err = readConfirmations(*confirmed, p)
	} else {
		// The second runs' files live until the alerts have taken them.
		var dir string
		if dir, err = os.MkdirTemp("", "claims-again-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cs, again, err = runAgain(ctx, f, p, dir, stdout)
	}
	if err != nil {
		return err
	}
	p.now.Confirmations = cs
	lastScheduled, missing := history.Missing(p.runs, f.kind, p.now.StartedAt)
	// The alerts are sent before the run is appended, and those that could not be are kept in
	// it: a run that holds a flip never stands in the history with its alert lost.
	as := history.Alerts(p.past, p.now, cs, p.files, again)
	if missing {
		as = append(as, history.MissingAlert(f.kind, lastScheduled, p.now))
	}
	as = append(as, history.Warnings(append(slices.Clone(p.runs), p.now), f.kind)...)
	sent, unsent := send(ctx, sinks, p, as)
	p.now.Unsent = unsent
	path, err := history.Append(f.history, p.now, *keep)
	if err != nil {
		return err
	}
	var rep strings.Builder
	writeReport(&rep, f, p, cs, lastScheduled, missing)
	fmt.Fprintf(&rep, "  alerts: %d sent, %d kept unsent for the next run\n", sent, len(unsent))
	for _, u := range unsent {
		fmt.Fprintf(&rep, "    unsent: %s (raised by %s): %s\n", u.Title, u.From, u.Why)
	}
	fmt.Fprintf(&rep, "\nhistory: wrote %s\n", path)
	io.WriteString(stdout, rep.String())
	if *summary != "" {
		if err := appendFile(*summary, "```\n"+rep.String()+"```\n"); err != nil {
			return err
		}
	}
	// A warning not sent is said, never failed on: the history keeps it like any alert, and
	// the next run sends it.
	failing := 0
	for _, u := range unsent {
		if !u.IsWarning() {
			failing++
			continue
		}
		fmt.Fprintf(stderr, "history record: warning not sent, kept in the history for the next run: %s (raised by %s): %s\n", u.Title, u.From, u.Why)
	}
	if failing > 0 {
		return fmt.Errorf("%d alerts not sent, kept in the history for the next run (%d flips confirmed)", failing, confirmedCount(cs))
	}
	if n := confirmedCount(cs); n > 0 {
		return fmt.Errorf("%w: %d of %d flips (see the report above)", errConfirmed, n, len(cs))
	}
	return nil
}

// send sends the alerts the last run of the kind kept unsent (less the warnings as raises again:
// history.Due), then as, to every sink, and gives how many went and those that did not, as the
// history keeps them: an alert is sent when every sink took it. With no sink, the kept alerts
// stay kept and as goes nowhere (a local run).
func send(ctx context.Context, sinks []history.Sink, p prepared, as []history.Alert) (int, []history.Unsent) {
	var kept []history.Unsent
	if p.hasLast {
		kept = p.last.Unsent
	}
	if len(sinks) == 0 {
		return 0, kept
	}
	all := history.Due(kept, as)
	for _, a := range as {
		all = append(all, history.Unsent{Alert: a, From: p.now.ID()})
	}
	sent := 0
	var unsent []history.Unsent
	for _, u := range all {
		var errs []error
		for _, s := range sinks {
			if err := s.Send(ctx, u.Alert); err != nil {
				errs = append(errs, err)
			}
		}
		switch {
		case len(errs) == 0:
			sent++
		case u.From == p.now.ID():
			unsent = append(unsent, history.Keep(u.Alert, p.now, errors.Join(errs...)))
		default:
			u.Why = errors.Join(errs...).Error()
			unsent = append(unsent, u)
		}
	}
	return sent, unsent
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeReport writes what record found: the flips from each claim's last decided verdict,
// confirmed or not, with what else changed; the records whose runtime changed; the records the
// last runs held that this one does not; the claims inconclusive run after run; the margins
// that shrank; a scheduled run gone missing.
func writeReport(w io.Writer, f runFlags, p prepared, cs []history.Confirmation, lastScheduled time.Time, missing bool) {
	fmt.Fprintf(w, "history: run %s, %d results", p.now.ID(), len(p.now.Records))
	if !p.hasLast {
		fmt.Fprintf(w, "; the first of kind %q, nothing to compare\n", f.kind)
	} else {
		fmt.Fprintf(w, " after %s: %d flipped, %d confirmed (each against its last decided verdict)\n", p.last.ID(), len(cs), confirmedCount(cs))
	}
	for _, c := range cs {
		switch {
		case c.Confirmed:
			fmt.Fprintf(w, "  flip confirmed: %s (run again: %s)\n", c.Flip, c.Again)
		case c.Why != "":
			fmt.Fprintf(w, "  flip not confirmed: %s (%s)\n", c.Flip, c.Why)
		case c.Again == c.Was:
			fmt.Fprintf(w, "  flip not confirmed: %s (run again: %s, as before)\n", c.Flip, c.Again)
		default:
			fmt.Fprintf(w, "  flip not confirmed: %s (run again: %s)\n", c.Flip, c.Again)
		}
		if c.Since != p.last.ID() {
			fmt.Fprintf(w, "    decided last in run %s; the runs after it did not decide it\n", c.Since)
		}
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "    changed: %s\n", ch)
		}
	}
	for _, b := range history.Bumps(p.past, p.now) {
		fmt.Fprintf(w, "  runtime changed since %s: %s\n", b.Since, b)
	}
	for _, a := range history.Absent(p.past, p.now) {
		fmt.Fprintf(w, "  missing from this run: %s\n", a)
	}
	all := append(append([]history.Run(nil), p.runs...), p.now)
	for _, s := range history.Streaks(all, f.kind) {
		fmt.Fprintf(w, "  inconclusive %d runs in a row: %v %s\n", s.N, s.Claims, s.Key)
	}
	for _, s := range history.Shrinks(all, f.kind) {
		fmt.Fprintf(w, "  margin shrank by more than half: %v %s: %s %.2f %s → %.2f %s (median of %d runs before)\n",
			s.Claims, s.Key, s.Check, s.Before, s.Unit, s.Now, s.Unit, s.Runs-1)
	}
	if missing {
		fmt.Fprintf(w, "  missing: the last scheduled run of kind %q started %s, more than two periods (%v) ago\n",
			f.kind, lastScheduled.Format(time.RFC3339), period(f.kind))
	}
}

// period is kind's schedule's period, for people.
func period(kind string) time.Duration {
	p, _ := history.Period(kind)
	return p
}
