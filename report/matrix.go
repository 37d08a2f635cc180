package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// MatrixFile is the runtime matrix as data, in the results folder beside matrix.md; the report's
// page draws the matrix from it.
const MatrixFile = "matrix.json"

// Matrix is the runtime matrix (`make matrix`): each claim by each runtime it concerns, a cell
// the verdict of the claim's results on that runtime, and the rows whose verdict differs between
// runtimes marked, with the cause where it is known.
type Matrix struct {
	Generated string       `json:"generated"` // RFC 3339
	Columns   []Column     `json:"columns"`   // Node's in version order, then Go's
	Rows      []MatrixRow  `json:"rows"`      // per kind, in catalog order
	Skipped   []SkippedRun `json:"skipped,omitempty"`
}

// Column is one runtime: its results are under results/matrix/<Name>.
type Column struct {
	Name    string `json:"name"`    // node-v22.11.0, go1.27.3: its folder
	Kind    string `json:"kind"`    // "node" or "go": which claims it runs
	Runtime string `json:"runtime"` // as people read it: Node v22.11.0, Go go1.27.3
	Source  string `json:"source"`  // where it came from: pinned, the machine's, GOTOOLCHAIN
}

// SkippedRun is a runtime the matrix could not install or run, with why.
type SkippedRun struct {
	Runtime string `json:"runtime"`
	Reason  string `json:"reason"`
}

// MatrixRow is one claim over the columns of one kind.
type MatrixRow struct {
	Claim string       `json:"claim"`
	Kind  string       `json:"kind"`
	Cells []MatrixCell `json:"cells"` // one per column of Kind, in column order
	// Changes are the adjacent pairs of columns (with a result each) whose verdicts differ, as
	// "Node v22.11.0 (pass) → Node v24.22.3 (fail)"; none where every runtime agrees.
	Changes []string `json:"changes,omitempty"`
	Why     string   `json:"why,omitempty"` // the catalog's cause of the change, where known
}

// MatrixCell is one claim on one runtime.
type MatrixCell struct {
	Column  string          `json:"column"`
	Outcome verdict.Outcome `json:"outcome,omitempty"` // "" where no result names the claim
	// Asserted says that the cell fails as its tests assert: every failed result is a refutation
	// its test asserts (P7), a finding rather than a red test.
	Asserted bool         `json:"asserted,omitempty"`
	Changed  bool         `json:"changed,omitempty"` // differs from the column before with a result
	Results  []MatrixLink `json:"results,omitempty"`
}

// MatrixLink is one result behind a cell.
type MatrixLink struct {
	Label    string          `json:"label"` // what tells it from the cell's others: cpu=1, default
	Path     string          `json:"path"`  // relative to the results folder
	Outcome  verdict.Outcome `json:"outcome"`
	Asserted bool            `json:"asserted,omitempty"` // its test asserts a refutation
}

// Text is the cell's verdict in words: "fail (refutation asserted)" where its test asserts it.
func (c MatrixCell) Text() string {
	if c.Asserted {
		return string(c.Outcome) + " (refutation asserted)"
	}
	return string(c.Outcome)
}

// Differs says whether the row's verdict differs between runtimes.
func (r MatrixRow) Differs() bool { return len(r.Changes) > 0 }

// BuildMatrix reads each column's results under dir/matrix/<name> and lays them out. A column
// with no results gets empty cells; a broken run among them is an error, as in Load.
func BuildMatrix(dir string, columns []Column, skipped []SkippedRun) (Matrix, error) {
	columns = slices.Clone(columns)
	slices.SortStableFunc(columns, CompareColumns)
	m := Matrix{Columns: columns, Skipped: skipped}
	// byKind[kind][claim][column index] are the results of claim in that column.
	byKind := map[string]map[string]map[int][]MatrixLink{}
	for i, c := range columns {
		if c.Kind != "node" && c.Kind != "go" {
			return Matrix{}, fmt.Errorf("column %s: kind %q; want node or go", c.Name, c.Kind)
		}
		colDir := filepath.Join(dir, results.MatrixDir, c.Name)
		s, err := Load(colDir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoResults) {
			continue // the column's run wrote nothing: its cells stay empty
		}
		if err != nil {
			return Matrix{}, fmt.Errorf("column %s: %w", c.Name, err)
		}
		for _, e := range s.Entries {
			link := MatrixLink{Label: linkLabel(e), Path: path.Join(results.MatrixDir, c.Name, e.Path),
				Outcome: e.Result.Verdict.Outcome, Asserted: e.Result.Expected != nil}
			for _, id := range e.Result.Claims {
				claims := byKind[c.Kind]
				if claims == nil {
					claims = map[string]map[int][]MatrixLink{}
					byKind[c.Kind] = claims
				}
				if claims[id] == nil {
					claims[id] = map[int][]MatrixLink{}
				}
				claims[id][i] = append(claims[id][i], link)
			}
		}
	}
	for _, kind := range []string{"node", "go"} {
		for _, c := range catalog.All() {
			cols, ok := byKind[kind][c.ID]
			if !ok {
				continue
			}
			m.Rows = append(m.Rows, matrixRow(c, kind, columns, cols))
		}
	}
	return m, nil
}

// matrixRow lays out claim c over the columns of kind, from its results by column index.
func matrixRow(c catalog.Claim, kind string, columns []Column, byColumn map[int][]MatrixLink) MatrixRow {
	row := MatrixRow{Claim: c.ID, Kind: kind}
	var last *MatrixCell // the last cell with a result
	lastRuntime := ""
	for i, col := range columns {
		if col.Kind != kind {
			continue
		}
		cell := MatrixCell{Column: col.Name, Results: byColumn[i]}
		cell.Outcome = cellOutcome(cell.Results)
		cell.Asserted = cell.Outcome == verdict.Fail && !slices.ContainsFunc(cell.Results, func(l MatrixLink) bool {
			return l.Outcome == verdict.Fail && !l.Asserted
		})
		if cell.Outcome != "" {
			if last != nil && last.Outcome != cell.Outcome {
				cell.Changed = true
				row.Changes = append(row.Changes, fmt.Sprintf("%s (%s) → %s (%s)", lastRuntime, last.Outcome, col.Runtime, cell.Outcome))
			}
			last, lastRuntime = &cell, col.Runtime
		}
		row.Cells = append(row.Cells, cell)
	}
	if row.Differs() {
		row.Why = c.VersionChange
	}
	return row
}

// cellOutcome is a cell's verdict over its results: fail if any failed, else inconclusive if any
// was, else pass; "" with none.
func cellOutcome(links []MatrixLink) verdict.Outcome {
	if len(links) == 0 {
		return ""
	}
	out := verdict.Pass
	for _, l := range links {
		switch l.Outcome {
		case verdict.Fail:
			return verdict.Fail
		case verdict.Inconclusive:
			out = verdict.Inconclusive
		}
	}
	return out
}

// linkLabel tells a result from the others of its claim on one runtime: its subtests without the
// runtime's name (cpu=1, default), else its test (TestPoolWaves).
func linkLabel(e Entry) string {
	base := e.Base()
	if _, sub, ok := strings.Cut(base, "/"); ok {
		return sub
	}
	return base
}

// ReadMatrix reads dir/matrix.json; ok is false where there is none (no `make matrix` run).
func ReadMatrix(dir string) (m Matrix, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, MatrixFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Matrix{}, false, nil
	}
	if err != nil {
		return Matrix{}, false, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return Matrix{}, false, fmt.Errorf("%s: %w", MatrixFile, err)
	}
	return m, true, nil
}

// KindColumns are m's columns of kind.
func (m Matrix) KindColumns(kind string) []Column {
	return ofKind(m.Columns, kind, func(c Column) string { return c.Kind })
}

// KindRows are m's rows of kind.
func (m Matrix) KindRows(kind string) []MatrixRow {
	return ofKind(m.Rows, kind, func(r MatrixRow) string { return r.Kind })
}

// ofKind are the xs whose kindOf is kind, in order.
func ofKind[T any](xs []T, kind string, kindOf func(T) string) []T {
	var out []T
	for _, x := range xs {
		if kindOf(x) == kind {
			out = append(out, x)
		}
	}
	return out
}

// matrixKinds are the matrix's tables, in order, with their headings.
var matrixKinds = []struct{ kind, title string }{
	{"node", "Node.js claims, by Node version"},
	{"go", "Go claims, by Go version"},
}

// WriteMatrixMarkdown writes m as Markdown: a table per kind, each cell a verdict linking to its
// results (paths relative to the results folder), the rows whose verdict differs between runtimes
// marked ≠ with the runtimes between which it changed and why.
func WriteMatrixMarkdown(w io.Writer, m Matrix) error {
	var b strings.Builder
	fmt.Fprintln(&b, "# Runtime matrix")
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "Every local claim on each runtime it concerns, with the article's parameters (`make matrix`, %s). "+
		"A cell is the verdict of the claim's results on that runtime (fail if any failed, else inconclusive if any was; "+
		"\"fail (refutation asserted)\" where the test asserts that the claim does not hold, a finding rather than a red test); "+
		"its links open the results. A row marked ≠ gives different verdicts on different runtimes, and **bold** cells are where it changed. "+
		"An empty cell (—) has no result.\n", m.Generated)
	for _, k := range matrixKinds {
		cols, rows := m.KindColumns(k.kind), m.KindRows(k.kind)
		if len(cols) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n| claim |", k.title)
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", cell(c.Runtime))
		}
		fmt.Fprint(&b, "\n|---|")
		b.WriteString(strings.Repeat("---|", len(cols)))
		b.WriteString("\n")
		for _, r := range rows {
			mark := ""
			if r.Differs() {
				mark = " ≠"
			}
			fmt.Fprintf(&b, "| %s%s |", r.Claim, mark)
			for _, c := range r.Cells {
				fmt.Fprintf(&b, " %s |", markdownCell(c))
			}
			b.WriteString("\n")
		}
		for _, r := range rows {
			if !r.Differs() {
				continue
			}
			why := r.Why
			if why == "" {
				why = "cause not found yet."
			}
			fmt.Fprintf(&b, "\n%s: %s. Why: %s\n", r.Claim, strings.Join(r.Changes, "; "), why)
		}
	}
	if len(m.Skipped) > 0 {
		fmt.Fprintln(&b, "\n## Runtimes skipped")
		fmt.Fprintln(&b)
		for _, s := range m.Skipped {
			fmt.Fprintf(&b, "- %s: %s\n", s.Runtime, cell(s.Reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownCell is a cell's verdict, bold where it changed, linking to its one result or followed
// by a link per result.
func markdownCell(c MatrixCell) string {
	if c.Outcome == "" {
		return "—"
	}
	word := c.Text()
	if c.Changed {
		word = "**" + word + "**"
	}
	if len(c.Results) == 1 {
		return fmt.Sprintf("[%s](%s)", word, c.Results[0].Path)
	}
	links := make([]string, len(c.Results))
	for i, l := range c.Results {
		links[i] = fmt.Sprintf("[%s](%s)", cell(l.Label), l.Path)
	}
	return word + ": " + strings.Join(links, " ")
}

// CompareColumns orders columns as the matrix shows them: Node's, then Go's, each by version, so
// that adjacent columns are adjacent versions.
func CompareColumns(a, b Column) int {
	if a.Kind != b.Kind {
		return strings.Compare(b.Kind, a.Kind) // node before go
	}
	// The cold-start function's languages (cmd/matrix's function-<language> columns, of kind
	// go) come after the Go versions, in the catalog's order: each is one more stack, not a
	// newer Go.
	if fa, fb := functionColumn(a), functionColumn(b); fa != fb {
		return fa - fb
	}
	return compareVersions(a.Runtime, b.Runtime)
}

// functionColumn is 0 for a runtime's column, and for a function language's column 1 more than
// the language's place in catalog.FunctionLanguages.
func functionColumn(c Column) int {
	lang, ok := strings.CutPrefix(c.Name, "function-")
	if !ok {
		return 0
	}
	return 1 + slices.Index(catalog.FunctionLanguages, lang)
}

// compareVersions orders "Node v22.11.0" before "Node v24.22.3" and "Go go1.26.8" before "Go
// go1.27.3", number by number.
func compareVersions(a, b string) int {
	na, nb := versionNumbers(a), versionNumbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] - nb[i]
		}
	}
	return len(na) - len(nb)
}

// versionNumbers are the numbers in s, in order.
func versionNumbers(s string) []int {
	var out []int
	n, in := 0, false
	for _, r := range s + " " {
		if r >= '0' && r <= '9' {
			n, in = n*10+int(r-'0'), true
			continue
		}
		if in {
			out = append(out, n)
		}
		n, in = 0, false
	}
	return out
}
