// Package history is the verdict history: one small JSON file per run of the claims (each
// result's claim, test, mode, runtime, verdict, headline, margin to its bound, the machine's
// fingerprint and, live, what it billed), kept in yearly folders of a branch of its own. It
// appends a run, finds the verdicts that flipped since the last run of the same kind and has them
// confirmed by running the claim again, names what else changed between the two runs, and lists
// a claim's past: the claims that stayed inconclusive and the margins that shrank (which it
// warns of, Warnings), the runs that went missing.
//
// It reads results, never writes them: a run is made from result files a caller has loaded.
package history

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// Schema names this version of a run's file.
const Schema = "claims-history/v1"

// The bounds that keep the history small: a run's file may not grow past MaxFileBytes (a matrix
// of every runtime stays well inside it), a headline or a reason is cut at MaxTextBytes, and
// Append keeps the newest DefaultKeep runs of each kind unless told otherwise.
const (
	MaxFileBytes = 512 << 10
	MaxTextBytes = 240
	DefaultKeep  = 400
)

// Run is one run of the claims as the history keeps it.
type Run struct {
	Schema string `json:"schema"`
	// Kind is which claims, run how: runs compare with the last run of their own kind only
	// ("claims" for the scheduled matrix, "live" for AWS, "test" for a push).
	Kind string `json:"kind"`
	// Trigger is what started it: "schedule", "workflow_dispatch", "push", "local"...; only
	// "schedule" runs count when asking whether a scheduled run went missing.
	Trigger   string    `json:"trigger"`
	StartedAt time.Time `json:"startedAt"`
	Commit    string    `json:"commit,omitempty"` // the repository's commit
	URL       string    `json:"url,omitempty"`    // where the run's logs and files are (a CI run's page)
	// Modules are the Go modules the repository required (go.mod), by path: an SDK's version
	// that changed between two runs is named beside a flip.
	Modules map[string]string `json:"modules,omitempty"`
	// Machines are the fingerprints the records point at, each once.
	Machines []Machine `json:"machines"`
	Records  []Record  `json:"records"`
	// Confirmations are the claims run again because their verdict flipped, with what the
	// second run gave.
	Confirmations []Confirmation `json:"confirmations,omitempty"`
	// Unsent are the alerts this run could not send (a sink failed), its own or carried from
	// the run of its kind before it: the next run of the kind sends them before its own.
	Unsent []Unsent `json:"unsent,omitempty"`
}

// Machine is a result's environment as the history compares it: what a result ran on, without
// what changes from one minute to the next (the load).
type Machine struct {
	Go       string `json:"go"`
	Node     string `json:"node,omitempty"`
	OpenSSL  string `json:"openssl,omitempty"`
	OS       string `json:"os"`
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpuModel"`
	Cores    int    `json:"cores"`
	CPUQuota string `json:"cpuQuota,omitempty"`
}

// MachineOf is e's fingerprint.
func MachineOf(e results.Environment) Machine {
	return Machine{Go: e.Go, Node: e.Node, OpenSSL: e.OpenSSL, OS: e.OS, Kernel: e.Kernel,
		CPUModel: e.CPUModel, Cores: e.Cores, CPUQuota: e.CPUQuota}
}

// Record is one result as the history keeps it.
type Record struct {
	Key
	Claims   []string        `json:"claims"`
	Outcome  verdict.Outcome `json:"outcome"`
	Expected verdict.Outcome `json:"expected,omitempty"` // what the test asserts where not "holds" (P7)
	Headline string          `json:"headline"`
	Reason   string          `json:"reason"`
	Margin   *Margin         `json:"margin,omitempty"` // nil where no check has a bound
	Machine  int             `json:"machine"`          // index into the run's Machines
	// BilledUSD is what a live run billed, from its result; 0 elsewhere.
	BilledUSD float64 `json:"billedUsd,omitempty"`
	// Runtime is the runtime the result names, its exact version ("Node v24.22.3", "Go
	// 1.26.6"): data of the record, whose key holds only the runtime's series.
	Runtime string `json:"runtime,omitempty"`
}

// Key is what pairs a record with its counterpart in another run: the same test (with its
// subtests), mode and matrix column's series.
type Key struct {
	Experiment string `json:"experiment"`
	Mode       string `json:"mode"`
	// Column is the series of the runtime matrix's column the result belongs to (Series), ""
	// outside the matrix: the runtime's line, not its exact version, which is the record's
	// Runtime, so that a bump continues the series and shows as a change (Bumps).
	Column string `json:"column,omitempty"`
}

// seriesOf finds the line of a matrix column's runtime in its name: Node's major version
// (node-v24.22.3), Go's minor (go1.26.8, go1.27).
var seriesOf = regexp.MustCompile(`^(node-v\d+)\.\d+\.\d+$|^(go\d+\.\d+)(?:\.\d+)?$`)

// Series is the series of a runtime matrix column (its folder's name): node-v24 for
// node-v24.22.3, go1.26 for go1.26.8; a column whose name holds no version (function-rust) is
// its own series. A patch or minor release of Node, a patch of Go, is the same runtime line.
func Series(column string) string {
	m := seriesOf.FindStringSubmatch(column)
	if m == nil {
		return column
	}
	return m[1] + m[2]
}

// KeysOf are the keys of rs, in rs' order: each column by its Series, except columns of rs that
// share one (the machine's go1.27.1 beside a pinned go1.27.3), which keep their names, so that
// no two runtimes of one run are taken for one.
func KeysOf(rs []Loaded) []Key {
	columns := map[string]map[string]bool{} // series: its columns in rs
	for _, l := range rs {
		s := Series(l.Column)
		if columns[s] == nil {
			columns[s] = map[string]bool{}
		}
		columns[s][l.Column] = true
	}
	keys := make([]Key, len(rs))
	for i, l := range rs {
		column := Series(l.Column)
		if len(columns[column]) > 1 {
			column = l.Column
		}
		keys[i] = Key{Experiment: l.Result.Experiment, Mode: l.Result.Mode, Column: column}
	}
	return keys
}

// String reads "TestX/sub (local)", with the column where there is one.
func (k Key) String() string {
	where := k.Mode
	if k.Column != "" {
		where += ", " + k.Column
	}
	return fmt.Sprintf("%s (%s)", k.Experiment, where)
}

// Margin is a result's tightest check against its bound (verdict.Verdict.Margin).
type Margin struct {
	Check string `json:"check"`
	verdict.Bound
	Margin   float64 `json:"margin"`   // in the bound's unit: positive inside it
	Relative float64 `json:"relative"` // Margin over the bound's limit
}

// String reads "-2.00 ms · p50 (figure 52.0 at most 50.0)"; a nil margin reads "".
func (m *Margin) String() string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%s · %s (figure %s %s %s)", Amount(m.Margin, m.Unit), m.Check, short(m.Figure), m.Side, short(m.Limit))
}

// Amount writes a margin or a figure with its unit ("" for a ratio or a count), with three
// significant figures or so, never in exponent form: margins run from fractions (a ratio) to
// thousands (ms).
func Amount(v float64, unit string) string {
	if unit == "" {
		return short(v)
	}
	return short(v) + " " + unit
}

func short(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// MarginOf is v's tightest check as a Margin, or nil where none has a bound.
func MarginOf(v verdict.Verdict) *Margin {
	c, ok := v.Margin()
	if !ok {
		return nil
	}
	return &Margin{Check: c.Name, Bound: *c.Bound, Margin: c.Bound.Margin(), Relative: c.Bound.Relative()}
}

// Loaded is a result file a caller read, with where it sits: Column is the matrix column whose
// folder holds it ("" outside the matrix), Runtime the runtime it names.
type Loaded struct {
	Path    string
	Column  string
	Runtime string
	Result  results.Result
}

// NewRun makes the run of the results rs, with meta's kind, trigger, start, commit, URL and
// modules. Results against a target broken on purpose are not findings and are refused.
func NewRun(meta Run, rs []Loaded) (Run, error) {
	run := meta
	run.Schema = Schema
	run.Machines, run.Records, run.Confirmations, run.Unsent = nil, nil, nil, nil
	if run.Kind == "" {
		return Run{}, errors.New("history: a run needs a kind")
	}
	seen := map[Key]string{}
	keys := KeysOf(rs)
	for i, l := range rs {
		r := l.Result
		if r.Broken != "" {
			return Run{}, fmt.Errorf("history: %s is a run against a target broken on purpose (%s), not a finding", l.Path, r.Broken)
		}
		k := keys[i]
		if other, ok := seen[k]; ok {
			return Run{}, fmt.Errorf("history: %s and %s are both %s", other, l.Path, k)
		}
		seen[k] = l.Path
		rec := Record{Key: k, Claims: r.Claims, Outcome: r.Verdict.Outcome, Headline: cut(r.Headline),
			Reason: cut(r.Verdict.Reason), Margin: MarginOf(r.Verdict), Runtime: l.Runtime, BilledUSD: billed(r)}
		if r.Expected != nil {
			rec.Expected = r.Expected.Outcome
		}
		m := MachineOf(r.Environment)
		i := slices.Index(run.Machines, m)
		if i < 0 {
			i = len(run.Machines)
			run.Machines = append(run.Machines, m)
		}
		rec.Machine = i
		run.Records = append(run.Records, rec)
	}
	if len(run.Records) == 0 {
		return Run{}, errors.New("history: a run with no results")
	}
	slices.SortFunc(run.Records, func(a, b Record) int {
		return cmp.Or(strings.Compare(a.Column, b.Column), strings.Compare(a.Experiment, b.Experiment), strings.Compare(a.Mode, b.Mode))
	})
	return run, nil
}

// billed is what a live result's platform says it billed (target.platform.billedUsd), or 0.
func billed(r results.Result) float64 {
	raw, ok := r.Target.(json.RawMessage)
	if !ok {
		return 0
	}
	var t struct {
		Platform struct {
			BilledUSD float64 `json:"billedUsd"`
		} `json:"platform"`
	}
	_ = json.Unmarshal(raw, &t) // a target of another shape bills nothing
	return t.Platform.BilledUSD
}

// cut shortens s to MaxTextBytes, on a rune boundary, marking the cut.
func cut(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	i := MaxTextBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// MachineOfRecord is the fingerprint rec points at.
func (r Run) MachineOfRecord(rec Record) Machine {
	if rec.Machine < 0 || rec.Machine >= len(r.Machines) {
		return Machine{}
	}
	return r.Machines[rec.Machine]
}

// Find is the record of k in r.
func (r Run) Find(k Key) (Record, bool) {
	for _, rec := range r.Records {
		if rec.Key == k {
			return rec, true
		}
	}
	return Record{}, false
}

// ID names the run: its start in UTC, its kind and its commit's first characters, which is also
// its file's name without the extension.
func (r Run) ID() string {
	id := r.StartedAt.UTC().Format("20060102T150405.000Z") + "-" + r.Kind
	if r.Commit != "" {
		id += "-" + r.Commit[:min(len(r.Commit), 8)]
	}
	return id
}

// Path is where r's file goes under a history folder: a folder per year.
func (r Run) Path() string {
	return filepath.Join(r.StartedAt.UTC().Format("2006"), r.ID()+".json")
}

// Append writes r into the history under dir, whole or not at all, then removes the oldest runs of
// r's kind beyond keep (0: DefaultKeep). A run already there, or one too big, is refused.
func Append(dir string, r Run, keep int) (string, error) {
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return "", err
	}
	if len(data) > MaxFileBytes {
		return "", fmt.Errorf("history: run %s is %d bytes, above the bound of %d", r.ID(), len(data), MaxFileBytes)
	}
	if found := results.ScanSecrets(data); len(found) > 0 {
		return "", fmt.Errorf("history: run %s: %w: %s", r.ID(), results.ErrSecret, strings.Join(found, "; "))
	}
	path := filepath.Join(dir, r.Path())
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("history: %s is already there", path)
	}
	if err := wholefile.Write(path, append(data, '\n')); err != nil {
		return "", err
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	return path, prune(dir, r.Kind, keep)
}

// prune removes the oldest of kind's runs under dir beyond keep.
func prune(dir, kind string, keep int) error {
	runs, err := Read(dir)
	if err != nil {
		return err
	}
	var own []Run
	for _, r := range runs {
		if r.Kind == kind {
			own = append(own, r)
		}
	}
	for _, r := range own[:max(0, len(own)-keep)] {
		if err := os.Remove(filepath.Join(dir, r.Path())); err != nil {
			return err
		}
	}
	return nil
}

// Read reads every run under dir, oldest first. A folder that does not exist is an empty
// history; a file that does not read is an error naming it.
func Read(dir string) ([]Run, error) {
	var runs []Run
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .git
			}
			return nil
		}
		if filepath.Ext(path) != ".json" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		r, err := ReadRun(path)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		return nil
	})
	slices.SortStableFunc(runs, func(a, b Run) int { return a.StartedAt.Compare(b.StartedAt) })
	return runs, err
}

// ReadRun reads one run's file.
func ReadRun(path string) (Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Run{}, err
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return Run{}, fmt.Errorf("%s: %w", path, err)
	}
	if r.Schema != Schema {
		return Run{}, fmt.Errorf("%s: schema %q; this reader knows %q", path, r.Schema, Schema)
	}
	return r, nil
}

// Last is the newest run of kind in runs (oldest first), if any.
func Last(runs []Run, kind string) (Run, bool) {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Kind == kind {
			return runs[i], true
		}
	}
	return Run{}, false
}
