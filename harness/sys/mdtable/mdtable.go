// Package mdtable reads the Markdown tables that the repository's documents keep and its tests
// check against the code: the README's claim tables, docs/fidelity.md's behaviours of AWS, docs/layout.md's packages.
package mdtable

import "strings"

// Row is one table row of a document.
type Row struct {
	// Line is the row's 1-based line number in the document, for a test's failure message.
	Line int
	// Section is the text of the nearest "## " heading above the row, without the hashes.
	Section string
	// Cells are the row's cells, trimmed and unescaped (SplitRow).
	Cells []string
}

// Rows returns every table row of a Markdown document, the header rows and the delimiter rows
// (|---|) left out. A header row is the one right above a delimiter row.
func Rows(doc string) []Row {
	lines := strings.Split(doc, "\n")
	var rows []Row
	section := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimSpace(strings.TrimPrefix(line, "## "))
		case !strings.HasPrefix(trimmed, "|"), isDelimiter(trimmed):
		case i+1 < len(lines) && isDelimiter(strings.TrimSpace(lines[i+1])):
			// the header
		default:
			rows = append(rows, Row{Line: i + 1, Section: section, Cells: SplitRow(line)})
		}
	}
	return rows
}

// isDelimiter reports whether a trimmed line is a table's delimiter row: pipes, dashes, colons.
func isDelimiter(line string) bool {
	if !strings.HasPrefix(line, "|") || !strings.Contains(line, "-") {
		return false
	}
	return strings.Trim(line, "|-: ") == ""
}

// SplitRow splits a Markdown table row into its cells, trimmed, at the pipes that are not
// escaped with a backslash (as GitHub does, inside code spans too), and unescapes the rest.
func SplitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}
