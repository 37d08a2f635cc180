package main

// Merging the shards' records and results into the matrix.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
	"github.com/serverless-claims/claims/report"
)

// merge builds the matrix from every shard's descriptor under <dir>/matrix/shards and writes
// matrix.json and matrix.md, as a whole run does.
func merge(o options) error {
	recs, err := readShards(o.dir)
	if err != nil {
		return err
	}
	var columns []report.Column
	var skipped []report.SkippedRun
	ranBy := map[string]string{} // column name: the shard that ran it
	byShard := map[string]shardRecord{}
	for _, r := range recs {
		byShard[r.Shard] = r
	}
	// A shard expected and not there: its job failed or was cancelled before make matrix wrote
	// its descriptor (the last thing it writes), or its artifact never came.
	for _, e := range o.expect {
		if _, ok := byShard[e]; !ok {
			reason := "missing: its shard left no descriptor (its job failed or was cancelled before the shard finished: see that job)"
			fmt.Fprintf(o.out, "matrix: shard %s is %s\n", e, reason)
			skipped = append(skipped, report.SkippedRun{Runtime: e, Reason: reason})
		}
	}
	for _, r := range recs {
		switch {
		case r.Column != nil:
			if other, ok := ranBy[r.Column.Name]; ok {
				return fmt.Errorf("shards %s and %s both ran %s into %s: remove the descriptor of one from %s",
					other, r.Shard, r.Column.Runtime, filepath.Join(o.dir, results.MatrixDir, r.Column.Name), shardsFolder(o.dir))
			}
			ranBy[r.Column.Name] = r.Shard
			columns = append(columns, *r.Column)
		case r.Skipped != nil:
			skipped = append(skipped, *r.Skipped)
		default:
			// The machine's runtime is a pinned one's: that shard's column stands for both,
			// unless it ran none, when the matrix should say the version is missing and why.
			if same, ok := byShard[r.SameAs]; !ok || same.Column == nil {
				why := "its shard left no descriptor"
				if ok && same.Skipped != nil {
					why = same.Skipped.Reason
				}
				skipped = append(skipped, report.SkippedRun{Runtime: r.Shard,
					Reason: fmt.Sprintf("the same version as %s, which ran nothing: %s", r.SameAs, why)})
			}
		}
	}
	m, err := report.BuildMatrix(o.dir, columns, skipped)
	if err != nil {
		return err
	}
	m.Generated = time.Now().UTC().Format(time.RFC3339)
	var md bytes.Buffer
	if err := report.WriteMatrixMarkdown(&md, m); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := wholefile.Write(filepath.Join(o.dir, report.MatrixFile), append(data, '\n')); err != nil {
		return err
	}
	if err := wholefile.Write(filepath.Join(o.dir, "matrix.md"), md.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(o.out, "\n%s\nmatrix: %d runtimes from %d shards -> %s, %s\n", md.String(), len(columns), len(recs),
		filepath.Join(o.dir, "matrix.md"), filepath.Join(o.dir, report.MatrixFile))
	return nil
}

// readShards reads every descriptor under <dir>/matrix/shards, in the order the matrix shows
// their runtimes; none is an error, as the merge of nothing is no matrix.
func readShards(dir string) ([]shardRecord, error) {
	folder := shardsFolder(dir)
	entries, err := os.ReadDir(folder)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var recs []shardRecord
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != shardExt {
			continue // wholefile's temporary files, or something else's
		}
		r, err := readShard(filepath.Join(folder, e.Name()))
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no shard descriptors (*%s) in %s: run each shard first (-shard, with the names -list prints), or the whole matrix", shardExt, folder)
	}
	slices.SortStableFunc(recs, func(a, b shardRecord) int {
		sa, _ := parseShard(a.Shard) // readShard checked them
		sb, _ := parseShard(b.Shard)
		return compareShards(sa, sb)
	})
	return recs, nil
}

// readShard reads one descriptor and checks it, since it comes from another job's artifact: its
// column's name becomes a folder the matrix reads.
func readShard(path string) (shardRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return shardRecord{}, err
	}
	var r shardRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return shardRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	s, err := parseShard(r.Shard)
	if err != nil {
		return shardRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	set := 0
	for _, ok := range []bool{r.Column != nil, r.Skipped != nil, r.SameAs != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return shardRecord{}, fmt.Errorf("%s: %d of column, skipped and same_as; want exactly one", path, set)
	}
	if c := r.Column; c != nil {
		if c.Kind != s.columnKind() {
			return shardRecord{}, fmt.Errorf("%s: column kind %q in shard %s; want %s", path, c.Kind, r.Shard, s.columnKind())
		}
		if c.Name == "" || c.Name == "." || c.Name == ".." || c.Name == shardsDir || strings.ContainsAny(c.Name, `/\`) {
			return shardRecord{}, fmt.Errorf("%s: column name %q; want a folder's name under %s, as node-v24.22.3", path, c.Name, results.MatrixDir)
		}
	}
	return r, nil
}

// compareShards orders shards as -list names them: Node's, then Go's, each by version, the
// machine's last, then the function languages in the catalog's order, so that the skipped
// runtimes come out in one order however the files are named.
func compareShards(a, b shard) int {
	if a.kind != b.kind {
		return slices.Index(shardKinds, a.kind) - slices.Index(shardKinds, b.kind)
	}
	if a.kind == functionKind {
		return slices.Index(catalog.FunctionLanguages, a.arg) - slices.Index(catalog.FunctionLanguages, b.arg)
	}
	am, bm := a.arg == nodePath || a.arg == localGo, b.arg == nodePath || b.arg == localGo
	switch {
	case am && !bm:
		return 1
	case bm && !am:
		return -1
	}
	if c := report.CompareColumns(report.Column{Kind: a.kind, Runtime: a.arg}, report.Column{Kind: b.kind, Runtime: b.arg}); c != 0 {
		return c
	}
	return strings.Compare(a.arg, b.arg)
}
