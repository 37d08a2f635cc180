package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/history"
)

// compare says what differs between two runs of the history: the verdicts that flipped, with
// what else changed, and the records of one run only. Without run IDs it compares the last two
// runs of -kind.
func compare(_ context.Context, args []string, stdout io.Writer) error {
	fs := flags("compare")
	dir := fs.String("history", "", "the history's folder")
	kind := fs.String("kind", "", "compare the last two runs of this kind (without run IDs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-history: name the history's folder")
	}
	runs, err := history.Read(*dir)
	if err != nil {
		return err
	}
	var a, b history.Run
	switch ids := fs.Args(); len(ids) {
	case 2:
		if a, err = byID(runs, ids[0]); err != nil {
			return err
		}
		if b, err = byID(runs, ids[1]); err != nil {
			return err
		}
	case 0:
		if *kind == "" {
			return errors.New("-kind: name the kind whose last two runs to compare, or give two run IDs")
		}
		var own []history.Run
		for _, r := range runs {
			if r.Kind == *kind {
				own = append(own, r)
			}
		}
		if len(own) < 2 {
			return fmt.Errorf("the history holds %d runs of kind %q; want two to compare", len(own), *kind)
		}
		a, b = own[len(own)-2], own[len(own)-1]
	default:
		return fmt.Errorf("want two run IDs or none; got %d", len(ids))
	}
	fmt.Fprintf(stdout, "OLD %s: %d results; NEW %s: %d results\n", a.ID(), len(a.Records), b.ID(), len(b.Records))
	flips := history.Flips([]history.Run{a}, b)
	for _, f := range flips {
		fmt.Fprintf(stdout, "  flipped: %s\n", f)
		for _, ch := range history.Changes(a, b, f.Key) {
			fmt.Fprintf(stdout, "    changed: %s\n", ch)
		}
	}
	var only []string
	for _, r := range a.Records {
		if _, ok := b.Find(r.Key); !ok {
			only = append(only, "  only in OLD: "+r.Key.String())
		}
	}
	for _, r := range b.Records {
		if _, ok := a.Find(r.Key); !ok {
			only = append(only, "  only in NEW: "+r.Key.String())
		}
	}
	for _, l := range only {
		fmt.Fprintln(stdout, l)
	}
	if len(flips) == 0 && len(only) == 0 {
		fmt.Fprintln(stdout, "  no verdict flipped")
	}
	return nil
}

// byID is the run of runs named id.
func byID(runs []history.Run, id string) (history.Run, error) {
	for _, r := range runs {
		if r.ID() == id {
			return r, nil
		}
	}
	return history.Run{}, fmt.Errorf("no run %q in the history", id)
}

// list prints a claim's past: each of its records in each run, oldest first.
func list(_ context.Context, args []string, stdout io.Writer) error {
	fs := flags("list")
	dir := fs.String("history", "", "the history's folder")
	claim := fs.String("claim", "", "the claim's ID, as the catalog has it (T2)")
	kind := fs.String("kind", "", "only runs of this kind")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-history: name the history's folder")
	}
	if _, err := catalog.Lookup(*claim); err != nil {
		return fmt.Errorf("-claim %q: %w", *claim, err)
	}
	runs, err := history.Read(*dir)
	if err != nil {
		return err
	}
	n := 0
	for _, p := range history.Pasts(runs, *kind) {
		if !slices.Contains(p.Claims, *claim) {
			continue
		}
		fmt.Fprintf(stdout, "%s\n", p.Key)
		for _, pt := range p.Runs {
			n++
			mark := ""
			switch {
			case pt.Confirmed:
				mark = " (flip confirmed)"
			case pt.Unconfirmed:
				mark = " (flip not confirmed)"
			}
			margin := ""
			if m := pt.Record.Margin; m != nil {
				margin = fmt.Sprintf(" margin %.2f%s", m.Margin, strings.TrimRight(" "+m.Unit, " "))
			}
			fmt.Fprintf(stdout, "  %s %-9s %-12s%s%s: %s\n", pt.At.Format("2006-01-02 15:04"), pt.Trigger, pt.Record.Outcome, margin, mark, pt.Record.Headline)
		}
	}
	if n == 0 {
		fmt.Fprintf(stdout, "no run in the history has a result of %s\n", *claim)
	}
	return nil
}
