package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
)

// Figure is one chart drawn from one result file.
type Figure struct {
	Title   string        // what it shows, the same for every variant of one Base
	Caption string        // how to read it, in a line or two
	SVG     template.HTML // from report/svg
	Entry   Entry         // the result it was drawn from: its file, machine and variant
	// Table holds figures the chart does not draw, shown under its caption: T1's handshake
	// beside the article's. Nil for most figures.
	Table *Table
	// MaxMs is the longest time a figure drawn on a time axis draws, and Rescale draws it
	// again on an axis reaching at least maxMs; nil for a figure that cannot be. A row of
	// several languages draws each mode's figures on the axis of the longest (shareAxis), so
	// that side by side their lengths compare: Python's Init beside Go's, not each on a scale
	// of its own.
	MaxMs   float64
	Rescale func(maxMs float64) template.HTML
	// Column and Line place the figure in a row laid out by language (Row.Languages), from 1:
	// its language's column and its mode's line. Both 0 in a row that flows.
	Column, Line int
}

// Table is a small table of figures with a line under it and notes listed after, for the page
// and the Markdown summary alike.
type Table struct {
	Title   string
	Head    []string   // the columns' headings
	Rows    [][]string // each as long as Head
	Caption string     // a line under the table
	Notes   []string   // sentences listed under it
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
	// Languages are the function languages of a cold-start row's figures, in the catalog's
	// order, where every figure names one and they are more than one. The page then lays the
	// row out as a grid, a column per language and a line per mode (Figure.Column and Line), so
	// that one claim's figures on each language stand side by side, and each language's stay in
	// its column from mode to mode even where a mode lacks a language.
	Languages []string
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
		slices.SortStableFunc(rows[i].Figures, compareFigures)
		layOutLanguages(&rows[i])
	}
	return rows
}

// compareFigures orders a row's figures: by mode, then by their function's language in the
// catalog's order (Go, Rust, Node.js, Python), then by runtime. The runtime is compared last and
// only where the rest are equal, since a cold-start result's Runtime reads its trials
// (functionStack).
func compareFigures(a, b Figure) int {
	if c := cmp.Or(modeOrder(a.Entry.Result.Mode)-modeOrder(b.Entry.Result.Mode),
		languageOrder(a.Entry.FunctionLanguage())-languageOrder(b.Entry.FunctionLanguage())); c != 0 {
		return c
	}
	return strings.Compare(a.Entry.Runtime(), b.Entry.Runtime())
}

// languageOrder is l's place among catalog.FunctionLanguages: -1 for none (a result of another
// group, or made before functions had languages), after them all for a language not listed.
func languageOrder(l string) int {
	if l == "" {
		return -1
	}
	if i := slices.Index(catalog.FunctionLanguages, l); i >= 0 {
		return i
	}
	return len(catalog.FunctionLanguages)
}

// layOutLanguages sets r's Languages and places each figure in its language's column and its
// mode's line, where every figure of r names a function language and they are more than one;
// a row of one language, or one with a figure that names none, flows as before. r's figures
// are in compareFigures' order.
func layOutLanguages(r *Row) {
	var langs []string
	for _, f := range r.Figures {
		l := f.Entry.FunctionLanguage()
		if l == "" {
			return
		}
		if !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	if len(langs) < 2 {
		return
	}
	slices.SortFunc(langs, func(a, b string) int { return cmp.Or(languageOrder(a)-languageOrder(b), strings.Compare(a, b)) })
	r.Languages = langs
	shareAxis(r)
	// Each mode starts on a line of its own, after the last line the mode before it used; a
	// second figure of the same mode and language (two results of one Base) goes on the line
	// under the first.
	used := map[[2]int]bool{}
	var first, last int
	var mode string
	for i := range r.Figures {
		f := &r.Figures[i]
		if i == 0 || f.Entry.Result.Mode != mode {
			mode, first = f.Entry.Result.Mode, last+1
		}
		f.Column = slices.Index(langs, f.Entry.FunctionLanguage()) + 1
		f.Line = first
		for used[[2]int{f.Line, f.Column}] {
			f.Line++
		}
		used[[2]int{f.Line, f.Column}] = true
		last = max(last, f.Line)
	}
}

// sharedAxisNote is what the caption of a figure drawn on a shared axis adds.
const sharedAxisNote = " Drawn on one time axis with the other languages' figures of this row in the same mode, so that their lengths compare."

// shareAxis draws the figures of each mode of r that can be drawn again (Figure.Rescale) on one
// time axis, the longest of theirs, and says so in their captions. Each mode has its own: a
// live cold start's network and Lambda's CPU are not the stand-ins', and drawn on one axis with
// them the shorter would shrink past reading.
func shareAxis(r *Row) {
	longest := map[string]float64{}
	n := map[string]int{}
	for _, f := range r.Figures {
		if m := f.Entry.Result.Mode; f.Rescale != nil {
			longest[m] = max(longest[m], f.MaxMs)
			n[m]++
		}
	}
	for i := range r.Figures {
		if f := &r.Figures[i]; f.Rescale != nil && n[f.Entry.Result.Mode] > 1 {
			f.SVG = f.Rescale(longest[f.Entry.Result.Mode])
			f.Caption += sharedAxisNote
		}
	}
}

// Group is the section a result belongs in: the folder under results/ its group writes to.
func (e Entry) Group() string {
	family, _, _ := strings.Cut(e.Result.Family, ".")
	return family
}
