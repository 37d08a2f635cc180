package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/serverless-claims/claims/harness/claim/history"
)

// Schedule is one scheduled kind of the history (history.Period) as the page's top says it: when
// it last ran on its schedule, the runs its period says were due and did not start, and whether
// it stopped. A schedule that stops is the one thing a page it builds cannot show on its own, so
// the page also carries the time after which, by its reader's clock, it is stale (Overdue).
type Schedule struct {
	Kind   string
	Period time.Duration
	// LastScheduled is when its last scheduled run started; zero where none in the history was
	// started by the schedule (a kind only ever run by hand).
	LastScheduled time.Time
	// Gaps are the runs it missed, up to the history's newest run (history.Gaps).
	Gaps []history.Gap
	// Stopped says history.Missing holds at the history's newest run: the alert's rule.
	Stopped bool
	// Overdue is when history.Missing will say it stopped (history.Overdue); zero without one.
	Overdue time.Time
}

// Missed is how many runs its gaps hold.
func (s Schedule) Missed() int {
	n := 0
	for _, g := range s.Gaps {
		n += g.Runs
	}
	return n
}

// PeriodText is the period in words: "daily", "weekly", else the duration.
func (s Schedule) PeriodText() string { return periodText(s.Period) }

func periodText(p time.Duration) string {
	switch p {
	case 24 * time.Hour:
		return "daily"
	case 7 * 24 * time.Hour:
		return "weekly"
	}
	return "every " + p.String()
}

// ScheduleText is the schedule in a line of Markdown: its last scheduled run, whether it
// stopped, how many runs it missed (GapText lists them).
func ScheduleText(s Schedule) string {
	line := fmt.Sprintf("**%s** runs (%s): ", s.Kind, s.PeriodText())
	if s.LastScheduled.IsZero() {
		return line + "no run of this kind was started by its schedule yet."
	}
	line += "last scheduled run " + pageTime(s.LastScheduled) + "."
	if s.Stopped {
		line += " **The schedule has stopped**: its last scheduled run started more than two periods before the newest run."
	}
	switch n := s.Missed(); n {
	case 0:
		return line + " No expected run is missing."
	case 1:
		return line + " **1 expected run is missing:**"
	default:
		return line + fmt.Sprintf(" **%d expected runs are missing:**", n)
	}
}

// GapText is one gap in words: when the runs were due and between which runs.
func GapText(g history.Gap) string {
	when := "due " + pageTime(g.First)
	if g.Runs > 1 {
		when = fmt.Sprintf("due from %s to %s", pageTime(g.First), pageTime(g.Last))
	}
	s := fmt.Sprintf("%s %s did not start (after run %s", runsText(g.Runs), when, g.After)
	if g.Before == "" {
		return s + "; none has started since)"
	}
	return s + ", before run " + g.Before + ")"
}

func runsText(n int) string {
	if n == 1 {
		return "1 scheduled run"
	}
	return fmt.Sprintf("%d scheduled runs", n)
}

// pageTime is how the page writes a time: UTC, to the minute.
func pageTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// schedules are the scheduled kinds among kinds, in kinds' order, as of the newest run.
func schedules(runs []history.Run, kinds []string, asOf time.Time) []Schedule {
	var out []Schedule
	for _, kind := range kinds {
		period, ok := history.Period(kind)
		if !ok {
			continue
		}
		s := Schedule{Kind: kind, Period: period}
		s.LastScheduled, s.Stopped = history.Missing(runs, kind, asOf)
		// Gaps end just after asOf, so that the newest run, when it is the schedule's, ends the
		// gap before it rather than being left out of it.
		s.Gaps = history.Gaps(runs, kind, asOf.Add(time.Nanosecond))
		if at, ok := history.Overdue(runs, kind); ok {
			s.Overdue = at
		}
		out = append(out, s)
	}
	return out
}

// Stale is the earliest time after which one of the history's schedules that has not stopped yet
// will have stopped (Schedule.Overdue), for the page's reader's clock; zero where there is none.
func (h *History) Stale() (at time.Time, kind string) {
	for _, s := range h.Schedules {
		if !s.Stopped && !s.Overdue.IsZero() && (at.IsZero() || s.Overdue.Before(at)) {
			at, kind = s.Overdue, s.Kind
		}
	}
	return at, kind
}

// SiteIndex is the site's page (WriteSite): what GitHub Pages serves at the site's root.
const SiteIndex = "index.html"

// WriteSite writes s as a static site under dir, for GitHub Pages: its page (WriteHTML) as
// SiteIndex, and beside it every result file the page links to, at the paths the links name. The
// site needs the history (Set.History): the page's top says when the history last changed and
// which scheduled runs are missing, and a site without them could go stale unseen. dir is
// replaced whole: the site is written beside it and moved in place, so that a failed write
// leaves the previous site.
func WriteSite(dir string, s Set, generated time.Time) error {
	if s.History == nil {
		return errors.New("report: a site needs the verdict history (-history), whose newest run says when it was last updated")
	}
	if s.History.Runs == 0 {
		return errors.New("report: a site needs a verdict history with runs in it, to say when it was last updated")
	}
	if err := apart(dir, s.Dir); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // only what is left of a failed write: a written one was renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for _, rel := range siteFiles(s) {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("report: the site: %s is a link outside the results folder", rel)
		}
		if err := copyFile(filepath.Join(s.Dir, filepath.FromSlash(rel)), filepath.Join(tmp, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("report: the site: %w", err)
		}
	}
	f, err := os.Create(filepath.Join(tmp, SiteIndex))
	if err != nil {
		return err
	}
	if err := WriteHTML(f, s, generated); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.Rename(old, dir) // the previous site back where it was
		return err
	}
	return os.RemoveAll(old)
}

// apart refuses a site folder that is the results folder, holds it or lies inside it: the site
// replaces its folder whole, and a site among the results would be read as results.
func apart(site, results string) error {
	a, err := filepath.Abs(site)
	if err != nil {
		return err
	}
	b, err := filepath.Abs(results)
	if err != nil {
		return err
	}
	inside := func(x, y string) bool { rel, err := filepath.Rel(y, x); return err == nil && filepath.IsLocal(rel) }
	if a == b || inside(a, b) || inside(b, a) {
		return fmt.Errorf("report: the site %s and the results %s overlap; the site replaces its folder whole, so give it one of its own", site, results)
	}
	return nil
}

// siteFiles are the result files the page links to, relative to s.Dir: each entry's, and each
// result the runtime matrix links.
func siteFiles(s Set) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, e.Path)
	}
	if s.Matrix != nil {
		for _, r := range s.Matrix.Rows {
			for _, c := range r.Cells {
				for _, l := range c.Results {
					out = append(out, l.Path)
				}
			}
		}
	}
	return out
}

// copyFile copies src to dst, making dst's folder.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
