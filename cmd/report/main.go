// Command report renders the results a run wrote (results/**/*.json, never results/sensitivity)
// as results/report.md, the summary table, and results/report.html, one self-contained page
// with the summary and every figure the results draw. With -history, both also show the
// verdict history kept there (harness/claim/history): each claim's verdicts run after run, its
// margin to the bound over time, the warnings before a flip, and local against live, under a
// line that says when the history last changed and which scheduled runs are missing. With
// -site, the same page is also written as a static site for GitHub Pages (report.WriteSite):
// index.html and the result files it links to.
//
//	go run ./cmd/report [-dir results] [-md results/report.md] [-html results/report.html] [-history DIR [-site DIR]]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
	"github.com/serverless-claims/claims/report"
)

func main() {
	dir := flag.String("dir", "results", "folder the results are under")
	md := flag.String("md", "", "the Markdown summary to write (default <dir>/report.md); - for stdout")
	page := flag.String("html", "", "the HTML page to write (default <dir>/report.html)")
	hist := flag.String("history", "", "the verdict history's folder (cmd/history's -history) to show beside the results; none by default")
	site := flag.String("site", "", "a folder to write the page into as a static site (index.html and the results it links to), replaced whole; needs -history")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*dir, *md, *page, *hist, *site); err != nil {
		log.Fatalf("report: %v", err)
	}
}

func run(dir, md, page, hist, site string) error {
	if site != "" && hist == "" {
		return fmt.Errorf("-site %s without -history: the site's page says when the history last changed and which scheduled runs are missing", site)
	}
	if md == "" {
		md = filepath.Join(dir, "report.md")
	}
	if page == "" {
		page = filepath.Join(dir, "report.html")
	}
	s, err := report.Load(dir)
	if err != nil {
		return err
	}
	if hist != "" {
		// history.Read takes a missing folder for an empty history (a branch not made yet);
		// named here, a missing folder is far likelier a wrong path, and is refused.
		if fi, err := os.Stat(hist); err != nil {
			return fmt.Errorf("the history: %w", err)
		} else if !fi.IsDir() {
			return fmt.Errorf("the history: %s is not a folder", hist)
		}
		runs, err := history.Read(hist)
		if err != nil {
			return fmt.Errorf("the history: %w", err)
		}
		s.History = report.NewHistory(runs)
	}
	var m, h bytes.Buffer
	if err := report.WriteMarkdown(&m, s); err != nil {
		return err
	}
	now := time.Now()
	if err := report.WriteHTML(&h, s, now); err != nil {
		return err
	}
	// The site first: refused (a folder that overlaps the results), it leaves the report as it was.
	if site != "" {
		if err := report.WriteSite(site, s, now); err != nil {
			return err
		}
		fmt.Printf("report: the site -> %s\n", filepath.Join(site, report.SiteIndex))
	}
	if md == "-" {
		_, err := os.Stdout.Write(m.Bytes())
		return err
	}
	if err := wholefile.Write(md, m.Bytes()); err != nil {
		return err
	}
	if err := wholefile.Write(page, h.Bytes()); err != nil {
		return err
	}
	if s.History != nil {
		fmt.Printf("report: %d results and %d runs of history -> %s, %s\n", len(s.Entries), s.History.Runs, md, page)
		return nil
	}
	fmt.Printf("report: %d results -> %s, %s\n", len(s.Entries), md, page)
	return nil
}
