package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// Need is one thing a test package needs before its first test.
type Need int

// What experiment packages can need.
const (
	// WantNode24 installs Node 24 where it can; where it cannot (no npm, a failed install), a
	// note says why and the tests run on the node on PATH.
	WantNode24 Need = iota + 1
	// NeedNode24 installs Node 24 or fails naming what is missing. Only where Node24Package
	// cannot run at all do the tests go on without it.
	NeedNode24
	// NeedNode requires some Node.js runtime, as runtimes.FindNode picks it.
	NeedNode
	// NeedDynalite installs dynalite.
	NeedDynalite
	// NeedCC requires the C compiler.
	NeedCC
	// NeedRust installs the distribution's Rust toolchain and cross gcc (RustPackages).
	NeedRust
	// NeedPython installs Debian's Python and boto3 (PythonPackages).
	NeedPython
	// NeedFunctionChecks installs the linters of the functions' own checks (FunctionCheckPackages).
	NeedFunctionChecks
)

// PrebuiltEnv, when set, is the absolute path of a folder of function zips that `make package`
// built (its .cache/package): harness/lambda/lambdazip then takes each function in a language
// other than Go from it instead of building it, and NeedRust and NeedPython install nothing, as
// nothing here builds those functions. It is for a machine that must install nothing: the live
// workflow's job that holds the AWS credentials, whose build job made the zips (docs/ci.md).
const PrebuiltEnv = "CLAIMS_LAMBDA_PREBUILT"

// String names the need in messages.
func (n Need) String() string {
	switch n {
	case WantNode24:
		return "Node 24 (wanted)"
	case NeedNode24:
		return "Node 24"
	case NeedNode:
		return "Node.js"
	case NeedDynalite:
		return "dynalite"
	case NeedCC:
		return "a C compiler"
	case NeedRust:
		return "Debian's Rust toolchain"
	case NeedPython:
		return "Debian's Python and boto3"
	case NeedFunctionChecks:
		return "the functions' linters"
	}
	return fmt.Sprintf("Need(%d)", int(n))
}

// Check is an experiment package's check for claimtest.Main: it installs what the package
// needs before any test starts, printing what it did to stderr, and its error names what is
// missing, which stops the run.
func Check(needs ...Need) func(settings.Settings) error {
	return func(settings.Settings) error { return Ensure(context.Background(), os.Stderr, needs...) }
}

// Ensure installs or checks each need in turn, printing a line for each to w. See
// Provisioner.Ensure.
func Ensure(ctx context.Context, w io.Writer, needs ...Need) error {
	p, err := Default(w)
	if err != nil {
		return err
	}
	return p.Ensure(ctx, needs...)
}

// Ensure installs or checks each need in turn, under one lock, and returns every failure, so a
// run names all that is missing at once (the Debian packages in one command). Node 24 is not
// installed when CLAIMS_NODE is set: the user chose the runtime, and runtimes.FindNode takes it
// first.
func (p *Provisioner) Ensure(ctx context.Context, needs ...Need) error {
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	var errs []error
	for _, n := range needs {
		switch n {
		case WantNode24, NeedNode24:
			if os.Getenv("CLAIMS_NODE") != "" {
				p.logf("CLAIMS_NODE is set: Node 24 not needed")
				continue
			}
			_, err := p.node24(ctx)
			switch {
			case err == nil:
			case errors.Is(err, ErrNoNode24Package):
				p.logf("%v: the tests run on the node on PATH", err)
			case n == WantNode24:
				p.logf("Node 24 is wanted but could not be installed (%v): the tests run on the node on PATH", err)
			default:
				errs = append(errs, err)
			}
		case NeedNode:
			// FindNode looks below the working directory's repository, which is Root but in
			// this package's tests.
			if _, err := runtimes.FindNode(); err != nil {
				errs = append(errs, fmt.Errorf("%w: install Node.js and npm (apt-get install nodejs npm)", err))
			}
		case NeedDynalite:
			errs = append(errs, p.dynalite(ctx))
		case NeedCC:
			errs = append(errs, p.CCompiler())
		case NeedRust, NeedPython:
			if dir := os.Getenv(PrebuiltEnv); dir != "" {
				p.logf("%v: not needed, the functions are prebuilt in %s (%s)", n, dir, PrebuiltEnv)
				continue
			}
			if n == NeedRust {
				errs = append(errs, p.debian(ctx, "the Rust function", RustPackages))
			} else {
				errs = append(errs, p.debian(ctx, "the Python function", PythonPackages))
			}
		case NeedFunctionChecks:
			errs = append(errs, p.debian(ctx, "checking the functions", FunctionCheckPackages))
		default:
			errs = append(errs, fmt.Errorf("provision: unknown need %v", n))
		}
	}
	return joinCannotInstall(errs)
}
