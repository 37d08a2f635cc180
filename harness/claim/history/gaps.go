package history

import "time"

// Gap is a stretch of a scheduled kind's runs in which runs were due and none started: what a
// reader of the history sees as missing (the public page lists them), where Missing decides only
// whether the schedule stopped.
type Gap struct {
	Kind string
	// After is the ID of the scheduled run before the gap; Before the one after it, "" for a gap
	// that lasts to the time asked about (the schedule has not run since).
	After, Before string
	// First and Last are when the first and the last run missed were due; Runs how many were.
	First, Last time.Time
	Runs        int
}

// Gaps are the runs of kind's schedule (Period) that were due before asOf and did not start,
// oldest first, one Gap per stretch between two scheduled runs (or after the last one). A run is
// due one period after the scheduled run before it, and missed where no scheduled run started
// within half a period of when it was due: GitHub starts a schedule late, but between two runs
// that did start the phase is known, and a run half a period late is the next one's, not this
// one's. A kind with no period, or no scheduled run before asOf, has no gaps.
func Gaps(runs []Run, kind string, asOf time.Time) []Gap {
	period, ok := Period(kind)
	if !ok {
		return nil
	}
	var starts []time.Time
	var ids []string
	for _, r := range OfKind(runs, kind) {
		if r.Trigger == "schedule" && r.StartedAt.Before(asOf) {
			starts, ids = append(starts, r.StartedAt), append(ids, r.ID())
		}
	}
	var out []Gap
	for i, from := range starts {
		until, before := asOf, ""
		if i+1 < len(starts) {
			until, before = starts[i+1], ids[i+1]
		}
		g := Gap{Kind: kind, After: ids[i], Before: before}
		for due := from.Add(period); due.Add(period / 2).Before(until); due = due.Add(period) {
			if g.Runs == 0 {
				g.First = due
			}
			g.Last = due
			g.Runs++
		}
		if g.Runs > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Overdue is the time after which Missing says kind's schedule stopped (two periods after its
// last scheduled run), so that a page built before then can tell its reader, by the reader's
// clock, that it was not built again in time; false where Missing has nothing to miss.
func Overdue(runs []Run, kind string) (time.Time, bool) {
	period, ok := Period(kind)
	if !ok {
		return time.Time{}, false
	}
	last, _ := Missing(runs, kind, time.Time{})
	if last.IsZero() {
		return time.Time{}, false
	}
	return last.Add(2 * period), true
}
