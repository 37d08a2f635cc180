// Command liveweb deploys the Web Functions that claims W6-W9 and W12 run against on AWS Lambda,
// and destroys them (`make live-web-deploy`, `make live-web-destroy`):
//
//	liveweb deploy [-n]   check the CLI, region and credentials; print the plan and its estimated
//	                      cost; refuse above CLAIMS_LIVE_MAX_USD; make the role, the code bucket
//	                      and the three functions (node, go, go-c1); write .cache/live-web/endpoints.json.
//	                      -n prints the plan and the estimate and makes nothing.
//	liveweb destroy       delete what the endpoints file names, and the rest of its run, then the file.
//	liveweb clean [-n]    list what earlier live-web runs left (Web Functions, their log groups,
//	                      code buckets, -web-exec roles), never touching the deployment the
//	                      endpoints file names, then delete it. -n lists only.
//
// Credentials come from the SDK's default chain, which the AWS CLI reads too; neither they nor
// account ids are printed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

const usage = `usage: liveweb deploy [-n] | liveweb destroy | liveweb clean [-n]`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command, with its arguments and output as parameters, for the tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "liveweb: %s\n", live.RedactARN(err.Error()))
		return 1
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	file, err := webendpoints.File()
	if err != nil {
		return fail(err)
	}
	switch args[0] {
	case "deploy":
		fs := flag.NewFlagSet("liveweb deploy", flag.ContinueOnError)
		fs.SetOutput(stderr)
		dry := fs.Bool("n", false, "print the plan and its estimate; make nothing")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		if err := runDeploy(ctx, file, *dry, stdout); err != nil {
			return fail(err)
		}
	case "destroy":
		if len(args) > 1 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		if err := runDestroy(ctx, file, stdout); err != nil {
			return fail(err)
		}
	case "clean":
		fs := flag.NewFlagSet("liveweb clean", flag.ContinueOnError)
		fs.SetOutput(stderr)
		listOnly := fs.Bool("n", false, "list the leftovers only; delete nothing")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		if err := runClean(ctx, file, *listOnly, stdout); err != nil {
			return fail(err)
		}
	default:
		fmt.Fprintf(stderr, "liveweb: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
	return 0
}

// runDeploy reads the settings, runs the preflight, prints the plan and the estimate, and
// deploys. Nothing is made before all of these have passed; with dry, nothing at all.
func runDeploy(ctx context.Context, file string, dry bool, out io.Writer) error {
	c, err := live.ConfigFromEnv()
	if err != nil {
		return err
	}
	s, err := settings.FromEnv()
	if err != nil {
		return err
	}
	if d, err := webendpoints.Read(file); err == nil {
		return fmt.Errorf("%s already holds run %s: `make live-web-destroy` first", file, d.RunID)
	}
	r, preErr := preflight(ctx, c)
	region := r.aws.Region
	if preErr != nil {
		if !dry {
			return preErr
		}
		// A dry run still prices the plan, in the configured region if there is one.
		region = "us-east-1"
		if cfg, err := config.LoadDefaultConfig(ctx); err == nil && cfg.Region != "" {
			region = cfg.Region
		}
		fmt.Fprintf(out, "%v\n(a deploy would stop there; priced for %s)\n", preErr, region)
	}
	runID, err := live.NewRunID()
	if err != nil {
		return err
	}
	p := newPlan(runID, region, time.Now(), s, c.MaxUSD)
	if err := admit(p, estimate(p), out); err != nil {
		return err
	}
	if dry {
		fmt.Fprintln(out, "-n: nothing was made")
		return nil
	}
	fmt.Fprintf(out, "AWS CLI: %s\n", r.version)
	bundles := map[string]string{}
	for _, name := range lambdazip.WebBundles {
		b, err := lambdazip.BuildWeb(name)
		if err != nil {
			return err
		}
		bundles[name] = b.Path
		fmt.Fprintf(out, "bundle %s: %d bytes, sha256 %s\n", name, b.Size, b.SHA256)
	}
	write := func(d webendpoints.Deployment) error { return webendpoints.Write(file, d) }
	if err := deploy(ctx, newAWSCloud(r, c), p, bundles, write, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "deployed run %s: endpoints in %s; `make live-web` runs the claims, `make live-web-destroy` deletes it all\n", p.RunID, rel(file))
	return nil
}

// runDestroy deletes the run the endpoints file names, then the file; without a file it has
// nothing to do.
func runDestroy(ctx context.Context, file string, out io.Writer) error {
	d, err := webendpoints.Read(file)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(out, "nothing to destroy: %s does not exist\n", rel(file))
		return nil
	}
	if err != nil {
		return err
	}
	c, err := live.ConfigFromEnv()
	if err != nil {
		return err
	}
	var opts []func(*config.LoadOptions) error
	if d.Region != "" {
		opts = append(opts, config.WithRegion(d.Region))
	}
	r, err := preflight(ctx, c, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "destroying run %s in %s\n", d.RunID, r.aws.Region)
	if err := destroy(ctx, newAWSCloud(r, c), d, out); err != nil {
		return fmt.Errorf("%w\n%s is kept: run `make live-web-destroy` again", err, rel(file))
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fmt.Fprintf(out, "removed %s\n", rel(file))
	return nil
}

// runClean lists and deletes the leftovers of earlier Web runs in the configured region, keeping
// whatever the endpoints file names. An endpoints file that cannot be read stops it: what is in
// use would be unknown.
func runClean(ctx context.Context, file string, listOnly bool, out io.Writer) error {
	var d webendpoints.Deployment
	if got, err := webendpoints.Read(file); err == nil {
		d = got
		fmt.Fprintf(out, "keeping run %s: %s names it\n", d.RunID, rel(file))
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: nothing was deleted, since what is in use cannot be known; fix or remove the file", err)
	}
	c, err := live.ConfigFromEnv()
	if err != nil {
		return err
	}
	r, err := preflight(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "looking for leftovers of live-web runs in %s\n", r.aws.Region)
	return clean(ctx, newAWSCloud(r, c), newInUse(d), listOnly, out)
}

// rel is file relative to the working directory when it is beneath it.
func rel(file string) string {
	wd, err := os.Getwd()
	if err != nil {
		return file
	}
	if r, err := filepath.Rel(wd, file); err == nil && filepath.IsLocal(r) {
		return r
	}
	return file
}
