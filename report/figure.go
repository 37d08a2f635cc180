package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// Figure is one chart drawn from one result file.
type Figure struct {
	Title   string        // what it shows, the same for every variant of one Base
	Caption string        // how to read it, in a line or two
	SVG     template.HTML // from report/svg
	Entry   Entry         // the result it was drawn from: its file, machine and variant
}

// chart draws the figures of one result; a result its family has nothing to draw for gets none.
// An error is a result the chart cannot read, which the page reports in the figure's place.
type chart func(e Entry) ([]Figure, error)

// charts are the charts by the result's family (results/README.md lists the families).
// Each chart lives in a file of its own: charts_eventloop.go, charts_coldstart.go, ...
var charts = map[string]chart{}

// register adds a chart for family; the chart files call it from init.
func register(family string, c chart) {
	if _, dup := charts[family]; dup {
		panic("report: two charts for family " + family)
	}
	charts[family] = c
}

// Row is a group of figures that show one thing for several variants (Node 20 and Node 24,
// local and live), drawn side by side.
type Row struct {
	Group   string // eventloop, threadpool or coldstart: the section it goes in
	Title   string
	Figures []Figure
	Errors  []string // a result a chart could not read: the file and why
}

// Rows draws every entry of s and lays out figures of one Base and title side by side, in the
// set's claim order.
func Rows(s Set) []Row {
	var rows []Row
	index := map[string]int{}
	add := func(key, group, title string) *Row {
		i, ok := index[key]
		if !ok {
			i = len(rows)
			index[key] = i
			rows = append(rows, Row{Group: group, Title: title})
		}
		return &rows[i]
	}
	for _, e := range s.Entries {
		c := charts[e.Result.Family]
		if c == nil {
			continue
		}
		figs, err := c(e)
		if err != nil {
			r := add(e.Base()+"\x00error", e.Group(), e.Base())
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", e.Path, err))
			continue
		}
		for _, f := range figs {
			r := add(e.Base()+"\x00"+f.Title, e.Group(), f.Title)
			r.Figures = append(r.Figures, f)
		}
	}
	for i := range rows {
		slices.SortStableFunc(rows[i].Figures, func(a, b Figure) int {
			return cmp.Or(modeOrder(a.Entry.Result.Mode)-modeOrder(b.Entry.Result.Mode),
				strings.Compare(a.Entry.Runtime(), b.Entry.Runtime()))
		})
	}
	return rows
}

// Group is the section a result belongs in: the folder under results/ its group writes to.
func (e Entry) Group() string {
	family, _, _ := strings.Cut(e.Result.Family, ".")
	return family
}
