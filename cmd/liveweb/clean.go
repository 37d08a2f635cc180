package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

// The kinds of Web leftover, in the order clean deletes them: functions first (Lambda may write
// to a log group until its function is gone), then log groups, buckets, and last the role the
// functions ran as.
const (
	kindWebFunction = "web-function"
	kindLogGroup    = "log-group"
	kindBucket      = "bucket"
	kindRole        = "role"
)

// runName reads the run id out of a name a deploy gave (claims-<8 hex>-...), for the resources
// that carry no tag of their own: log groups (Lambda makes them) and a bucket whose tagging a
// kill cut short.
var runName = regexp.MustCompile(`^` + regexp.QuoteMeta(live.NamePrefix) + `([0-9a-f]{8})-`)

// webLeftover is one resource of an earlier Web run that clean would delete.
type webLeftover struct {
	Kind, Name, RunID string
}

// inUse says what the endpoints file's deployment (zero: no file) names, so that clean never
// touches it: its run, and each of its resources by name.
type inUse struct {
	runID string
	names map[string]bool
}

func newInUse(d webendpoints.Deployment) inUse {
	u := inUse{runID: d.RunID, names: map[string]bool{}}
	for _, n := range []string{d.Bucket, d.Role} {
		if n != "" {
			u.names[n] = true
		}
	}
	for _, e := range d.Endpoints {
		if e.Function != "" {
			u.names[e.Function] = true
			for _, g := range logGroups(e.Function) {
				u.names[g] = true
			}
		}
	}
	return u
}

// holds says the deployment in use owns the resource named name of run.
func (u inUse) holds(name, run string) bool {
	return u.names[name] || (u.runID != "" && run == u.runID)
}

// findWebLeftovers lists what earlier Web runs left: Web Functions (through the lambda-web API,
// since ListFunctions lists none), their log groups, code buckets and -web-exec roles, each of a
// claims-<run>-... name. A function or role counts only with its claims:run tag (both are created
// with it); a bucket with its tag or, untagged, a name of the deploy's pattern; a log group by
// its name. Nothing of the deployment in use is listed. A listing that fails is reported, the
// others still run, and the failures are returned together.
func findWebLeftovers(ctx context.Context, c cloud, u inUse, out io.Writer) ([]webLeftover, error) {
	var ls []webLeftover
	var errs []error
	keep := func(kind, name, run string) {
		if run == "" {
			return
		}
		if u.holds(name, run) {
			fmt.Fprintf(out, "kept %s %s: run %s is the deployment in the endpoints file\n", kind, name, run)
			return
		}
		ls = append(ls, webLeftover{Kind: kind, Name: name, RunID: run})
	}
	fromName := func(name string) string {
		if m := runName.FindStringSubmatch(name); m != nil {
			return m[1]
		}
		return ""
	}
	fns, err := c.ListWebFunctions(ctx, live.NamePrefix)
	if err != nil {
		errs = append(errs, fmt.Errorf("listing Web Functions: %w", err))
	}
	for _, f := range fns {
		keep(kindWebFunction, f.Name, f.RunID)
	}
	groups, err := c.ListLogGroups(ctx, logGroupPrefix+live.NamePrefix)
	if err != nil {
		errs = append(errs, fmt.Errorf("listing log groups: %w", err))
	}
	for _, g := range groups {
		keep(kindLogGroup, g, fromName(strings.TrimPrefix(g, logGroupPrefix)))
	}
	buckets, err := c.ListBuckets(ctx, live.NamePrefix)
	if err != nil {
		errs = append(errs, fmt.Errorf("listing S3 buckets: %w", err))
	}
	for _, b := range buckets {
		run := b.RunID
		if run == "" && strings.HasSuffix(b.Name, webBucketSuffix) && fromName(b.Name)+webBucketSuffix == strings.TrimPrefix(b.Name, live.NamePrefix) {
			run = fromName(b.Name)
		}
		keep(kindBucket, b.Name, run)
	}
	roles, err := c.ListRoles(ctx, live.NamePrefix)
	if err != nil {
		errs = append(errs, fmt.Errorf("listing IAM roles: %w", err))
	}
	for _, r := range roles {
		keep(kindRole, r.Name, r.RunID)
	}
	return ls, errors.Join(errs...)
}

// cleanOrder is the order of deletion by kind.
var cleanOrder = []string{kindWebFunction, kindLogGroup, kindBucket, kindRole}

// clean lists the Web leftovers, then (unless listOnly) deletes them in cleanOrder, printing
// each. It never deletes a resource of the deployment u names; a deletion that fails is
// reported and the others still run.
func clean(ctx context.Context, c cloud, u inUse, listOnly bool, out io.Writer) error {
	ls, findErr := findWebLeftovers(ctx, c, u, out)
	if findErr != nil {
		fmt.Fprintf(out, "some listings failed: %v\n", findErr)
	}
	if len(ls) == 0 {
		fmt.Fprintln(out, "no leftovers of live-web runs")
		return findErr
	}
	slices.SortStableFunc(ls, func(a, b webLeftover) int {
		return slices.Index(cleanOrder, a.Kind) - slices.Index(cleanOrder, b.Kind)
	})
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tRUN")
	for _, l := range ls {
		fmt.Fprintf(w, "%s\t%s\t%s\n", l.Kind, l.Name, l.RunID)
	}
	_ = w.Flush()
	if listOnly {
		fmt.Fprintln(out, "-n: nothing was deleted")
		return findErr
	}
	errs := []error{findErr}
	for _, l := range ls {
		var err error
		switch l.Kind {
		case kindWebFunction:
			err = c.DeleteWebFunction(ctx, l.Name)
		case kindLogGroup:
			err = c.DeleteLogGroup(ctx, l.Name)
		case kindBucket:
			err = c.DeleteBucket(ctx, l.Name)
		case kindRole:
			err = c.DeleteRole(ctx, l.Name, l.RunID)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", l.Kind, l.Name, err))
			continue
		}
		fmt.Fprintf(out, "deleted %s %s (run %s)\n", l.Kind, l.Name, l.RunID)
	}
	return errors.Join(errs...)
}
