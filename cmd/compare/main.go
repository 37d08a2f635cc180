// Command compare says what changed between two result sets: another runtime version, local
// against live, or last month's run against today's. It pairs the results, then lists the verdicts
// that flipped, the figures that moved outside their bands, and the results on one side only.
//
//	go run ./cmd/compare OLD NEW
//
// It exits 1 when a verdict flipped (its outcome, or what its test asserts of it), so CI can stop
// on it; 0 otherwise, however the figures
// moved; 2 on bad input (a missing argument, a folder that does not exist or holds no results).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/serverless-claims/claims/report"
)

// The exit statuses.
const (
	exitSame    = 0 // no verdict flipped
	exitFlipped = 1 // a verdict flipped
	exitUsage   = 2 // bad input: nothing compared
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run compares the sets under args[0] and args[1], writes the report to stdout and any error to
// stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: compare OLD NEW (two folders of results)")
		return exitUsage
	}
	var sets [2]report.Set
	for i, side := range []string{"OLD", "NEW"} {
		s, err := load(args[i])
		if err != nil {
			fmt.Fprintf(stderr, "compare: %s: %v\n", side, err)
			return exitUsage
		}
		sets[i] = s
	}
	c := report.Compare(sets[0], sets[1])
	if err := report.WriteComparison(stdout, c); err != nil {
		fmt.Fprintf(stderr, "compare: %v\n", err)
		return exitUsage
	}
	if len(c.Flips) > 0 {
		return exitFlipped
	}
	return exitSame
}

// load reads the set under dir, saying plainly when dir is not a folder at all: report.Load's
// own error would be the file system's.
func load(dir string) (report.Set, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return report.Set{}, fmt.Errorf("folder %s does not exist", dir)
		}
		return report.Set{}, err
	}
	if !fi.IsDir() {
		return report.Set{}, fmt.Errorf("%s is not a folder", dir)
	}
	return report.Load(dir)
}
