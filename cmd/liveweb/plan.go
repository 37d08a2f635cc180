package main

import (
	"fmt"
	"io"
	"time"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/aws/prices"
	"github.com/serverless-claims/claims/harness/aws/webendpoints"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/settings"
)

// endpointName is the one endpoint of each Web Function.
const endpointName = "claims"

// The names a run's role and bucket end in (claims-<run>-web-exec, claims-<run>-web-code).
const (
	webRoleSuffix   = "-web-exec"
	webBucketSuffix = "-web-code"
)

// logGroupPrefix begins the log groups Lambda writes a Web Function's logs to: the centralised
// /aws/lambda/web/<function> (LoggingConfig.logGroup's default, botocore lambda-web model) and
// its in-Region companion, the same name with .local after it (Lambda developer guide,
// web-functions-logging, Log groups).
const (
	logGroupPrefix      = "/aws/lambda/web/"
	localLogGroupSuffix = ".local"
)

// logGroups are the two log groups of the Web Function named function.
func logGroups(function string) []string {
	return []string{logGroupPrefix + function, logGroupPrefix + function + localLogGroupSuffix}
}

// webFunction is one Web Function the deploy makes.
type webFunction struct {
	Endpoint    string // webendpoints.Node, Go or GoConc1
	Name        string // claims-<run>-<endpoint>
	Bundle      string // lambdazip.NodeProbeBundle or GoProbeBundle
	Concurrency int    // maxConcurrencyPerEnvironment
	// Environments is maxEnvironments: webendpoints.MaxEnvironments, or for W12's lowered
	// endpoint webendpoints.LoweredMaxEnvironments.
	Environments int
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
		envs := webendpoints.MaxEnvironments
		if conc == 1 {
			envs = webendpoints.LoweredMaxEnvironments
		}
		return webFunction{Endpoint: endpoint, Name: base + "-" + endpoint, Bundle: bundle, Concurrency: conc, Environments: envs}
	}
	return plan{
		RunID: runID, Region: region, Created: created.UTC().Truncate(time.Second),
		Role: base + webRoleSuffix, Bucket: base + webBucketSuffix,
		Functions: []webFunction{
			fn(webendpoints.Node, lambdazip.NodeProbeBundle, webendpoints.DefaultConcurrency),
			fn(webendpoints.Go, lambdazip.GoProbeBundle, webendpoints.DefaultConcurrency),
			// W12: the same Go probe with one request per environment at a time.
			fn(webendpoints.GoConc1, lambdazip.GoProbeBundle, 1),
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
	{"W6", []string{webendpoints.Node, webendpoints.Go}},
	{"W7", []string{webendpoints.Node, webendpoints.Go}},
	{"W8", []string{webendpoints.Node, webendpoints.Go}},
	{"W12", []string{webendpoints.Go, webendpoints.GoConc1}},
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
	// environmentVCPUs and environmentGB are a Web Function environment's fixed size: there is
	// no memory setting (agent-toolkit-for-aws, aws-lambda-web-functions/SKILL.md, Service
	// Limits and Cost Model).
	environmentVCPUs = 2
	environmentGB    = 2
	// eventMBPerVCPU is Event Functions' ratio of memory to one vCPU: their duration price buys
	// CPU and memory together, so a 2-vCPU environment is priced as a 3,538 MB Event Function,
	// which covers both vCPUs active all the time and more than its 2 GB.
	eventMBPerVCPU = 1769
	// extraEnvironments is how many environments beyond maxEnvironments each function is
	// assumed to run during the run: Lambda may briefly run more than maxEnvironments (Lambda
	// developer guide, web-functions-scaling) and says not how many or how long.
	extraEnvironments = 1
	// bytesPerRequest is what a request and its answer move, headers included.
	bytesPerRequest = 2048
	// logBytesPerRequest bounds the platform's own log records of one request
	// (platform.invokeStart, platform.invokeSummary; agent-toolkit-for-aws,
	// aws-lambda-web-functions/references/observability.md) and the probe's lines.
	logBytesPerRequest = 2048
	// bundleBytes bounds both bundles together in S3.
	bundleBytes = 20 << 20
	// s3Puts and s3Gets bound the S3 requests: the uploads, and Lambda's reads of the code at
	// each environment start.
	s3Puts = 10
	s3Gets = 100
)

// webRatesRead is when Web Functions' own rates were looked for and not found published: the
// Lambda pricing page and the Web Functions documentation name the billing dimensions, not
// their prices. Every Web dimension is then priced at a stated bound.
const webRatesRead = "2026-12-02"

// bucketLifetimeDay is how long the bundles are assumed stored: a day at most.
const bucketLifetimeDay = 1.0

// priceRegion is the region of the S3, data-transfer and CloudWatch Logs prices, used for every
// region (the S3 and transfer prices were read for no other), stated as such in the lines.
const priceRegion = "us-east-1"

// estimate prices the planned run by the dimensions Web Functions bill: active CPU, memory,
// requests and data transfer, of 2 vCPU / 2 GB environments, with more than maxEnvironments for
// a while, and the per-request platform log records; then the S3 the deploy uses. No Web
// Functions rate is published, so each Web line says so and names the bound it is priced at:
// CPU and memory together at Lambda's arm64 Event Functions duration price of a 2-vCPU size for
// every environment's whole life (the run, plus idleTail), requests at Event Functions' request
// price, data transfer at the internet egress list price. The cap is compared with their sum.
func estimate(p plan) live.Estimate {
	gbs, req, fellBack := prices.Lambda(p.Region, prices.ARM64)
	logsIngestPerGB, _ := prices.LogsIngestGB(priceRegion)
	s := p.Settings
	trial := time.Duration(s.SpinMs)*time.Millisecond + s.Pause + trialOverhead
	e := live.Estimate{PriceTable: fmt.Sprintf("AWS list prices read %s, region %s, arm64; Web Functions rates not published (looked for %s), bounded as listed", prices.Read, p.Region, webRatesRead)}
	var run time.Duration
	for _, c := range plannedClaims {
		n := s.Trials * len(c.Endpoints)
		e.Requests += n * requestsPerTrial
		run += time.Duration(n) * trial
		e.Lines = append(e.Lines, fmt.Sprintf("%s: %d trials on %v, at most %d requests and %.1f s each", c.ID, s.Trials, c.Endpoints, requestsPerTrial, trial.Seconds()))
	}
	fns, envs := float64(len(p.Functions)), 0
	for _, f := range p.Functions {
		envs += f.Environments
	}
	envSeconds := float64(envs)*(run+idleTail).Seconds() + fns*extraEnvironments*run.Seconds()
	eventMB := environmentVCPUs * eventMBPerVCPU
	e.GBSeconds = envSeconds * float64(eventMB) / 1024
	computeUSD := e.GBSeconds * gbs
	requestUSD := float64(e.Requests) * req
	transferGB := float64(e.Requests) * bytesPerRequest / (1 << 30)
	logGB := float64(e.Requests) * logBytesPerRequest / (1 << 30)
	storedGB := float64(bundleBytes) / (1 << 30)
	s3USD := storedGB*prices.S3StorageGBMonth*bucketLifetimeDay/30 + s3Puts*prices.S3PutRequest + s3Gets*prices.S3GetRequest
	notPublished := "rate not published (looked for " + webRatesRead + ")"
	e.Lines = append(e.Lines,
		fmt.Sprintf("environments: %d vCPU / %d GB each, no memory setting; %d environments over %d functions × (run %.0f s + %.0f s idle), and %d beyond maxEnvironments a function × run %.0f s = %.0f environment-s",
			environmentVCPUs, environmentGB, envs, len(p.Functions), run.Seconds(), idleTail.Seconds(), extraEnvironments, run.Seconds(), envSeconds),
		fmt.Sprintf("active CPU and memory: %s; bound used: every environment-s with both vCPUs active and its memory all used, at Lambda arm64 Event Functions duration of a %d MB (%d vCPU) size, %.1f GB-s at $%.10f (read %s), $%.6f",
			notPublished, eventMB, environmentVCPUs, e.GBSeconds, gbs, prices.Read, computeUSD),
		fmt.Sprintf("requests: %s; bound used: %d at Lambda Event Functions' $%.8f each (read %s), $%.6f", notPublished, e.Requests, req, prices.Read, requestUSD),
		fmt.Sprintf("data transfer: %s; bound used: %.6f GB at internet egress $%.2f/GB (%s, read %s), $%.6f", notPublished, transferGB, prices.TransferOutGB, priceRegion, prices.Read, transferGB*prices.TransferOutGB),
		fmt.Sprintf("platform log records, per request: CloudWatch Logs ingestion $%.2f/GB (%s, read %s); bound used: %d bytes a request, %.6f GB, $%.6f", logsIngestPerGB, priceRegion, prices.Read, logBytesPerRequest, logGB, logGB*logsIngestPerGB),
		fmt.Sprintf("S3 (%s list prices, read %s): %.0f MB for %.0f day, %d PUT, %d GET, $%.6f", priceRegion, prices.Read, storedGB*1024, bucketLifetimeDay, s3Puts, s3Gets, s3USD))
	if fellBack {
		e.Lines = append(e.Lines, fmt.Sprintf("region %s is not in the Lambda price table: priced at the table's highest", p.Region))
		e.PriceTable += " (some prices at the table's highest: region not listed)"
	}
	e.USD = computeUSD + requestUSD + s3USD + transferGB*prices.TransferOutGB + logGB*logsIngestPerGB
	e.Lines = append(e.Lines, fmt.Sprintf("the cap is compared with the sum of these bounds, $%.4f, not with a published Web Functions price", e.USD))
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
			f.Name, key(f.Bundle), webendpoints.Runtime, webendpoints.Arch, endpointName, webendpoints.AuthIAM, f.Environments, f.Concurrency)
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
