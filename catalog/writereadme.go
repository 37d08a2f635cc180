//go:build ignore

// Writereadme rewrites README.md's claim tables from the catalog (catalog.UpdateReadme): only the
// text between their markers; go generate runs it in this folder. It leaves a file that is
// already up to date untouched, and replaces one that is not whole, since `make lint` runs it
// while other tests read the file.
package main

import (
	"bytes"
	"log"
	"os"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

func main() {
	path, err := repo.Path("README.md")
	if err != nil {
		log.Fatal(err)
	}
	was, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	data, err := catalog.UpdateReadme(was)
	if err != nil {
		log.Fatal(err)
	}
	if bytes.Equal(was, data) {
		return
	}
	if err := wholefile.Write(path, data); err != nil {
		log.Fatal(err)
	}
}
