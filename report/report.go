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

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/results/family"
	"github.com/serverless-claims/claims/results/family/getitem"
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

// functionSegment is a subtest named for the language of a cold-start claim's function
// (catalog.FunctionLanguages: go, rust, node, python): the cold-start claims run once per
// language, and their results are drawn side by side as a runtime's are. It is read only in a
// cold-start result (coldstartFamily), since other groups name subtests node and go for the
// runtime of a probe (W1's), which are results of their own.
var functionSegment = regexp.MustCompile(`^(` + strings.Join(catalog.FunctionLanguages, "|") + `)$`)

// coldstartFamily says a result is of a cold-start family, whose subtests name its function's
// language.
func coldstartFamily(family string) bool { return strings.HasPrefix(family, "coldstart.") }

// Base is the experiment without the subtests that name its runtime, or for a cold-start claim
// its function's language: the same for one claim's results on Node 20 and Node 24, or on the
// Go and the Rust function, locally and live, so that they are drawn side by side and compared
// with each other.
func (e Entry) Base() string {
	parts := strings.Split(e.Result.Experiment, "/")
	kept := parts[:0:0]
	cold := coldstartFamily(e.Result.Family)
	for _, p := range parts {
		if !runtimeSegment.MatchString(p) && !(cold && functionSegment.MatchString(p)) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

// Runtime is the runtime the result ran on, as its environment names it: "Node v24.22.3" for a
// result on Node, else "Go go1.26.8". A Go probe's result names a Node too (its launcher's), so
// the target's own runtime, where it says one, decides which. A cold-start result whose function
// has a language (FunctionLanguage) is that function's: "Rust function (rustc 1.85.0, rustls
// 0.20.8 with ring 0.16.20, ...)", the stack as its answers name it (functionRuntime), since
// the same claim on another language times another runtime, TLS library and SDK.
func (e Entry) Runtime() string {
	if l := e.FunctionLanguage(); l != "" {
		s := e.functionStack()
		if goVersion := e.Result.Environment.Go; s == nil && l == catalog.Go && goVersion != "" {
			// A Go function whose answers name no stack (T8's busy loop) is still named by
			// the Go the result's environment names, as Go functions' results were before.
			s = &getitem.Stack{LanguageVersion: goVersion}
		}
		return functionRuntime(l, s)
	}
	var target struct {
		Runtime string `json:"runtime"`
	}
	_ = Decode(e.Result.Target, &target) // a target without a runtime field leaves it empty
	if n := e.Result.Environment.Node; n != "" && !strings.HasPrefix(target.Runtime, "go") {
		return "Node " + n
	}
	if g := e.Result.Environment.Go; g != "" {
		return "Go " + strings.TrimPrefix(g, "go")
	}
	return "" // a result that names no environment
}

// Variant is what tells this result from the others of its Base: its mode and runtime (for a
// cold-start claim, its function's language and stack).
func (e Entry) Variant() string { return e.Result.Mode + " · " + e.Runtime() }

// FunctionLanguage is the language of a cold-start result's function (go, rust, node, python):
// its target's first function's build.language, else the language its experiment's subtest
// names. It is "" for a result of another group, and for one made before functions had
// languages (the Go function's, whose Runtime is Go's as before).
func (e Entry) FunctionLanguage() string {
	if !coldstartFamily(e.Result.Family) {
		return ""
	}
	var target family.ColdStartTarget
	if Decode(e.Result.Target, &target) == nil && len(target.Functions) > 0 && target.Functions[0].Build.Language != "" {
		return string(target.Functions[0].Build.Language)
	}
	parts := strings.Split(e.Result.Experiment, "/")
	for _, p := range parts[1:] {
		if functionSegment.MatchString(p) {
			return p
		}
	}
	return ""
}

// functionStack is the stack the result's function named in its answers (the first trial's
// that names one), or nil where none does: an answer made before functions named their stack,
// or a family whose trials keep no answer (T8's busy loops).
func (e Entry) functionStack() *getitem.Stack {
	// The trials are read one at a time, as raw JSON, so that only those before the first
	// stack are decoded: a result holds hundreds of answers, all naming the same stack.
	var trials []json.RawMessage
	if e.Result.Trials == nil || Decode(e.Result.Trials, &trials) != nil {
		return nil
	}
	type answered struct {
		Answer struct {
			Stack *getitem.Stack `json:"stack"`
		} `json:"answer"`
	}
	for _, raw := range trials {
		// A cold start's first invocation (T1-T3, T5, T6), or T4's invocations with DynamoDB
		// down and back up.
		var trial struct {
			First     *answered `json:"first"`
			WhileDown *answered `json:"whileDown"`
			AfterUp   *answered `json:"afterUp"`
		}
		if json.Unmarshal(raw, &trial) != nil {
			return nil
		}
		for _, a := range []*answered{trial.First, trial.WhileDown, trial.AfterUp} {
			if a != nil && a.Answer.Stack != nil {
				return a.Answer.Stack
			}
		}
	}
	return nil
}

// functionRuntime names a function of language l by its stack: "Rust function (rustc 1.85.0,
// rustls 0.20.8 with ring 0.16.20, hand-written DynamoDB JSON 1.0 client with SigV4)", "Go
// function (go1.26.8, crypto/tls, aws-sdk-go-v2/service/dynamodb v1.43.0)"; without a stack,
// "Rust function". Each part is cut to what tells one stack from another: a parenthesised
// aside is left out, a version already named is not named twice, and a Go module's host and
// owner are left out.
func functionRuntime(l string, s *getitem.Stack) string {
	name := catalog.LanguageName(l) + " function"
	if s == nil {
		return name
	}
	var parts []string
	lang := dropAsides(s.LanguageVersion)
	if lang != "" && (lang[0] >= '0' && lang[0] <= '9' || len(lang) > 1 && lang[0] == 'v' && lang[1] >= '0' && lang[1] <= '9') {
		// A bare version (Node's v24.11.0, Python's 3.11.2) says nothing without its language.
		lang = catalog.LanguageName(l) + " " + lang
	}
	parts = append(parts, lang)
	tls := dropAsides(s.TLS)
	switch v := dropAsides(s.TLSVersion); {
	case v == "" || strings.Contains(tls, v) || v == dropAsides(s.LanguageVersion):
		// Named already: in the library's name (rustls 0.20.8), or as the language's (Go's
		// crypto/tls is go1.26.8's).
	case strings.HasPrefix(v, tls):
		tls = v // "OpenSSL 3.0.15 3 Sep 2024" names its library
	default:
		tls += " " + v
	}
	parts = append(parts, tls)
	sdk := dropAsides(s.SDK)
	if host, rest, ok := strings.Cut(sdk, "/"); ok && strings.Contains(host, ".") {
		// A Go module path: its repository's name and path are what people call it.
		if _, rest, ok := strings.Cut(rest, "/"); ok {
			sdk = rest
		}
	}
	// A version is named after a package's name; a description (Rust's hand-written client)
	// says what it is without one.
	if v := dropAsides(s.SDKVersion); v != "" && v != "unknown" && !strings.Contains(sdk, " ") {
		sdk += " " + v
	}
	parts = append(parts, sdk)
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
	if len(parts) == 0 {
		return name
	}
	return name + " (" + strings.Join(parts, ", ") + ")"
}

// dropAsides is s without its parenthesised asides and the spaces around them: "rustc 1.85.0
// (4d91de4e4 2025-02-17)" is "rustc 1.85.0".
func dropAsides(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

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
