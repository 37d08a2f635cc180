// Command package builds the Lambda functions of the live mode (the GetItem function in each
// language, functions/getitem and its siblings, and functions/throttle) as the zips Lambda takes,
// with harness/lambda/lambdazip, writes them to
// .cache/package/<arch>/<name>.zip, and the Web Function bundles of the probes (node-probe,
// go-probe) to .cache/package/web/<bundle>.zip, and prints each one's path, size and SHA-256, so
// that what is deployed can be checked against what was built. The functions' architecture is
// -arch, else CLAIMS_LAMBDA_ARCH, else arm64; the bundles are arm64, as Web Functions run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// deployed are the functions the live mode deploys: the GetItem function in each language, then
// T8's busy loop.
func deployed() []string {
	var out []string
	for _, l := range lambdazip.Languages {
		pkg, _ := functions.GetItem(l) // every language has one
		out = append(out, pkg)
	}
	return append(out, "functions/throttle")
}

func main() {
	arch := flag.String("arch", os.Getenv("CLAIMS_LAMBDA_ARCH"), "Lambda architecture: arm64 or x86_64 (default CLAIMS_LAMBDA_ARCH, else arm64)")
	flag.Parse()
	root, err := repo.Root()
	if err == nil {
		err = run(root, *arch, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "package: %v\n", err)
		os.Exit(1)
	}
}

// run builds each function for arch and copies its zip to <root>/.cache/package/<arch>/<name>.zip,
// then the Web Function bundles (arm64 always) to <root>/.cache/package/web/<bundle>.zip.
func run(root, archName string, out io.Writer) error { return runFor(root, archName, deployed(), out) }

// runFor is run for the functions pkgs.
func runFor(root, archName string, pkgs []string, out io.Writer) error {
	arch, err := lambdazip.ParseArch(archName)
	if err != nil {
		return err
	}
	if err := buildable(pkgs, arch); err != nil {
		return err
	}
	for _, pkg := range pkgs {
		p, err := lambdazip.Build(pkg, arch)
		if err != nil {
			return err
		}
		if err := install(root, filepath.Join(root, ".cache", "package", string(arch), path.Base(pkg)+".zip"), p, out); err != nil {
			return err
		}
	}
	for _, name := range lambdazip.WebBundles {
		p, err := lambdazip.BuildWeb(name)
		if err != nil {
			return err
		}
		if err := install(root, filepath.Join(root, ".cache", "package", "web", name+".zip"), p, out); err != nil {
			return err
		}
	}
	return nil
}

// buildable says, before any build, every function of pkgs this machine cannot build for arch
// and why (lambdazip.CanBuild), so that one run names all that is missing.
func buildable(pkgs []string, arch lambdazip.Arch) error {
	src, err := repo.Root()
	if err != nil {
		return err
	}
	var errs []error
	for _, pkg := range pkgs {
		l, err := lambdazip.LanguageOf(filepath.Join(src, filepath.FromSlash(pkg)))
		if err == nil {
			err = lambdazip.CanBuild(l, arch)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s cannot be built for %s here: %w", pkg, arch, err))
		}
	}
	return errors.Join(errs...)
}

// install copies p's zip to dst and prints its path (relative to root), size and SHA-256.
func install(root, dst string, p lambdazip.Package, out io.Writer) error {
	data, err := p.Bytes()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// Through a temporary name, so that a reader never sees half a zip.
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	rel, err := filepath.Rel(root, dst)
	if err != nil {
		rel = dst
	}
	fmt.Fprintf(out, "%s\t%d bytes\tsha256 %s\n", rel, p.Size, p.SHA256)
	return nil
}
