package history

import (
	"fmt"
	"slices"
	"strings"
)

// WarningLabel is the label of a warning's issue: a claim that may flip, apart from the claims
// that did (FlipLabel), so that a person can tell a claim to watch from one that changed.
const WarningLabel = "claim-warning"

// maxStreakRows bounds the runs a streak's warning lists: a claim inconclusive for months would
// otherwise fill its issue with the same row.
const maxStreakRows = 10

// Warnings are the alerts of runs' last run of kind (runs oldest first, that run among them):
// one per claim whose records' margin shrank (Shrinks) or that stayed inconclusive run after
// run (Streaks), each record's margins or verdicts with their runs. A warning is raised again
// by every run that still sees it, so the claim's issue gets a comment per run; it never fails
// the job (IsWarning).
func Warnings(runs []Run, kind string) []Alert {
	own := OfKind(runs, kind)
	var out []Alert
	var what [][]string // each alert's findings, for its title
	byClaim := map[string]int{}
	add := func(claims []string, finding, body string) {
		claim := strings.Join(claims, ",")
		i, ok := byClaim[claim]
		if !ok {
			i = len(out)
			byClaim[claim] = i
			subject := fmt.Sprintf("Claim %s may flip", claim)
			out = append(out, Alert{Claim: claim, Subject: subject, Label: WarningLabel})
			what = append(what, nil)
		}
		if !slices.Contains(what[i], finding) {
			what[i] = append(what[i], finding)
		}
		out[i].Body += body
	}
	for _, s := range shrinkRuns(own) {
		add(s.Claims, "margin shrank", shrinkBody(s))
	}
	for _, s := range streakRuns(own) {
		add(s.Claims, fmt.Sprintf("inconclusive %d runs in a row", s.N), streakBody(s))
	}
	for i := range out {
		out[i].Title = out[i].Subject + ": " + strings.Join(what[i], ", ")
		out[i].Body += "A warning, not a flip: the claim still holds or is undecided. Each run that still " +
			"sees it comments here; the issue stays open until a person closes it.\n"
	}
	return out
}

// IsWarning says whether a is a warning (Warnings): one that could not be sent is kept for the
// next run like any alert, but fails nothing.
func (a Alert) IsWarning() bool { return a.Label == WarningLabel }

// shrinkBody is one shrunk margin in Markdown: the margin in each run of its window.
func shrinkBody(s shrink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: margin shrank by more than half\n\n", s.Key)
	fmt.Fprintf(&b, "The margin of %s is %s in %s, below %.0f%% of the median (%s) of its %d runs before:\n\n",
		s.Check, Amount(s.Now, s.Unit), link(s.runs[len(s.runs)-1]), ShrinkFraction*100, Amount(s.Before, s.Unit), s.Runs-1)
	b.WriteString("| run | verdict | margin |\n|---|---|---|\n")
	for _, r := range s.runs {
		rec, _ := r.Find(s.Key)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", link(r), rec.Outcome, cell(rec.Margin.String()))
	}
	b.WriteString("\n")
	return b.String()
}

// streakBody is one inconclusive streak in Markdown: the runs of the streak, the newest
// maxStreakRows of them, with each run's reason.
func streakBody(s streak) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: inconclusive %d runs in a row\n\n", s.Key, s.N)
	fmt.Fprintf(&b, "Inconclusive in each of its last %d runs (a streak of %d warns): the runs cannot decide it.\n\n", s.N, InconclusiveRuns)
	runs := s.runs
	if len(runs) > maxStreakRows {
		fmt.Fprintf(&b, "The newest %d of them (the streak began in %s):\n\n", maxStreakRows, link(runs[0]))
		runs = runs[len(runs)-maxStreakRows:]
	}
	b.WriteString("| run | verdict | reason |\n|---|---|---|\n")
	for _, r := range runs {
		rec, _ := r.Find(s.Key)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", link(r), rec.Outcome, cell(rec.Reason))
	}
	b.WriteString("\n")
	return b.String()
}

// Due are the alerts of kept (a run's unsent ones) still to send beside as, the next run's: a kept warning whose claim as warns about again is dropped, the new one saying what
// the runs show now, so that a gh failing run after run keeps one warning per claim, not one per
// run. Kept flips and missing runs are never dropped.
func Due(kept []Unsent, as []Alert) []Unsent {
	var out []Unsent
	for _, u := range kept {
		if u.IsWarning() && slices.ContainsFunc(as, func(a Alert) bool { return a.Label == u.Label && a.Subject == u.Subject }) {
			continue
		}
		out = append(out, u)
	}
	return out
}
