// Command selections prints the Makefile's selections of claim tests (catalog.Selections) as
// Makefile assignments: the Makefile writes them to .cache/selections.mk and includes it, so that
// the test names and languages it passes to go test are the catalog's, never typed again.
package main

import (
	"fmt"
	"os"

	"github.com/serverless-claims/claims/catalog"
)

func main() {
	if err := catalog.WriteMakefile(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "selections: %v\n", err)
		os.Exit(1)
	}
}
