package main

// history confirm: a flipped claim's test run a second time, in another job, and what record
// -confirmed reads of it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// ConfirmationsFile is what confirm writes into its -out folder, beside the second runs' result
// files (again/), for record -confirmed to read in another job.
const ConfirmationsFile = "confirmations.json"

// confirm runs the flipped claims again and writes the confirmations and the second runs' files
// into -out, for a record in another job (-confirmed).
func confirm(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flags("confirm")
	var f runFlags
	f.register(fs)
	out := fs.String("out", "", "the folder to write the confirmations and the second runs' result files into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("-out: name the folder for the confirmations")
	}
	p, err := prepare(f)
	if err != nil {
		return err
	}
	cs, again, err := runAgain(ctx, f, p, filepath.Join(*out, "again"), stdout)
	if err != nil {
		return err
	}
	for i := range cs {
		cs[i].Changes = nil // record works them out against the history it appends to
	}
	saved := savedConfirmations{Confirmations: cs}
	for k, file := range again {
		rel, err := filepath.Rel(*out, file)
		if err != nil {
			return err
		}
		saved.Again = append(saved.Again, againFile{Key: k, File: filepath.ToSlash(rel)})
	}
	data, err := json.MarshalIndent(saved, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "history: %d flips since %s, %d confirmed -> %s\n", len(p.flips), lastID(p), confirmedCount(cs), filepath.Join(*out, ConfirmationsFile))
	return wholefile.Write(filepath.Join(*out, ConfirmationsFile), append(data, '\n'))
}

// savedConfirmations is confirm's file: the confirmations, and each second run's result file
// relative to the folder.
type savedConfirmations struct {
	Confirmations []history.Confirmation `json:"confirmations"`
	Again         []againFile            `json:"again"`
}

// againFile is a second run's result file, relative to the confirmations' folder.
type againFile struct {
	history.Key
	File string `json:"file"`
}

func lastID(p prepared) string {
	if !p.hasLast {
		return "(no earlier run of its kind)"
	}
	return p.last.ID()
}

func confirmedCount(cs []history.Confirmation) int {
	n := 0
	for _, c := range cs {
		if c.Confirmed {
			n++
		}
	}
	return n
}

// runAgain runs each flip's claim again into dir and keeps each second run's result file there.
func runAgain(ctx context.Context, f runFlags, p prepared, dir string, stdout io.Writer) ([]history.Confirmation, map[history.Key]string, error) {
	if len(p.flips) == 0 {
		return nil, nil, nil
	}
	rr := &goTest{command: f.rerun, out: stdout}
	cs, files := history.Confirm(ctx, p.past, p.now, p.flips, rr)
	kept := map[history.Key]string{}
	for k, file := range files {
		to := filepath.Join(dir, results.FileName(k.Experiment+"/"+k.Mode+"/"+k.Column))
		if err := copyFile(file, to); err != nil {
			return nil, nil, err
		}
		kept[k] = to
	}
	rr.cleanup()
	return cs, kept, ctx.Err()
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return wholefile.Write(to, data)
}

// readConfirmations reads the confirm -out folders under dir (dir itself, or its subfolders,
// one per shard), and leaves unconfirmed, saying so, each flip none of them ran again.
func readConfirmations(dir string, p prepared) ([]history.Confirmation, map[history.Key]string, error) {
	found := map[history.Key]history.Confirmation{}
	again := map[history.Key]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != ConfirmationsFile {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var s savedConfirmations
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, c := range s.Confirmations {
			found[c.Key] = c
		}
		for _, a := range s.Again {
			again[a.Key] = filepath.Join(filepath.Dir(path), filepath.FromSlash(a.File))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var cs []history.Confirmation
	for _, fl := range p.flips {
		c, ok := found[fl.Key]
		if !ok || c.Was != fl.Was || c.Now != fl.Now {
			c = history.Confirmation{Flip: fl, Why: "no second run of this flip among the confirmations"}
		}
		c.Changes = history.Changes(fl.Baseline(p.past), p.now, fl.Key)
		cs = append(cs, c)
	}
	return cs, again, nil
}
