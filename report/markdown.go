package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the summary of s as one Markdown table, with the file each row came from,
// and the verdict history's section where s has one.
func WriteMarkdown(w io.Writer, s Set) error {
	var b strings.Builder
	fmt.Fprintln(&b, "# Claims report")
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "%d results from `%s`. A verdict the test asserts as a refutation reads \"fail (refutation asserted)\": the claim does not hold on these runtimes, and the test passes while that stays so.\n\n", len(s.Entries), s.Dir)
	writeJudgementsMarkdown(&b, Judgements(s))
	fmt.Fprintln(&b, "| claims | experiment | mode | runtimes | verdict | ours | published | reason | file |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range Summaries(s) {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | **%s** | %s | %s | %s | `%s` |\n",
			cell(strings.Join(r.Claims, ", ")), r.Experiment, r.Mode, cell(r.Runtimes), verdictText(r),
			cell(r.Ours), cell(r.Published), cell(r.Reason), r.Source)
	}
	fmt.Fprintln(&b)
	for _, m := range machines(s) {
		fmt.Fprintf(&b, "Measured on %s.\n", m)
	}
	if s.Matrix != nil {
		fmt.Fprintf(&b, "\nThe runtime matrix (`make matrix`, %s), each claim by each runtime it concerns, is in `matrix.md`.\n", s.Matrix.Generated)
	}
	if u := Uncovered(s); len(u) > 0 {
		fmt.Fprintln(&b)
		fmt.Fprint(&b, "No result here for:")
		for _, c := range u {
			fmt.Fprintf(&b, " %s", c.ID)
		}
		fmt.Fprintln(&b, ".")
	}
	writeTablesMarkdown(&b, coldArticleTables(s))
	if s.History != nil {
		writeHistoryMarkdown(&b, s.History)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// entryTable is a table of one result's figures, for the Markdown summary, which draws no
// chart: the table the page shows under the result's figure.
type entryTable struct {
	Entry Entry
	Table *Table
}

// writeTablesMarkdown writes each table under a heading of its own, naming its result: its
// experiment, variant and file, so that four languages' tables of one claim read in turn.
func writeTablesMarkdown(b *strings.Builder, tables []entryTable) {
	for i, et := range tables {
		e, t := et.Entry, et.Table
		if i == 0 || t.Title != tables[i-1].Table.Title {
			fmt.Fprintf(b, "\n## %s (%s)\n", t.Title, strings.Join(e.Result.Claims, ", "))
		}
		fmt.Fprintf(b, "\n### `%s` · %s\n\n", e.Result.Experiment, cell(e.Variant()))
		fmt.Fprintf(b, "From `%s`.\n\n", e.Path)
		fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(mapCells(t.Head), " | "), strings.Repeat("---|", len(t.Head)))
		for _, r := range t.Rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(mapCells(r), " | "))
		}
		if t.Caption != "" {
			fmt.Fprintf(b, "\n%s\n", t.Caption)
		}
		if len(t.Notes) > 0 {
			fmt.Fprintln(b)
			for _, n := range t.Notes {
				fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(n, "\n", " "))
			}
		}
	}
}

// mapCells is each of cells kept on its table row (cell).
func mapCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = cell(c)
	}
	return out
}

// verdictText is the verdict with, for a refutation the test asserts, that it is asserted.
func verdictText(r Summary) string {
	if r.Asserted != "holds" {
		return string(r.Outcome) + " (refutation asserted)"
	}
	return string(r.Outcome)
}

// machines are the distinct machines s ran on.
func machines(s Set) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if m := e.Machine(); !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// cell keeps a table cell on its row: a "|" is escaped and a line break becomes a space.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeJudgementsMarkdown writes the results of a platform that judges the model, the article's
// claim, the model's prediction and the platform's verdict side by side, where the two disagree
// first: each such row is a finding about the model.
func writeJudgementsMarkdown(b *strings.Builder, js []Judgement) {
	if len(js) == 0 {
		return
	}
	fmt.Fprintln(b, "## The model, judged")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "On a platform that judges the local model (AWS) each test asserts the article's claim and records what the model predicted. Where the two disagree, the finding is about the model; those rows come first.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| claims | experiment | the article | the model predicted | the platform's verdict | file |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|")
	for _, j := range js {
		v := string(j.Platform)
		if j.Disagrees {
			v = "**" + v + " (the model disagrees)**"
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s | `%s` |\n", cell(strings.Join(j.Claims, ", ")), j.Experiment, cell(j.Article), cell(j.Model), v, j.Source)
	}
	fmt.Fprintln(b)
}
