package live

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/serverless-claims/claims/harness/aws/prices"
)

// fallbackLine is the estimate's line that says which prices fell back, or "".
func fallbackLine(t *testing.T, e Estimate) string {
	t.Helper()
	for _, l := range e.Lines {
		if strings.Contains(l, "is not in the price table") {
			return l
		}
	}
	return ""
}

func TestEstimateNamesOnlyThePricesItDidNotHave(t *testing.T) {
	fns := []PlannedFunction{{Name: "f", MemoryMB: 1024, Invocations: 10, MaxSecondsEach: 1}}
	for name, tc := range map[string]struct {
		region         string
		fellBack       []string // the prices the region is missing from
		lambdaFellBack bool     // what prices.Lambda says
	}{
		// eu-west-1 is in the Lambda tables but not in DynamoDB's or Logs'.
		"a region of the Lambda table": {"eu-west-1", []string{"DynamoDB reads", "CloudWatch Logs ingestion"}, false},
		// ap-northeast-1 is in the Logs table too.
		"a region of the Lambda and Logs tables": {"ap-northeast-1", []string{"DynamoDB reads"}, false},
		"the region every table lists":           {"us-east-1", nil, false},
		// af-south-1 has a duration price of its own; its request price was not read.
		"a region with its own duration price": {"af-south-1", []string{"Lambda requests", "DynamoDB reads", "CloudWatch Logs ingestion"}, true},
		"a region no table lists": {"xx-nowhere-9",
			[]string{"Lambda duration", "Lambda requests", "DynamoDB reads", "CloudWatch Logs ingestion"}, true},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, fell := prices.Lambda(tc.region, ArchARM64)
			assert.Equal(t, tc.lambdaFellBack, fell, "prices.Lambda(%s) fellBack = %v; want %v", tc.region, fell, tc.lambdaFellBack)

			e := EstimateCost(tc.region, ArchARM64, fns, 10)
			line := fallbackLine(t, e)
			if len(tc.fellBack) == 0 {
				assert.Empty(t, line, "fallback line of %s = %q; want none", tc.region, line)
				assert.NotContains(t, e.PriceTable, "highest", "price table of %s = %q; want no fallback", tc.region, e.PriceTable)
				return
			}
			assert.Contains(t, line, "region "+tc.region+" is not in the price table", "fallback line = %q", line)
			for _, what := range []string{"Lambda duration", "Lambda requests", "DynamoDB reads", "CloudWatch Logs ingestion"} {
				want := strings.Contains(strings.Join(tc.fellBack, "|"), what)
				assert.Equal(t, want, strings.Contains(line, what),
					"fallback line of %s names %q = %v; want %v (line %q)", tc.region, what, !want, want, line)
				assert.Equal(t, want, strings.Contains(e.PriceTable, what),
					"price table of %s names %q = %v; want %v (%q)", tc.region, what, !want, want, e.PriceTable)
			}
			assert.Contains(t, line, "may be below", "fallback line = %q; want it to say the table's highest is no bound", line)
		})
	}
}
