// Command report renders the results a run wrote (results/**/*.json, never results/sensitivity)
// as results/report.md, the summary table, and results/report.html, one self-contained page
// with the summary and every figure the results draw.
//
//	go run ./cmd/report [-dir results] [-md results/report.md] [-html results/report.html]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/serverless-claims/claims/harness/sys/wholefile"
	"github.com/serverless-claims/claims/report"
)

func main() {
	dir := flag.String("dir", "results", "folder the results are under")
	md := flag.String("md", "", "the Markdown summary to write (default <dir>/report.md); - for stdout")
	page := flag.String("html", "", "the HTML page to write (default <dir>/report.html)")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*dir, *md, *page); err != nil {
		log.Fatalf("report: %v", err)
	}
}

func run(dir, md, page string) error {
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
	var m, h bytes.Buffer
	if err := report.WriteMarkdown(&m, s); err != nil {
		return err
	}
	if err := report.WriteHTML(&h, s, time.Now()); err != nil {
		return err
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
	fmt.Printf("report: %d results -> %s, %s\n", len(s.Entries), md, page)
	return nil
}
