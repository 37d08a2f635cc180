// Package report reads a folder of results and renders it for people: a summary of every
// verdict (Markdown and HTML), one self-contained HTML page that draws each result as its
// article drew it, and the comparison of two result sets.
//
// It reads results the way any reader of the format would, through results.Read and the family's
// JSON fields it draws (results/README.md), never through the experiments' own types.
package report

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/results"
)

// ErrNoResults is Load's error for a folder with no result in it.
var ErrNoResults = errors.New("no results")

// Set is the results under one folder, in claim order.
type Set struct {
	Dir     string
	Entries []Entry
	Matrix  *Matrix // the runtime matrix (matrix.json), where `make matrix` wrote one
	// History is the verdict history (NewHistory), where the caller read one: Load never does,
	// since the history lives apart from the results (a branch of its own).
	History *History
}

// Entry is one result file.
type Entry struct {
	Path   string // relative to the set's folder: threadpool/TestPoolSlots--node24.json
	Result results.Result
}

// ResultFiles are the result files under dir that the report reads, by their paths relative to
// dir (slash-separated, in lexical order): every .json file, in the modes' folders too (live/,
// live-standin/, local-router/), except those under results/sensitivity (runs against targets
// broken on purpose are evidence about the tests, never findings), results/matrix (the runtime
// matrix, which the report shows as a matrix of its own, from MatrixFile) and the schema, the
// matrix's own MatrixFile, and hidden files. It is the one statement of that rule: Load reads
// these files, and the tests that check the report against the files walk the same ones.
func ResultFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && (d.Name() == results.SensitivityDir || d.Name() == results.MatrixDir || d.Name() == "schema") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".json" || strings.HasPrefix(d.Name(), ".") || path == filepath.Join(dir, MatrixFile) {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// Load reads every result of ResultFiles(dir), and the runtime matrix where there is one. A
// broken run among them is an error, as is a folder with no results (ErrNoResults).
func Load(dir string) (Set, error) {
	s := Set{Dir: dir}
	files, err := ResultFiles(dir)
	if err != nil {
		return Set{}, err
	}
	for _, rel := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		r, err := results.Read(path)
		if err != nil {
			return Set{}, err
		}
		if r.Broken != "" {
			return Set{}, fmt.Errorf("%s: a run against a target broken on purpose (%s) outside %s/", path, r.Broken, results.SensitivityDir)
		}
		s.Entries = append(s.Entries, Entry{Path: rel, Result: r})
	}
	if m, ok, err := ReadMatrix(dir); err != nil {
		return Set{}, err
	} else if ok {
		s.Matrix = &m
	}
	if len(s.Entries) == 0 && s.Matrix == nil {
		return Set{}, fmt.Errorf("%w under %s: run `make experiments` first", ErrNoResults, dir)
	}
	slices.SortStableFunc(s.Entries, func(a, b Entry) int {
		return cmp.Or(compareClaims(a.Result.Claims, b.Result.Claims),
			strings.Compare(a.Result.Experiment, b.Result.Experiment), modeOrder(a.Result.Mode)-modeOrder(b.Result.Mode))
	})
	return s, nil
}

// compareClaims orders by the first claim: W before T before P as the catalog lists them, then
// by number (W2 before W10).
func compareClaims(a, b []string) int {
	key := func(ids []string) (int, int) {
		if len(ids) == 0 {
			return 9, 0
		}
		var n int
		fmt.Sscanf(ids[0][1:], "%d", &n)
		return strings.IndexByte("WTP", ids[0][0]), n
	}
	ga, na := key(a)
	gb, nb := key(b)
	return cmp.Or(ga-gb, na-nb)
}

// modeOrder puts local results first, then their stand-ins, then live: the order they are read in.
func modeOrder(mode string) int {
	return slices.Index([]string{results.ModeLocal, results.ModeLocalRouter, results.ModeLiveStandIn, results.ModeLive}, mode)
}

// runtimeSegment is a subtest named for the runtime it ran on (node20, node24, go1.26): what
// differs between results laid out side by side.
var runtimeSegment = regexp.MustCompile(`^(node[0-9]+|go[0-9][0-9.]*)$`)

// Base is the experiment without the subtests that name its runtime: the same for one claim's
// results on Node 20 and Node 24, locally and live, so that they are drawn side by side and
// compared with each other.
func (e Entry) Base() string {
	parts := strings.Split(e.Result.Experiment, "/")
	kept := parts[:0:0]
	for _, p := range parts {
		if !runtimeSegment.MatchString(p) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

// Runtime is the runtime the result ran on, as its environment names it: "Node v24.22.3" for a
// result on Node, else "Go go1.26.8". A Go probe's result names a Node too (its launcher's), so
// the target's own runtime, where it says one, decides which.
func (e Entry) Runtime() string {
	var target struct {
		Runtime string `json:"runtime"`
	}
	_ = Decode(e.Result.Target, &target) // a target without a runtime field leaves it empty
	if n := e.Result.Environment.Node; n != "" && !strings.HasPrefix(target.Runtime, "go") {
		return "Node " + n
	}
	return "Go " + strings.TrimPrefix(e.Result.Environment.Go, "go")
}

// Variant is what tells this result from the others of its Base: its mode and runtime.
func (e Entry) Variant() string { return e.Result.Mode + " · " + e.Runtime() }

// Machine is the machine the result ran on, in one line.
func (e Entry) Machine() string {
	env := e.Result.Environment
	s := fmt.Sprintf("%s, %d cores, kernel %s", env.CPUModel, env.Cores, env.Kernel)
	if env.CPUQuota != "" {
		s += ", quota " + env.CPUQuota
	}
	return s
}

// Decode reads one of the family's parts (e.Result.Parameters, Target, Summary or Trials, each a
// json.RawMessage as results.Read leaves it) into v.
func Decode(part any, v any) error {
	raw, ok := part.(json.RawMessage)
	if !ok {
		// A result built in memory rather than read: round-trip it.
		b, err := json.Marshal(part)
		if err != nil {
			return err
		}
		raw = b
	}
	return json.Unmarshal(raw, v)
}

// decodeParts reads the family's parts a chart needs into params, summary and trials; a nil one is
// not read. A part the result lacks, or one that does not decode, is an error naming it.
func decodeParts(e Entry, params, summary, trials any) error {
	for _, part := range []struct {
		name string
		raw  any
		v    any
	}{{"parameters", e.Result.Parameters, params}, {"summary", e.Result.Summary, summary}, {"trials", e.Result.Trials, trials}} {
		if part.v == nil {
			continue
		}
		if raw, ok := part.raw.(json.RawMessage); part.raw == nil || ok && len(raw) == 0 {
			return fmt.Errorf("%s: the result has no %s", e.Result.Family, part.name)
		}
		if err := Decode(part.raw, part.v); err != nil {
			return fmt.Errorf("%s: reading its %s: %w", e.Result.Family, part.name, err)
		}
	}
	return nil
}
