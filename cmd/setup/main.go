// Command setup installs what the experiments need and the machine lacks (Node 24, dynalite) and
// checks the C compiler: `make setup` runs it, and the experiment packages run the same code
// (harness/sys/provision) before their tests, so it is never a required first step. It also installs
// Debian's shellcheck, for make lint, and chromium, for the report's browser test only, which only
// it does. Not root, it runs apt-get through sudo -n; where it cannot install a Debian package it
// does every other step, then fails naming the one command that installs what is missing.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/serverless-claims/claims/harness/sys/provision"
)

func main() {
	// Ctrl-C stops npm; an unfinished install is never put in place (harness/sys/provision).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := provision.All(ctx, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "setup: %v\n", err)
		stop()
		os.Exit(1)
	}
}
