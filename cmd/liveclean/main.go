// Command liveclean finds what earlier live runs left on AWS (functions, roles, tables carrying
// the claims:run tag, and their functions' log groups /aws/lambda/claims-<run>-…; `make
// live-clean` runs it) and deletes it, printing each. -n only lists. It never touches the run of
// the Web deployment named in the endpoints file (.cache/live-web/endpoints.json; -web-endpoints
// names another), which `make live-web-destroy` deletes. Credentials come from the SDK's default
// chain, as for the live run; it prints neither them nor account ids.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command, with its arguments, output and the SDK's load options as parameters, for
// the tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...func(*config.LoadOptions) error) int {
	fs := flag.NewFlagSet("liveclean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listOnly := fs.Bool("n", false, "list the leftovers only; delete nothing")
	endpoints := fs.String("web-endpoints", "", "the Web endpoints file whose deployment is spared (default .cache/live-web/endpoints.json)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "liveclean: %s\n", live.RedactARN(err.Error()))
		return 1
	}
	c, err := live.ConfigFromEnv()
	if err != nil {
		return fail(err)
	}
	awsCfg, err := live.LoadAWS(ctx, c, opts...)
	if err != nil {
		return fail(err)
	}
	if *endpoints == "" {
		path, err := webendpoints.File()
		if err != nil {
			return fail(err)
		}
		*endpoints = path
	}
	inUse, err := live.InUseFromFile(*endpoints)
	if err != nil {
		return fail(err)
	}
	for _, run := range inUse.RunIDs {
		fmt.Fprintf(stdout, "sparing run %s: the Web deployment in %s uses it (`make live-web-destroy` deletes it)\n", run, inUse.Source)
	}
	ls, err := live.FindLeftovers(ctx, awsCfg, c, inUse)
	if err != nil {
		return fail(err)
	}
	if len(ls) == 0 {
		fmt.Fprintf(stdout, "no leftovers of live runs in %s\n", awsCfg.Region)
		return 0
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tRUN\tCREATED")
	for _, l := range ls {
		created := "?"
		if !l.Created.IsZero() {
			created = l.Created.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", l.Kind, l.Name, l.RunID, created)
	}
	_ = w.Flush()
	if *listOnly {
		return 0
	}
	if err := live.DeleteLeftovers(ctx, awsCfg, c, ls, stdout); err != nil {
		return fail(err)
	}
	return 0
}
