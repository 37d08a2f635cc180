package prices

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAListedRegionGetsItsOwnPriceAndAnotherTheHighest: each lookup answers a region its table
// lists with that region's price, and says so; a region no table lists gets the table's
// highest, and the lookup says it fell back.
func TestAListedRegionGetsItsOwnPriceAndAnotherTheHighest(t *testing.T) {
	type lookup func(region string) (float64, bool)
	for name, c := range map[string]struct {
		get            lookup
		listed         string
		own, highest   float64
		unlistedRegion string
	}{
		"Lambda duration arm64": {func(r string) (float64, bool) { return LambdaGBSecond(r, ARM64) }, "eu-west-1", 0.0000133334, 0.0000183, "xx-nowhere-9"},
		"Lambda duration x86":   {func(r string) (float64, bool) { return LambdaGBSecond(r, X8664) }, "af-south-1", 0.0000221, 0.00002292, "xx-nowhere-9"},
		"Lambda requests":       {LambdaRequest, "us-east-1", 0.20 / 1e6, 0.20 / 1e6, "af-south-1"},
		"DynamoDB reads":        {DynamoRead, "us-east-1", 0.125 / 1e6, 0.125 / 1e6, "eu-west-1"},
		"Logs ingestion":        {LogsIngestGB, "us-east-1", 0.50, 0.76, "eu-west-1"},
	} {
		t.Run(name, func(t *testing.T) {
			got, fell := c.get(c.listed)
			assert.False(t, fell, "%s in %s fellBack = true; want false (the table lists it)", name, c.listed)
			assert.InDelta(t, c.own, got, 1e-15, "%s in %s = %g; want %g", name, c.listed, got, c.own)
			got, fell = c.get(c.unlistedRegion)
			assert.True(t, fell, "%s in %s fellBack = false; want true (the table lacks it)", name, c.unlistedRegion)
			assert.InDelta(t, c.highest, got, 1e-15, "%s in %s = %g; want the table's highest %g", name, c.unlistedRegion, got, c.highest)
		})
	}
}

// TestLambdaFallsBackWhenEitherTableLacksTheRegion: Lambda's fellBack is the duration table's
// or the request table's; af-south-1 has a duration price of its own and no request price.
func TestLambdaFallsBackWhenEitherTableLacksTheRegion(t *testing.T) {
	gbs, req, fell := Lambda("af-south-1", ARM64)
	assert.True(t, fell, "Lambda(af-south-1) fellBack = false; want true (no request price read)")
	assert.InDelta(t, 0.00001768, gbs, 1e-15, "af-south-1 arm64 GB-second price")
	assert.InDelta(t, 0.20/1e6, req, 1e-15, "af-south-1 request price, the table's highest")
	_, _, fell = Lambda("us-west-2", X8664)
	assert.False(t, fell, "Lambda(us-west-2) fellBack = true; want false")
	gbs, _, _ = Lambda("us-east-1", "sparc")
	assert.Zero(t, gbs, "the price of an architecture the table does not know = %g; want 0", gbs)
}

// TestLambdaPricesOfAListedRegionAreItsOwn: a region the Lambda tables list is priced at its own
// duration and request prices, with no fallback.
func TestLambdaPricesOfAListedRegionAreItsOwn(t *testing.T) {
	gbs, req, fell := Lambda("eu-west-1", X8664)
	assert.False(t, fell, "Lambda(eu-west-1) fellBack = true; want false (the Lambda tables list it)")
	assert.InDelta(t, 0.0000166667, gbs, 1e-12, "eu-west-1 x86_64 GB-second price")
	assert.InDelta(t, 0.20/1e6, req, 1e-15, "eu-west-1 request price")
}
