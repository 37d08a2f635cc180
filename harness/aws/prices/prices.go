// Package prices is the table of AWS list prices the repository prices runs and results with:
// the live runs' estimates before anything is made (harness/aws/live, cmd/liveweb), what a live
// invocation billed, and the report's dollars per cold start. It imports no AWS SDK, so that a
// reader of results (cmd/report) links none.
//
// The prices are on-demand list prices without the free tier, read on Read, so an estimate
// made with them is an upper bound of what a run adds to a bill. Only the regions whose prices
// were read are listed; a region missing from a table is priced at the table's highest, and
// each lookup says when it fell back, since that highest need not be as high as the region's own.
package prices

import (
	"maps"
	"slices"
)

// Read is when the prices below were read from AWS's published price lists.
const Read = "2026-12-01"

// The architectures, as Lambda names them and the Lambda duration table is keyed.
const (
	ARM64 = "arm64"
	X8664 = "x86_64"
)

// lambdaGBSecond is Lambda's duration price in USD per GB-second, by region and architecture.
// Most regions share the base price; the others are listed with theirs.
var lambdaGBSecond = map[string]map[string]float64{}

func init() {
	base := map[string]float64{X8664: 0.0000166667, ARM64: 0.0000133334}
	for _, r := range []string{
		"us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1",
		"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "eu-north-1",
		"ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-south-1",
		"sa-east-1",
	} {
		lambdaGBSecond[r] = base
		lambdaRequest[r] = baseRequest
	}
	lambdaGBSecond["af-south-1"] = map[string]float64{X8664: 0.0000221, ARM64: 0.00001768}
	lambdaGBSecond["ap-east-1"] = map[string]float64{X8664: 0.00002292, ARM64: 0.0000183}
	lambdaGBSecond["eu-south-1"] = map[string]float64{X8664: 0.0000195172, ARM64: 0.0000156138}
	lambdaGBSecond["me-south-1"] = map[string]float64{X8664: 0.0000206667, ARM64: 0.0000165334}
	lambdaGBSecond["me-central-1"] = map[string]float64{X8664: 0.0000206667, ARM64: 0.0000165334}
}

// baseRequest is Lambda's price per request in the regions at the base duration price: $0.20 per
// million. The regions with a duration price of their own are not given it, as theirs was not read.
const baseRequest = 0.20 / 1e6

// The other regional prices, in USD.
var (
	// lambdaRequest is per request; init fills it.
	lambdaRequest = map[string]float64{}
	// dynamoRead is per on-demand read request unit; a GetItem of a small item is counted as one,
	// though an eventually consistent one costs half.
	dynamoRead = map[string]float64{"us-east-1": 0.125 / 1e6}
	// logsIngestGB is CloudWatch Logs' standard ingestion per GB.
	logsIngestGB = map[string]float64{"us-east-1": 0.50, "ap-northeast-1": 0.76}
)

// The S3 and data-transfer prices, in USD: us-east-1 list prices, the only region they were
// read for; a caller that uses them for another region says so.
const (
	// S3StorageGBMonth is S3 Standard storage per GB-month.
	S3StorageGBMonth = 0.023
	// S3PutRequest is per PUT (or COPY, POST, LIST) request.
	S3PutRequest = 0.005 / 1000
	// S3GetRequest is per GET (or SELECT and the rest) request.
	S3GetRequest = 0.0004 / 1000
	// TransferOutGB is data transfer out to the internet per GB, the first tier.
	TransferOutGB = 0.09
)

// price is table's price for region, or the table's highest when the region is not in it; the
// second result says whether it fell back.
func price(table map[string]float64, region string) (float64, bool) {
	if p, ok := table[region]; ok {
		return p, false
	}
	return slices.Max(slices.Collect(maps.Values(table))), true
}

// LambdaGBSecond is Lambda's duration price of arch in region, per GB-second; fellBack says the
// region is not in the table and this is the table's highest for arch. An architecture the
// table does not know is priced 0.
func LambdaGBSecond(region, arch string) (usd float64, fellBack bool) {
	if p, ok := lambdaGBSecond[region]; ok {
		return p[arch], false
	}
	highest := 0.0
	for _, p := range lambdaGBSecond {
		highest = max(highest, p[arch])
	}
	return highest, true
}

// LambdaRequest is Lambda's price per request in region, with LambdaGBSecond's fallback.
func LambdaRequest(region string) (usd float64, fellBack bool) { return price(lambdaRequest, region) }

// Lambda is both of Lambda's prices for arch in region: per GB-second of duration and per
// request. fellBack says the region is missing from the duration or the request table and was
// priced at that table's highest.
func Lambda(region, arch string) (gbSecond, request float64, fellBack bool) {
	gbs, fellGBs := LambdaGBSecond(region, arch)
	req, fellReq := LambdaRequest(region)
	return gbs, req, fellGBs || fellReq
}

// DynamoRead is DynamoDB's price per on-demand read request unit in region, with the fallback.
func DynamoRead(region string) (usd float64, fellBack bool) { return price(dynamoRead, region) }

// LogsIngestGB is CloudWatch Logs' standard ingestion price per GB in region, with the fallback.
func LogsIngestGB(region string) (usd float64, fellBack bool) { return price(logsIngestGB, region) }
