package main

import (
	"fmt"
	"io"
	"time"

	"github.com/serverless-claims/claims/harness/lambdazip"
	"github.com/serverless-claims/claims/harness/live"
	"github.com/serverless-claims/claims/harness/settings"
	"github.com/serverless-claims/claims/harness/webdeploy"
)

// endpointName is the one endpoint of each Web Function.
const endpointName = "claims"

// webFunction is one Web Function the deploy makes.
type webFunction struct {
	Endpoint    string // webdeploy.Node, Go or GoConc1
	Name        string // claims-<run>-<endpoint>
	Bundle      string // lambdazip.NodeProbeBundle or GoProbeBundle
	Concurrency int    // maxConcurrencyPerEnvironment
}

// plan is what a deploy makes, and the run it is made for.
type plan struct {
	RunID     string
	Region    string
	Created   time.Time
	Role      string // the execution role
	Bucket    string // the code bucket
	Functions []webFunction
	Settings  settings.Settings // the trials the estimate prices
	MaxUSD    float64
}

// newPlan names everything a run makes after its id, as the live Event Functions do
// (claims-<run>-...), so that liveclean's conventions and destroy find them.
func newPlan(runID, region string, created time.Time, s settings.Settings, maxUSD float64) plan {
	base := live.NamePrefix + runID
	fn := func(endpoint, bundle string, conc int) webFunction {
		return webFunction{Endpoint: endpoint, Name: base + "-" + endpoint, Bundle: bundle, Concurrency: conc}
	}
	return plan{
		RunID: runID, Region: region, Created: created.UTC().Truncate(time.Second),
		Role: base + "-web-exec", Bucket: base + "-web-code",
		Functions: []webFunction{
			fn(webdeploy.Node, lambdazip.NodeProbeBundle, webdeploy.DefaultConcurrency),
			fn(webdeploy.Go, lambdazip.GoProbeBundle, webdeploy.DefaultConcurrency),
			// W12: the same Go probe with one request per environment at a time.
			fn(webdeploy.GoConc1, lambdazip.GoProbeBundle, 1),
		},
		Settings: s, MaxUSD: maxUSD,
	}
}

// tags are the run's tags on everything it makes.
func (p plan) tags() map[string]string {
	return map[string]string{live.TagRun: p.RunID, live.TagCreated: p.Created.Format(time.RFC3339)}
}

// key is a bundle's object key in the code bucket.
func key(bundle string) string { return bundle + ".zip" }

// The planned run of the Web Functions claims, as the estimate counts it: each claim's trials on
// the endpoints it compares, one after another. W9 is decided on the requests of W6-W8 and sends
// none of its own.
var plannedClaims = []struct {
	ID        string
	Endpoints []string
}{
	{"W6", []string{webdeploy.Node, webdeploy.Go}},
	{"W7", []string{webdeploy.Node, webdeploy.Go}},
	{"W8", []string{webdeploy.Node, webdeploy.Go}},
	{"W12", []string{webdeploy.Go, webdeploy.GoConc1}},
}

// The estimate's assumptions, each an upper bound of what a trial or an environment takes.
const (
	// requestsPerTrial: two /cpu, a /ping, and warm-up requests that start both environments.
	requestsPerTrial = 8
	// trialOverhead is a trial's time beside its spin and pause: the offsets, the round trips.
	trialOverhead = time.Second
	// idleTail is how long an environment is assumed to live, and bill, after the run's last
	// request: Lambda publishes no idle timeout for Web Functions.
	idleTail = 5 * time.Minute
	// environmentMB is a 2-vCPU environment's memory at Event Functions' ratio of 1 vCPU per
	// 1,769 MB, the size at which Lambda's duration price is applied to a Web Function here.
	environmentMB = 3538
	// bytesPerRequest is what a request and its answer move, headers included.
	bytesPerRequest = 2048
	// bundleBytes bounds both bundles together in S3.
	bundleBytes = 20 << 20
	// s3Puts and s3Gets bound the S3 requests: the uploads, and Lambda's reads of the code at
	// each environment start.
	s3Puts = 10
	s3Gets = 100
)

// The S3 and data-transfer prices, in USD: S3 Standard's and internet egress's us-east-1 list
// prices, used for every region (the table holds no other), stated as such in the estimate.
const (
	s3StorageGBMonth  = 0.023
	s3PutPerRequest   = 0.005 / 1000
	s3GetPerRequest   = 0.0004 / 1000
	transferOutPerGB  = 0.09
	bucketLifetimeDay = 1.0 // the bundles are assumed stored for a day at most
)

// estimate prices the planned run: its requests at Lambda's request price; the environment time
// of every function (2 environments of 2 vCPU each, alive for the whole run and idleTail after
// it) at Lambda's arm64 GB-second price for a 3,538 MB environment, since no Web Functions price
// is in the table; S3 storage and requests; and data transfer out.
func estimate(p plan) live.Estimate {
	gbs, req, fellBack := live.LambdaPrices(p.Region, live.ArchARM64)
	s := p.Settings
	trial := time.Duration(s.SpinMs)*time.Millisecond + s.Pause + trialOverhead
	e := live.Estimate{PriceTable: fmt.Sprintf("AWS list prices read %s, region %s, arm64", live.PricesRead, p.Region)}
	var run time.Duration
	for _, c := range plannedClaims {
		n := s.Trials * len(c.Endpoints)
		e.Requests += n * requestsPerTrial
		run += time.Duration(n) * trial
		e.Lines = append(e.Lines, fmt.Sprintf("%s: %d trials on %v, at most %d requests and %.1f s each", c.ID, s.Trials, c.Endpoints, requestsPerTrial, trial.Seconds()))
	}
	envSeconds := float64(len(p.Functions)*webdeploy.MaxEnvironments) * (run + idleTail).Seconds()
	e.GBSeconds = envSeconds * environmentMB / 1024
	transferGB := float64(e.Requests) * bytesPerRequest / (1 << 30)
	storedGB := float64(bundleBytes) / (1 << 30)
	s3USD := storedGB*s3StorageGBMonth*bucketLifetimeDay/30 + s3Puts*s3PutPerRequest + s3Gets*s3GetPerRequest
	e.Lines = append(e.Lines,
		"no Web Functions price is published in the table: environment time is priced as Lambda arm64 duration of a 2-vCPU (3,538 MB) environment (an assumption)",
		fmt.Sprintf("environments: %d functions × %d environments × (run %.0f s + %.0f s idle) = %.0f environment-s = %.1f GB-s at $%.10f, $%.6f",
			len(p.Functions), webdeploy.MaxEnvironments, run.Seconds(), idleTail.Seconds(), envSeconds, e.GBSeconds, gbs, e.GBSeconds*gbs),
		fmt.Sprintf("requests: %d at $%.8f, $%.6f", e.Requests, req, float64(e.Requests)*req),
		fmt.Sprintf("S3 (us-east-1 list prices): %.0f MB for %.0f day, %d PUT, %d GET, $%.6f", storedGB*1024, bucketLifetimeDay, s3Puts, s3Gets, s3USD),
		fmt.Sprintf("data transfer out (us-east-1 list price): %.6f GB, $%.6f", transferGB, transferGB*transferOutPerGB))
	if fellBack {
		e.Lines = append(e.Lines, fmt.Sprintf("region %s is not in the Lambda price table: priced at the table's highest", p.Region))
		e.PriceTable += " (some prices at the table's highest: region not listed)"
	}
	e.USD = e.GBSeconds*gbs + float64(e.Requests)*req + s3USD + transferGB*transferOutPerGB
	return e
}

// admit prints what the deploy makes and the estimate, and refuses (nothing made) when the
// estimate is above the cap, as the live Event Functions' Session.Admit does.
func admit(p plan, e live.Estimate, out io.Writer) error {
	fmt.Fprintf(out, "live-web run %s in %s will make, each tagged %s=%s and %s=%s:\n",
		p.RunID, p.Region, live.TagRun, p.RunID, live.TagCreated, p.Created.Format(time.RFC3339))
	fmt.Fprintf(out, "  IAM role %s (trusting lambda.amazonaws.com) with an inline policy for its logs\n", p.Role)
	fmt.Fprintf(out, "  S3 bucket %s (versioned, its objects readable by Lambda) holding %s and %s\n",
		p.Bucket, key(lambdazip.NodeProbeBundle), key(lambdazip.GoProbeBundle))
	for _, f := range p.Functions {
		fmt.Fprintf(out, "  Web Function %s (%s, %s, %s): endpoint %s, %s, maxEnvironments %d, maxConcurrencyPerEnvironment %d\n",
			f.Name, key(f.Bundle), webdeploy.Runtime, webdeploy.Arch, endpointName, webdeploy.AuthIAM, webdeploy.MaxEnvironments, f.Concurrency)
	}
	fmt.Fprintf(out, "for the planned run of W6-W9 and W12 (%s=%d, %s=%d, %s=%d):\n",
		settings.TrialsEnv, p.Settings.Trials, settings.SpinEnv, p.Settings.SpinMs, settings.PauseEnv, p.Settings.Pause.Milliseconds())
	for _, l := range e.Lines {
		fmt.Fprintf(out, "  %s\n", l)
	}
	fmt.Fprintf(out, "estimate: $%.4f (%s); cap $%.2f (%s)\n", e.USD, e.PriceTable, p.MaxUSD, live.EnvMaxUSD)
	if e.USD > p.MaxUSD {
		return fmt.Errorf("the estimate $%.4f is above the cap $%.2f: nothing was made; raise %s to deploy", e.USD, p.MaxUSD, live.EnvMaxUSD)
	}
	return nil
}
