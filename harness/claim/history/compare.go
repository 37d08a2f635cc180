package history

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Flip is a record whose verdict changed from the claim's last decided verdict in the history: a
// candidate until the claim, run again in the same job, gives the same verdict (Confirmation).
type Flip struct {
	Key
	Claims []string        `json:"claims"`
	Was    verdict.Outcome `json:"was"`
	Now    verdict.Outcome `json:"now"`
	// Since is the ID of the run whose record gave Was: the last run of the kind that decided
	// the claim, which runs in between that were inconclusive or lacked the record do not move.
	Since string `json:"since,omitempty"`
}

// String reads "W2 TestX (local): pass → fail".
func (f Flip) String() string {
	return fmt.Sprintf("%v %s: %s → %s", f.Claims, f.Key, f.Was, f.Now)
}

// Flipped is the rule of a flip: both verdicts decided (pass or fail) and different. An
// inconclusive verdict on either side is never a flip: it says the run had too little evidence,
// not that the claim changed (Streaks reports a claim that stays so).
func Flipped(was, now verdict.Outcome) bool {
	return was != now && decided(was) && decided(now)
}

func decided(o verdict.Outcome) bool { return o == verdict.Pass || o == verdict.Fail }

// Decided is k's last decided record (pass or fail) in past (oldest first), with its run: what a
// record of k is compared with. Inconclusive records and runs without k are passed over, so pass,
// then inconclusive, then fail is one flip, pass → fail, on the fail.
func Decided(past []Run, k Key) (Run, Record, bool) {
	for i := len(past) - 1; i >= 0; i-- {
		if rec, ok := past[i].Find(k); ok && decided(rec.Outcome) {
			return past[i], rec, true
		}
	}
	return Run{}, Record{}, false
}

// Flips are now's records whose verdict flipped from the last decided verdict of the same key in
// past (the earlier runs of now's kind, oldest first), in now's order.
func Flips(past []Run, now Run) []Flip {
	var out []Flip
	for _, rec := range now.Records {
		run, old, ok := Decided(past, rec.Key)
		if ok && Flipped(old.Outcome, rec.Outcome) {
			out = append(out, Flip{Key: rec.Key, Claims: rec.Claims, Was: old.Outcome, Now: rec.Outcome, Since: run.ID()})
		}
	}
	return out
}

// Baseline is the run of past whose record f flipped from (Since); the zero run where past does
// not hold it.
func (f Flip) Baseline(past []Run) Run {
	for i := len(past) - 1; i >= 0; i-- {
		if past[i].ID() == f.Since {
			return past[i]
		}
	}
	return Run{}
}

// Bump is a record whose runtime (its exact version, or its function's stack) changed since the
// last run that held it: the same series, with what changed.
type Bump struct {
	Key
	Claims   []string
	Was, Now string // the records' Runtime
	Since    string // the ID of the last run that held the record
}

// String reads "[W2] TestX (local, node-v24): Node v24.22.3 → Node v24.23.0".
func (b Bump) String() string { return fmt.Sprintf("%v %s: %s → %s", b.Claims, b.Key, b.Was, b.Now) }

// Bumps are now's records whose runtime differs from their last record in past (the earlier
// runs of now's kind, oldest first), in now's order.
func Bumps(past []Run, now Run) []Bump {
	var out []Bump
	for _, rec := range now.Records {
		for i := len(past) - 1; i >= 0; i-- {
			old, ok := past[i].Find(rec.Key)
			if !ok {
				continue
			}
			if old.Runtime != rec.Runtime {
				out = append(out, Bump{Key: rec.Key, Claims: rec.Claims, Was: orNone(old.Runtime), Now: orNone(rec.Runtime), Since: past[i].ID()})
			}
			break
		}
	}
	return out
}

// ExpectRuns is how far back a record is expected: one held by any of the last ExpectRuns runs
// of a kind and absent from its next run went missing (a shard that failed, a test that did not
// run); one absent from all of them is taken as retired (a test renamed or removed), not named
// run after run. Seven is a week of daily runs.
const ExpectRuns = 7

// Absence is a record the history expected in a run that the run does not hold.
type Absence struct {
	Key
	Claims []string
	// LastSeen is the ID of the last run that held the record; Runs how many runs in a row,
	// this one included, have been without it.
	LastSeen string
	Runs     int
}

// String reads "[W2] TestX (local): last recorded in run R, absent from 2 runs in a row".
func (a Absence) String() string {
	return fmt.Sprintf("%v %s: last recorded in run %s, absent from %d runs in a row", a.Claims, a.Key, a.LastSeen, a.Runs)
}

// Absent are the records of past's last ExpectRuns runs (the earlier runs of now's kind, oldest
// first) that now does not hold, in the order of their first appearance there.
func Absent(past []Run, now Run) []Absence {
	window := past[max(0, len(past)-ExpectRuns):]
	var out []Absence
	index := map[Key]int{}
	for i, r := range window {
		for _, rec := range r.Records {
			if _, ok := now.Find(rec.Key); ok {
				continue
			}
			j, seen := index[rec.Key]
			if !seen {
				j = len(out)
				index[rec.Key] = j
				out = append(out, Absence{Key: rec.Key, Claims: rec.Claims})
			}
			out[j].LastSeen, out[j].Runs = r.ID(), len(window)-i
		}
	}
	return out
}

// Confirmation is a flipped claim run again in the same job: the flip is confirmed when the
// second run gives the verdict the first gave.
type Confirmation struct {
	Flip
	Again     verdict.Outcome `json:"again"`
	Confirmed bool            `json:"confirmed"`
	// Why says what the second run gave where it gave nothing (it did not run, or wrote no
	// result for the key): such a flip is not confirmed.
	Why string `json:"why,omitempty"`
	// Changes are what else differs between the two runs' records: runtime, machine, modules,
	// commit.
	Changes []Change `json:"changes,omitempty"`
}

// Change is one thing that differs between two runs of a record.
type Change struct {
	What string `json:"what"`
	Was  string `json:"was"`
	Now  string `json:"now"`
}

// String reads "kernel: 6.1.0 → 6.8.0".
func (c Change) String() string { return fmt.Sprintf("%s: %s → %s", c.What, c.Was, c.Now) }

// Changes are what differs between last's record of k and now's, besides the verdict (last is a
// flip's Baseline): the runtime and machine each names, the Go modules, the repository's commit.
// "Same code, different platform" shows as a flip whose changes hold no commit and no module.
func Changes(last, now Run, k Key) []Change {
	var out []Change
	add := func(what, was, now string) {
		if was != now {
			out = append(out, Change{What: what, Was: orNone(was), Now: orNone(now)})
		}
	}
	a, _ := last.Find(k)
	b, _ := now.Find(k)
	add("runtime", a.Runtime, b.Runtime)
	ma, mb := last.MachineOfRecord(a), now.MachineOfRecord(b)
	add("go", ma.Go, mb.Go)
	add("node", ma.Node, mb.Node)
	add("openssl", ma.OpenSSL, mb.OpenSSL)
	add("os", ma.OS, mb.OS)
	add("kernel", ma.Kernel, mb.Kernel)
	add("cpu model", ma.CPUModel, mb.CPUModel)
	add("cores", fmt.Sprint(ma.Cores), fmt.Sprint(mb.Cores))
	add("cpu quota", ma.CPUQuota, mb.CPUQuota)
	for _, m := range union(last.Modules, now.Modules) {
		add("module "+m, last.Modules[m], now.Modules[m])
	}
	add("commit", last.Commit, now.Commit)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func union(a, b map[string]string) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// Streak is a record inconclusive in each of the last N runs of its kind that hold it.
type Streak struct {
	Key
	Claims []string
	N      int
}

// InconclusiveRuns is how many runs in a row a record must be inconclusive for Streaks to report
// it: one is a run short of evidence; three in a row is a claim the runs cannot decide.
const InconclusiveRuns = 3

// Streaks are the records of runs' last run of kind that were inconclusive in each of their last
// InconclusiveRuns runs, with how long the streak is.
func Streaks(runs []Run, kind string) []Streak {
	var out []Streak
	for _, w := range streakRuns(OfKind(runs, kind)) {
		out = append(out, w.Streak)
	}
	return out
}

// streak is a Streak with its runs, oldest first.
type streak struct {
	Streak
	runs []Run
}

// streakRuns are the streaks of own's last run (own: the runs of one kind, oldest first).
func streakRuns(own []Run) []streak {
	if len(own) == 0 {
		return nil
	}
	var out []streak
	for _, rec := range own[len(own)-1].Records {
		var in []Run
		for i := len(own) - 1; i >= 0; i-- {
			r, ok := own[i].Find(rec.Key)
			if !ok {
				continue
			}
			if r.Outcome != verdict.Inconclusive {
				break
			}
			in = append(in, own[i])
		}
		if len(in) >= InconclusiveRuns {
			slices.Reverse(in)
			out = append(out, streak{Streak{Key: rec.Key, Claims: rec.Claims, N: len(in)}, in})
		}
	}
	return out
}

// Shrink is a record whose margin shrank by more than half over its last runs, while the claim
// still holds: a flip coming.
type Shrink struct {
	Key
	Claims []string
	Check  string
	Unit   string
	// Before is the median margin of the runs before the last, in the window; Now the last's.
	Before, Now float64
	Runs        int // how many runs the window held
}

// ShrinkWindow is how many of a record's last runs Shrinks looks at, and ShrinkFraction the
// share of the earlier runs' median margin below which the last margin warns. The median of
// several runs, not the last one alone, is the reference: one lucky run before must not make an
// ordinary one look like a fall.
const (
	ShrinkWindow   = 5
	ShrinkFraction = 0.5
)

// Shrinks are the records of runs' last run of kind that still hold (positive margin) but whose
// margin is below ShrinkFraction of the median of their earlier margins in the window, the same
// check's, of at least two earlier runs.
func Shrinks(runs []Run, kind string) []Shrink {
	var out []Shrink
	for _, w := range shrinkRuns(OfKind(runs, kind)) {
		out = append(out, w.Shrink)
	}
	return out
}

// shrink is a Shrink with the runs of its window, oldest first, the last included.
type shrink struct {
	Shrink
	runs []Run
}

// shrinkRuns are the shrinks of own's last run (own: the runs of one kind, oldest first).
func shrinkRuns(own []Run) []shrink {
	if len(own) == 0 {
		return nil
	}
	last := own[len(own)-1]
	var out []shrink
	for _, rec := range last.Records {
		if rec.Margin == nil || rec.Margin.Margin <= 0 {
			continue
		}
		var earlier []float64
		window := []Run{last}
		for i := len(own) - 2; i >= 0 && len(earlier) < ShrinkWindow-1; i-- {
			r, ok := own[i].Find(rec.Key)
			if ok && r.Margin != nil && r.Margin.Check == rec.Margin.Check && r.Margin.Unit == rec.Margin.Unit {
				earlier = append(earlier, r.Margin.Margin)
				window = append(window, own[i])
			}
		}
		if len(earlier) < 2 {
			continue
		}
		before := median(earlier)
		if before > 0 && rec.Margin.Margin < ShrinkFraction*before {
			slices.Reverse(window)
			out = append(out, shrink{Shrink{Key: rec.Key, Claims: rec.Claims, Check: rec.Margin.Check, Unit: rec.Margin.Unit,
				Before: before, Now: rec.Margin.Margin, Runs: len(earlier) + 1}, window})
		}
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// The kinds of run the workflows record on a schedule: the runtime matrix (claims.yml) and the
// claims on AWS (live.yml).
const (
	KindClaims = "claims"
	KindLive   = "live"
)

// periods are the scheduled kinds' periods, declared here once with the kind: Missing reads them,
// and each workflow's schedule runs its kind this often. A kind not here runs on no schedule.
var periods = map[string]time.Duration{
	KindClaims: 24 * time.Hour,
	KindLive:   7 * 24 * time.Hour,
}

// Period is the period of kind's schedule; false for a kind that runs on none.
func Period(kind string) (time.Duration, bool) {
	p, ok := periods[kind]
	return p, ok
}

// Missing says whether the scheduled runs of kind went missing at now: the last one started more
// than two of the kind's periods ago (Period). GitHub runs a schedule late, or drops it on a busy
// hour, so one period late is not yet missing. A kind with no period, or a history with no
// scheduled run of kind, has nothing to miss.
func Missing(runs []Run, kind string, now time.Time) (last time.Time, missing bool) {
	period, ok := Period(kind)
	if !ok {
		return time.Time{}, false
	}
	for _, r := range OfKind(runs, kind) {
		if r.Trigger == "schedule" && r.StartedAt.After(last) {
			last = r.StartedAt
		}
	}
	if last.IsZero() {
		return last, false
	}
	return last, now.Sub(last) > 2*period
}

// OfKind are the runs of kind, in runs' order.
func OfKind(runs []Run, kind string) []Run {
	var out []Run
	for _, r := range runs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// Past is a record's runs, oldest first: each run's start with the record as it was there.
type Past struct {
	Key
	Claims []string
	Runs   []Point
}

// Point is a record in one run.
type Point struct {
	Run     string // the run's ID
	At      time.Time
	Trigger string
	Record  Record
	// Confirmed says the record's verdict flipped in this run and a second run confirmed it;
	// Unconfirmed that a second run did not.
	Confirmed, Unconfirmed bool
}

// Pasts are every record's past across runs of kind (all kinds where kind is ""), in the order
// of their first appearance.
func Pasts(runs []Run, kind string) []Past {
	var out []Past
	index := map[Key]int{}
	for _, r := range runs {
		if kind != "" && r.Kind != kind {
			continue
		}
		for _, rec := range r.Records {
			i, ok := index[rec.Key]
			if !ok {
				i = len(out)
				index[rec.Key] = i
				out = append(out, Past{Key: rec.Key, Claims: rec.Claims})
			}
			p := Point{Run: r.ID(), At: r.StartedAt, Trigger: r.Trigger, Record: rec}
			for _, c := range r.Confirmations {
				if c.Key == rec.Key {
					p.Confirmed, p.Unconfirmed = c.Confirmed, !c.Confirmed
				}
			}
			out[i].Runs = append(out[i].Runs, p)
		}
	}
	return out
}
