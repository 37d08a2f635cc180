package live

import (
	"fmt"
	"strings"

	"github.com/serverless-claims/claims/harness/aws/prices"
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

// EstimateCost estimates a run's cost at harness/aws/prices' list prices: each function's
// invocations at their longest, in GB-seconds at the architecture's price for the region; the
// requests; the DynamoDB reads; and the CloudWatch Logs the invocations write. A region missing
// from a price table is priced at the table's highest, and the estimate says so.
func EstimateCost(region, arch string, fns []PlannedFunction, dynamoReads int) Estimate {
	e := Estimate{PriceTable: fmt.Sprintf("AWS list prices read %s, region %s, %s", prices.Read, region, arch)}
	var fellBack []string
	note := func(what string, fell bool) {
		if fell {
			fellBack = append(fellBack, what)
		}
	}
	gbs, fell := prices.LambdaGBSecond(region, arch)
	note("Lambda duration", fell)
	for _, f := range fns {
		s := float64(f.MemoryMB) / 1024 * float64(f.Invocations) * f.MaxSecondsEach
		e.GBSeconds += s
		e.Requests += f.Invocations
		e.Lines = append(e.Lines, fmt.Sprintf("function %s: %d MB × %d invocations × at most %.1f s = %.3f GB-s, $%.6f",
			f.Name, f.MemoryMB, f.Invocations, f.MaxSecondsEach, s, s*gbs))
	}
	req, fell := prices.LambdaRequest(region)
	note("Lambda requests", fell)
	read, fell := prices.DynamoRead(region)
	note("DynamoDB reads", fell)
	logs, fell := prices.LogsIngestGB(region)
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
	gbs, req, _ := prices.Lambda(region, arch)
	return billedMs/1000*float64(memoryMB)/1024*gbs + req
}
