package lambdareport

import (
	"fmt"
	"strconv"
	"strings"
)

// Format writes r as Lambda's classic text REPORT line, the form Parse reads first: its known
// figures in Lambda's order (RequestId, Duration, Billed Duration, Memory Size, Max Memory Used,
// Init Duration, Restore Duration, Billed Restore Duration, Status), each ended by a tab, a nil
// figure and an empty Status left out, as Lambda leaves Init Duration out of a warm REPORT.
// Durations are printed to the hundredth of a millisecond and billed ones as whole milliseconds
// when they are whole, as Lambda prints them. Form and Fields are not written: a stand-in that
// answers as Lambda does prints only the figures Lambda prints.
func Format(r Report) string {
	var b strings.Builder
	b.WriteString("REPORT RequestId: " + r.RequestID + "\t")
	ms := func(name string, v *float64) {
		if v != nil {
			fmt.Fprintf(&b, "%s: %.2f ms\t", name, *v)
		}
	}
	billed := func(name string, v *float64) {
		if v != nil {
			fmt.Fprintf(&b, "%s: %s ms\t", name, strconv.FormatFloat(*v, 'f', -1, 64))
		}
	}
	mb := func(name string, v *int) {
		if v != nil {
			fmt.Fprintf(&b, "%s: %d MB\t", name, *v)
		}
	}
	ms("Duration", r.Duration)
	billed("Billed Duration", r.BilledDuration)
	mb("Memory Size", r.MemorySizeMB)
	mb("Max Memory Used", r.MaxMemoryUsedMB)
	ms("Init Duration", r.InitDuration)
	ms("Restore Duration", r.RestoreDuration)
	billed("Billed Restore Duration", r.BilledRestoreDuration)
	if r.Status != "" {
		fmt.Fprintf(&b, "Status: %s\t", r.Status)
	}
	return b.String()
}
