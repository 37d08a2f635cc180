package live

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// PricesRead is when the prices below were read from AWS's published price lists. They are
// on-demand list prices without the free tier, so an estimate is an upper bound of what a run adds
// to a bill.
const PricesRead = "2026-12-01"

// lambdaGBSecond is Lambda's duration price in USD per GB-second, by region and architecture.
// Most regions share the base price; the others are listed with theirs.
var lambdaGBSecond = map[string]map[string]float64{}

func init() {
	base := map[string]float64{ArchX8664: 0.0000166667, ArchARM64: 0.0000133334}
	for _, r := range []string{
		"us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1",
		"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "eu-north-1",
		"ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-south-1",
		"sa-east-1",
	} {
		lambdaGBSecond[r] = base
		lambdaRequest[r] = baseRequest
	}
	lambdaGBSecond["af-south-1"] = map[string]float64{ArchX8664: 0.0000221, ArchARM64: 0.00001768}
	lambdaGBSecond["ap-east-1"] = map[string]float64{ArchX8664: 0.00002292, ArchARM64: 0.0000183}
	lambdaGBSecond["eu-south-1"] = map[string]float64{ArchX8664: 0.0000195172, ArchARM64: 0.0000156138}
	lambdaGBSecond["me-south-1"] = map[string]float64{ArchX8664: 0.0000206667, ArchARM64: 0.0000165334}
	lambdaGBSecond["me-central-1"] = map[string]float64{ArchX8664: 0.0000206667, ArchARM64: 0.0000165334}
}

// baseRequest is Lambda's price per request in the regions at the base duration price: $0.20 per
// million. The regions with a duration price of their own are not given it, as theirs was not read.
const baseRequest = 0.20 / 1e6

// The other prices, in USD. Only the regions whose prices were read are listed; another region is
// priced at the highest of its table, which need not be as high as that region's own price.
var (
	// lambdaRequest is per request; init fills it.
	lambdaRequest = map[string]float64{}
	// dynamoRead is per on-demand read request unit; a GetItem of a small item is counted as one,
	// though an eventually consistent one costs half.
	dynamoRead = map[string]float64{"us-east-1": 0.125 / 1e6}
	// logsIngestGB is CloudWatch Logs' standard ingestion per GB.
	logsIngestGB = map[string]float64{"us-east-1": 0.50, "ap-northeast-1": 0.76}
)

// logBytesPerInvocation is what one invocation is assumed to write to CloudWatch Logs: START, END
// and REPORT take about 300 bytes; the rest is room for the function's own lines.
const logBytesPerInvocation = 1024

// PlannedFunction is one function a run will make and invoke.
type PlannedFunction struct {
	Name           string
	MemoryMB       int
	Invocations    int
	MaxSecondsEach float64 // the most one invocation can bill, Init included
}

// Estimate is a run's cost before anything is made.
type Estimate struct {
	Requests  int     `json:"requests"`
	GBSeconds float64 `json:"gbSeconds"`
	USD       float64 `json:"usd"`
	// PriceTable says which prices were used: their date, the region and the architecture.
	PriceTable string `json:"priceTable"`
	// Lines explain the estimate, one item each, for Admit to print.
	Lines []string `json:"lines"`
}

// price is table's price for region, or the table's highest when the region is not in it; the
// second result says whether it fell back.
func price(table map[string]float64, region string) (float64, bool) {
	if p, ok := table[region]; ok {
		return p, false
	}
	return slices.Max(slices.Collect(maps.Values(table))), true
}

// lambdaPrice is the GB-second price of arch in region, with the same fallback as price.
func lambdaPrice(region, arch string) (float64, bool) {
	if p, ok := lambdaGBSecond[region]; ok {
		return p[arch], false
	}
	highest := 0.0
	for _, p := range lambdaGBSecond {
		highest = max(highest, p[arch])
	}
	return highest, true
}

// LambdaPrices are the prices EstimateCost uses for arch in region, in USD: per GB-second of
// duration and per request. fellBack says that the region is missing from the duration or the
// request table and was priced at that table's highest; the DynamoDB and Logs tables play no part.
func LambdaPrices(region, arch string) (gbSecond, request float64, fellBack bool) {
	gbs, fellGBs := lambdaPrice(region, arch)
	req, fellReq := price(lambdaRequest, region)
	return gbs, req, fellGBs || fellReq
}

// EstimateCost estimates a run's cost: each function's invocations at their longest, in
// GB-seconds at the architecture's price for the region; the requests; the DynamoDB reads; and
// the CloudWatch Logs the invocations write. A region missing from a price table is priced at
// the table's highest, and the estimate says so.
func EstimateCost(region, arch string, fns []PlannedFunction, dynamoReads int) Estimate {
	e := Estimate{PriceTable: fmt.Sprintf("AWS list prices read %s, region %s, %s", PricesRead, region, arch)}
	var fellBack []string
	note := func(what string, fell bool) {
		if fell {
			fellBack = append(fellBack, what)
		}
	}
	gbs, fell := lambdaPrice(region, arch)
	note("Lambda duration", fell)
	for _, f := range fns {
		s := float64(f.MemoryMB) / 1024 * float64(f.Invocations) * f.MaxSecondsEach
		e.GBSeconds += s
		e.Requests += f.Invocations
		e.Lines = append(e.Lines, fmt.Sprintf("function %s: %d MB × %d invocations × at most %.1f s = %.3f GB-s, $%.6f",
			f.Name, f.MemoryMB, f.Invocations, f.MaxSecondsEach, s, s*gbs))
	}
	req, fell := price(lambdaRequest, region)
	note("Lambda requests", fell)
	read, fell := price(dynamoRead, region)
	note("DynamoDB reads", fell)
	logs, fell := price(logsIngestGB, region)
	note("CloudWatch Logs ingestion", fell)
	logGB := float64(e.Requests) * logBytesPerInvocation / (1 << 30)
	e.Lines = append(e.Lines,
		fmt.Sprintf("Lambda: %d requests, $%.6f; %.3f GB-s at $%.10f, $%.6f", e.Requests, float64(e.Requests)*req, e.GBSeconds, gbs, e.GBSeconds*gbs),
		fmt.Sprintf("DynamoDB: %d on-demand reads, $%.6f", dynamoReads, float64(dynamoReads)*read),
		fmt.Sprintf("CloudWatch Logs: %.6f GB ingested, $%.6f", logGB, logGB*logs))
	if len(fellBack) > 0 {
		// Name only the prices that were missing: a region the Lambda table lists must not read
		// as if Lambda's prices were guessed.
		what := strings.Join(fellBack, ", ")
		e.Lines = append(e.Lines, fmt.Sprintf("region %s is not in the price table of %s: each priced at the highest of the regions its table lists, which may be below %s's own price",
			region, what, region))
		e.PriceTable += fmt.Sprintf(" (%s at the table's highest: region not listed for them)", what)
	}
	e.USD = e.GBSeconds*gbs + float64(e.Requests)*req + float64(dynamoReads)*read + logGB*logs
	return e
}

// invocationUSD is what one invocation billed: its billed duration at its memory size, and the
// request.
func invocationUSD(region, arch string, billedMs float64, memoryMB int) float64 {
	gbs, _ := lambdaPrice(region, arch)
	req, _ := price(lambdaRequest, region)
	return billedMs/1000*float64(memoryMB)/1024*gbs + req
}
