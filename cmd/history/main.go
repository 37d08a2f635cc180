// Command history keeps the verdict history (harness/claim/history): it records a result set as
// a run, has the verdicts that flipped since the last run of its kind confirmed by running their
// claims again, alerts on the confirmed ones, and compares and lists runs.
//
//	go run ./cmd/history record  -history DIR -results DIR -kind KIND [-confirmed DIR] [-rerun CMD] [-alerts DIR | -github OWNER/REPO]
//	go run ./cmd/history confirm -history DIR -results DIR -kind KIND -out DIR [-rerun CMD]
//	go run ./cmd/history compare -history DIR [-kind KIND] [RUN RUN]
//	go run ./cmd/history list    -history DIR -claim ID [-kind KIND]
//	go run ./cmd/history push    -history DIR -branch BRANCH [-remote origin] [-message MSG] [-tries 10]
//
// record confirms (or takes the confirmations a sharded job made with confirm and -confirmed),
// appends the run, and reports: confirmed and unconfirmed flips with what else changed, claims
// inconclusive run after run, margins that shrank by more than half, a scheduled run that went
// missing. It sends the alerts (those the last run of its kind kept unsent first) before it
// appends the run, keeping in the run those it could not send. A claim inconclusive run after run
// or whose margin shrank is a warning: an issue of its own label per claim, which never changes
// the exit status, also when it could not be sent (it is kept, and said on standard error). It
// exits 1 when a flip was confirmed, 2 on bad input or an alert other than a warning not sent,
// else 0.
//
// push commits the history's checkout and pushes it to its branch, fetching and rebasing onto
// the branch and trying again (up to -tries, waiting longer each time) when another writer
// pushed first: two workflows that record at once both land.
//
// A flipped claim is run again with `go test` in its package, with the tags and settings of its
// mode and this process's environment; -rerun replaces that with a command (sh -c), whose
// {test}, {run}, {pkg}, {tags} and {dir} are the test, its -run pattern, its package, its build
// tags and the folder to write the result into (CLAIMS_RESULTS_DIR is set to it too).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// The exit statuses.
const (
	exitOK        = 0 // nothing confirmed flipped
	exitConfirmed = 1 // a flip was confirmed
	exitUsage     = 2 // bad input, or a step that failed
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errConfirmed is record's outcome when a flip was confirmed: the job fails on it.
var errConfirmed = errors.New("a verdict flip was confirmed")

// run runs the subcommand args[0] and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: history record|confirm|compare|list|push [flags] (go doc ./cmd/history)")
		return exitUsage
	}
	cmds := map[string]func(context.Context, []string, io.Writer) error{
		"record": func(ctx context.Context, args []string, stdout io.Writer) error {
			return record(ctx, args, stdout, stderr)
		},
		"confirm": confirm, "compare": compare, "list": list, "push": push,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "history: no subcommand %q: want record, confirm, compare, list or push\n", args[0])
		return exitUsage
	}
	err := cmd(ctx, args[1:], stdout)
	switch {
	case errors.Is(err, errConfirmed):
		fmt.Fprintf(stderr, "history: %v\n", err)
		return exitConfirmed
	case err != nil:
		fmt.Fprintf(stderr, "history %s: %v\n", args[0], err)
		return exitUsage
	}
	return exitOK
}

// flags is a subcommand's flag set, which reports its errors instead of exiting.
func flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
