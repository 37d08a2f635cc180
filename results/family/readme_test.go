package family

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/mdtable"
)

// readmeFile documents the families: results/README.md, from this package's folder.
const readmeFile = "../README.md"

// section is the text of a "### name" section of doc, up to the next heading.
func section(doc, name string) string {
	_, rest, ok := strings.Cut(doc, "\n### "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// bullet is the list item of text that starts with start, up to the next item or paragraph.
func bullet(text, start string) string {
	_, rest, ok := strings.Cut(text, "\n- "+start)
	if !ok {
		return ""
	}
	for _, end := range []string{"\n- ", "\n\n"} {
		if i := strings.Index(rest, end); i >= 0 {
			rest = rest[:i]
		}
	}
	return start + rest
}

// familyDocs is, for each family, the text of results/README.md that documents each part: a row
// of the threadpool table (by column), or the bullets of an eventloop or coldstart family with
// those they refer to ("parameters as above", the shared target and invocation bullets).
func familyDocs(t *testing.T, doc string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	all := func(text string) map[string]string {
		return map[string]string{"parameters": text, "target": text, "summary": text, "trials": text}
	}
	el := section(doc, "eventloop")
	base, web, _ := strings.Cut(el, "The Web Functions claims")
	routing := bullet(web, "`eventloop.routing`")
	out["eventloop"] = all(base)
	out["eventloop.routing"] = all(routing + "\n" + base)
	out["eventloop.concurrency"] = all(bullet(web, "`eventloop.concurrency`") + "\n" + routing + "\n" + base)

	tp := section(doc, "threadpool")
	intro, _, _ := strings.Cut(tp, "\n|")
	for _, r := range mdtable.Rows(tp) {
		if len(r.Cells) != 5 {
			continue
		}
		name := strings.Trim(r.Cells[0], "`")
		row := strings.Join(r.Cells, " ")
		out[name] = map[string]string{"parameters": r.Cells[2], "target": intro + row, "summary": r.Cells[3], "trials": r.Cells[4]}
	}

	cs := section(doc, "coldstart")
	csIntro, _, _ := strings.Cut(cs, "\n- ")
	shared := csIntro + bullet(cs, "`target`") + bullet(cs, "An invocation")
	for name := range Families {
		if strings.HasPrefix(name, "coldstart.") {
			out[name] = all(bullet(cs, "`"+name+"`") + "\n" + shared)
		}
	}
	require.NotEmpty(t, out["threadpool.slots"]["summary"], "no threadpool table in %s", readmeFile)
	return out
}

// TestREADMEDocumentsEveryField checks results/README.md's family documentation against the
// types: every family has its row or bullet, and each top-level field of its parameters,
// target, summary and trials (of a list's element) is named there, in backticks. A field added to a family's type fails here, naming
// the family and the part, until the README says what it is.
func TestREADMEDocumentsEveryField(t *testing.T) {
	data, err := os.ReadFile(readmeFile)
	require.NoError(t, err)
	docs := familyDocs(t, string(data))
	for _, name := range keys(Families) {
		p := Families[name]
		d, ok := docs[name]
		if !assert.True(t, ok && strings.TrimSpace(d["summary"]) != "", "%s has no row or bullet for family %s; want one", readmeFile, name) {
			continue
		}
		for _, part := range []struct {
			key string
			t   reflect.Type
		}{{"parameters", p.Parameters}, {"target", p.Target}, {"summary", p.Summary}, {"trials", p.Trials}} {
			if part.t == nil {
				continue
			}
			for _, f := range topFields(part.t) {
				assert.Contains(t, d[part.key], "`"+f.name+"`",
					"results/README.md, family %s: %s field `%s` (%s) is not documented; want it named in the family's %s", name, part.key, f.name, f.goName, where(name, part.key))
			}
		}
	}
}

// where says which text of the README documents a family's part, for a failure message.
func where(name, part string) string {
	if strings.HasPrefix(name, "threadpool.") {
		return fmt.Sprintf("table row, %s column", part)
	}
	return "bullet"
}

// topFields are the fields a part's type has at its top: a struct's, or its elements' for a
// list. Deeper fields are the schema's to list (TestSchemaMatchesTypes checks every level); the
// README says what each part holds.
func topFields(t reflect.Type) []goField {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return jsonFields(t)
}
