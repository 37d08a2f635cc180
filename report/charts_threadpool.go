package report

// The thread-pool charts (claims P1-P11): a Node lab measuring libuv's pool. One chart per
// threadpool family, in a file per kind (charts_threadpool_*.go), each reading the family's
// types (results/family); this file registers them and holds what they share.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/serverless-claims/claims/report/svg"
)

func init() {
	register("threadpool.waves", tpWavesChart)
	register("threadpool.apiTable", tpAPITableChart)
	register("threadpool.entry", tpEntryChart)
	register("threadpool.slots", tpSlotsChart)
	register("threadpool.poolThreads", tpPoolThreadsChart)
	register("threadpool.blocking", tpBlockingChart)
	register("threadpool.interference", tpInterferenceChart)
	register("threadpool.syncPath", tpSyncPathChart)
}

// Cell fills of the tables: light, so that the text on them stays legible in print.
const (
	tpYes      = "#fdae6b" // uses the pool, waited for a slot
	tpNo       = "#9ecae1" // does not use the pool, did not wait
	tpMixed    = "#d9d9d9" // neither: runs disagreed, or nothing was measured
	tpAgree    = "#a1d99b" // measured as the docs say; a size set inside the program honoured
	tpDisagree = "#fc9272" // measured against the docs; a size set inside the program ignored
)

// libuvDefaultSlots is the pool's size when UV_THREADPOOL_SIZE is unset.
const libuvDefaultSlots = 4

// tpWidth is every thread-pool chart's width in user units; two sit side by side on a laptop.
const tpWidth = 640

// tpRGBA is colour (#rrggbb) at opacity a, for marks drawn over one another.
func tpRGBA(colour string, a float64) string {
	var r, g, b int
	if _, err := fmt.Sscanf(colour, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return colour
	}
	return fmt.Sprintf("rgba(%d,%d,%d,%s)", r, g, b, strconv.FormatFloat(a, 'f', -1, 64))
}

// tpJitter spreads the i-th of many dots across a strip in [-0.5, 0.5), the same way on every
// render, so that equal values do not hide one another.
func tpJitter(i int) float64 {
	_, f := math.Modf(float64(i) * 0.6180339887)
	return f - 0.5
}

// tpSlots is the pool size a UV_THREADPOOL_SIZE value gives: libuv's default when unset.
func tpSlots(size string) int {
	n, err := strconv.Atoi(size)
	if err != nil || n < 1 {
		return libuvDefaultSlots
	}
	return n
}

// tpShownSize is a UV_THREADPOOL_SIZE value as a title shows it.
func tpShownSize(size string) string {
	if size == "" {
		return "unset (libuv's default)"
	}
	return size
}

// tpSizeTitle is a UV_THREADPOOL_SIZE setting as a title names it.
func tpSizeTitle(size string) string {
	if size == "" {
		return "UV_THREADPOOL_SIZE unset (libuv's default)"
	}
	return "UV_THREADPOOL_SIZE=" + size
}

// tpCell is a table cell: a data mark whose fill says yes, no or unknown, with its text on it.
func tpCell(c *svg.Canvas, x, y, w, h float64, fill, text, tip string) {
	c.Bar(x, y, w, h, fill, tip)
	c.Text(x+w/2, y+h/2+4, svg.Middle, text)
}

// tpDashedKey draws a legend entry for a dashed line at (x, y) and returns where it ended.
func tpDashedKey(c *svg.Canvas, x, y float64, label string) float64 {
	c.Line(x, y-4, x+18, y-4, svg.Ink, true)
	c.Text(x+22, y, svg.Start, label)
	return x + 22 + 6.2*float64(len(label)) + 14
}
