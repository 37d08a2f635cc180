package report

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
	"time"
)

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"verdictText": verdictText,
	"join":        func(ids []string) string { return strings.Join(ids, ", ") },
	// noLiveAgreement is the history's line where no claim has both a local and a live record.
	"noLiveAgreement": func() string { return NoLiveAgreement },
	// pageTime and rfc3339 write a time for people and for the page's script; gapText a gap
	// of a schedule (Schedule) in words.
	"pageTime": pageTime,
	"gapText":  GapText,
	"rfc3339":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	// stale is when, by its reader's clock, the page is out of date (History.Stale), with the
	// schedule that says so; nil where no schedule can go stale.
	"stale": func(h *History) map[string]any {
		at, kind := h.Stale()
		if at.IsZero() {
			return nil
		}
		return map[string]any{"At": at, "Kind": kind}
	},
}).Parse(pageTemplate))

// Section is one group's figures on the page.
type Section struct {
	Group, Title string
	Rows         []Row
}

// sectionTitles are the groups in page order, with their headings.
var sectionTitles = []struct{ group, title string }{
	{"eventloop", "The event loop and the Web Functions router (W)"},
	{"coldstart", "Cold starts and Lambda's CPU (T)"},
	{"threadpool", "libuv's thread pool (P)"},
}

// WriteHTML writes s as one self-contained page: the summary table, the runtime matrix and the
// verdict history where s has them, then every figure its results draw, each with the file it came from and the machine it ran on. The page loads
// nothing: its styles are inline and its charts are inline SVG, so it opens offline and prints.
func WriteHTML(w io.Writer, s Set, generated time.Time) error {
	rows := Rows(s)
	var sections []Section
	for _, st := range sectionTitles {
		sec := Section{Group: st.group, Title: st.title}
		for _, r := range rows {
			if r.Group == st.group {
				sec.Rows = append(sec.Rows, r)
			}
		}
		if len(sec.Rows) > 0 {
			sections = append(sections, sec)
		}
	}
	return page.Execute(w, struct {
		Dir        string
		Generated  string
		Summaries  []Summary
		Judgements []Judgement
		Machines   []string
		Sections   []Section
		Uncovered  []string
		Matrix     *matrixPage
		History    *History
	}{
		Dir: s.Dir, Generated: generated.UTC().Format(time.RFC3339), Summaries: Summaries(s), Judgements: Judgements(s),
		Machines: machines(s), Sections: sections, Uncovered: uncoveredIDs(s), Matrix: newMatrixPage(s.Matrix),
		History: s.History,
	})
}

// matrixPage is the runtime matrix as the page draws it: a table per kind.
type matrixPage struct {
	Generated string
	Tables    []matrixTable
	Skipped   []SkippedRun
}

type matrixTable struct {
	Title   string
	Columns []Column
	Rows    []MatrixRow
}

// newMatrixPage is m's tables; nil without a matrix.
func newMatrixPage(m *Matrix) *matrixPage {
	if m == nil {
		return nil
	}
	p := &matrixPage{Generated: m.Generated, Skipped: m.Skipped}
	for _, k := range matrixKinds {
		if cols := m.KindColumns(k.kind); len(cols) > 0 {
			p.Tables = append(p.Tables, matrixTable{Title: k.title, Columns: cols, Rows: m.KindRows(k.kind)})
		}
	}
	return p
}

func uncoveredIDs(s Set) []string {
	var ids []string
	for _, c := range Uncovered(s) {
		ids = append(ids, c.ID)
	}
	return ids
}
