package results

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// TestAnEventIsReadBackAsFormatted: what Format writes, ParseEvent reads back whole, bare or
// under testing's file:line header, a reason of several lines and one holding " -> " included.
func TestAnEventIsReadBackAsFormatted(t *testing.T) {
	for name, e := range map[string]Event{
		"one claim":       {Claims: []string{"P10"}, Outcome: verdict.Pass, Reason: "blocked = 8/8 (want 8/8)", Path: "/r/results/threadpool/TestSyncOnRequestPath--node24.json"},
		"two lines":       {Claims: []string{"W3"}, Outcome: verdict.Inconclusive, Reason: "only 3/8 trials were evidence;\nat least half are needed", Path: "results/x.json"},
		"an arrow in it":  {Claims: []string{"W2", "W4"}, Outcome: verdict.Fail, Reason: "p50 -> 0.20 ms -> x.json", Path: "/r/results/eventloop/TestPing.json"},
		"no claims named": {Outcome: verdict.Pass, Path: "r.json"},
	} {
		t.Run(name, func(t *testing.T) {
			line := e.Format()
			assert.NotContains(t, line, "\n", "Format = %q; want one line", line)
			for _, as := range []string{line, "    record.go:61: " + line + "\n", "\t\tclaims_test.go:7: " + line} {
				got, err := ParseEvent(as)
				require.NoError(t, err, "ParseEvent(%q)", as)
				assert.Equal(t, e, got, "ParseEvent(%q) = %+v; want %+v", as, got, e)
			}
		})
	}
}

// TestParseEventTellsOtherLinesFromMalformedOnes: a line without the mark is ErrNotEvent (a
// reader passes it by), the old prose form among them; a marked line that does not read as an
// Event is an error of its own.
func TestParseEventTellsOtherLinesFromMalformedOnes(t *testing.T) {
	for _, line := range []string{"", "=== RUN   TestX", "    x_test.go:9: [W1] pass: fine -> /r/gone.json", "--- PASS: TestX (1.00s)"} {
		_, err := ParseEvent(line)
		assert.True(t, errors.Is(err, ErrNotEvent), "ParseEvent(%q) error = %v; want ErrNotEvent", line, err)
	}
	for _, line := range []string{
		eventMark + `{"claims":["W1"],"outcome":"pass","path":`,
		eventMark + `{"claims":["W1"],"outcome":"maybe","path":"x.json"}`,
		eventMark + `{"claims":["W1"],"outcome":"pass"}`,
	} {
		_, err := ParseEvent(line)
		require.Error(t, err, "ParseEvent(%q)", line)
		assert.False(t, errors.Is(err, ErrNotEvent), "ParseEvent(%q) error = %v; want a malformed event, not ErrNotEvent", line, err)
	}
}
