// Command hello is a main package small enough to build twice from empty build caches in
// lambdazip's reproducibility test.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Fprintln(os.Stdout, "hello") }
