package mdtable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/sys/mdtable"
)

func TestSplitRowKeepsEscapedPipes(t *testing.T) {
	got := mdtable.SplitRow("| a | `x \\| y` | c |")
	assert.Equal(t, []string{"a", "`x | y`", "c"}, got, "cells of a row with an escaped pipe")
	got = mdtable.SplitRow("| a | b \\|")
	assert.Equal(t, []string{"a", "b |"}, got, "cells of a row ending in an escaped pipe")
}

func TestRowsLeaveOutHeadersAndDelimiters(t *testing.T) {
	doc := "# T\n\n## One\n\n| h1 | h2 |\n|---|:--:|\n| a | b |\n| c | d |\n\ntext | not a row\n## Two\n| e | f |\n"
	rows := mdtable.Rows(doc)
	want := []mdtable.Row{
		{Line: 7, Section: "One", Cells: []string{"a", "b"}},
		{Line: 8, Section: "One", Cells: []string{"c", "d"}},
		{Line: 12, Section: "Two", Cells: []string{"e", "f"}},
	}
	assert.Equal(t, want, rows, "rows of a document with two sections")
}
