// Command report renders the results a run wrote (results/**/*.json) as one Markdown table: each
// claim, our verdict and figures, and the article's figure beside them.
//
//	go run ./cmd/report [-dir results] [-o results/report.md]
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/results"
)

func main() {
	dir := flag.String("dir", "results", "folder the results are under")
	out := flag.String("o", "results/report.md", "the Markdown file to write; - for stdout")
	flag.Parse()
	log.SetFlags(0)

	rs, err := load(*dir)
	if err != nil {
		log.Fatalf("report: %v", err)
	}
	if len(rs) == 0 {
		log.Fatalf("report: no results under %s: run `make experiments` first", *dir)
	}
	if *out == "-" {
		render(os.Stdout, rs)
		return
	}
	var b strings.Builder
	render(&b, rs)
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatalf("report: %v", err)
	}
	fmt.Printf("report: %d results -> %s\n", len(rs), *out)
}

// load reads every result file under dir, in claim order.
func load(dir string) ([]results.Result, error) {
	var rs []results.Result
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// The schema is not a result, and runs against broken targets are evidence about the
		// tests, never findings.
		if d.IsDir() && path != dir && (d.Name() == results.SensitivityDir || d.Name() == "schema") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".json" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		r, err := results.Read(path)
		if err != nil {
			return err
		}
		if r.Broken != "" {
			return fmt.Errorf("%s: a run against a target broken on purpose (%s) outside %s/", path, r.Broken, results.SensitivityDir)
		}
		rs = append(rs, r)
		return nil
	})
	slices.SortStableFunc(rs, func(a, b results.Result) int {
		return cmp.Or(strings.Compare(a.Experiment, b.Experiment), strings.Compare(a.Mode, b.Mode))
	})
	return rs, err
}

// render writes the table. A cell's "|" is escaped so a reason cannot break the table.
func render(w io.Writer, rs []results.Result) {
	fmt.Fprintln(w, "# Claims report")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| claims | experiment | mode | verdict | ours | published | reason |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | `%s` | %s | **%s** | %s | %s | %s |\n",
			cell(strings.Join(r.Claims, ", ")), r.Experiment, r.Mode, r.Verdict.Outcome,
			cell(ours(r)), cell(published(r)), cell(r.Verdict.Reason))
	}
	fmt.Fprintln(w)
	if len(rs) > 0 {
		e := rs[0].Environment
		var nodes []string
		for _, r := range rs {
			for _, n := range strings.Split(r.Environment.Node, ", ") { // a result over several runtimes lists them
				if n != "" && !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			}
		}
		fmt.Fprintf(w, "Measured on %s, %d cores, kernel %s; Go %s, Node %s (each JSON file has its own environment).\n",
			e.CPUModel, e.Cores, e.Kernel, e.Go, strings.Join(nodes, " and "))
	}
}

// ours is our key figures: the result's headline.
func ours(r results.Result) string { return r.Headline }

// published is the articles' figures for r's claims, each with its claim where r has several.
func published(r results.Result) string {
	var parts []string
	for _, p := range r.Published {
		if p.Figure == "" {
			continue
		}
		if len(r.Published) > 1 {
			parts = append(parts, p.Claim+": "+p.Figure)
		} else {
			parts = append(parts, p.Figure)
		}
	}
	if len(parts) == 0 {
		return "(none published)"
	}
	return strings.Join(parts, "; ")
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
