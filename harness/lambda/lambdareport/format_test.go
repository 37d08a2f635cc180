package lambdareport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormatIsReadBackFieldByField: what Format writes, Parse reads back as the same figures,
// each known field compared on its own, for a cold, a warm, a failed and a restored invoke and
// for a REPORT with no figure at all.
func TestFormatIsReadBackFieldByField(t *testing.T) {
	cases := map[string]Report{
		"cold":     {RequestID: "3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37", Duration: ms(12.34), BilledDuration: ms(108), MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(40), InitDuration: ms(95.12)},
		"warm":     {RequestID: "9d41b7e0-25c3-4f6a-8e19-b0a7c3d5e284", Duration: ms(2.48), BilledDuration: ms(3), MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(41)},
		"timeout":  {RequestID: "2e7c4a91-5f0b-4c38-9d6e-a1b2c3d4e5f6", Duration: ms(3000), BilledDuration: ms(3096), MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(128), InitDuration: ms(95.12), Status: "timeout"},
		"restored": {RequestID: "6c2e8f14-a93b-4d07-b5e1-74f0c9a2d8b6", Duration: ms(18.77), BilledDuration: ms(19), MemorySizeMB: mb(512), MaxMemoryUsedMB: mb(92), RestoreDuration: ms(250.18), BilledRestoreDuration: ms(123)},
		"bare":     {RequestID: "4a0d9e63-8b17-4f52-a6c4-3e9f1d7b2a80"},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			line := Format(want)
			got, err := Parse(line)
			require.NoError(t, err, "Parse(Format(...)) of %q", line)
			assert.Equal(t, FormText, got.Form, "Form of %q", line)
			assert.Equal(t, want.RequestID, got.RequestID, "RequestID of %q", line)
			for _, f := range []struct {
				name      string
				got, want *float64
			}{
				{"Duration", got.Duration, want.Duration},
				{"Billed Duration", got.BilledDuration, want.BilledDuration},
				{"Init Duration", got.InitDuration, want.InitDuration},
				{"Restore Duration", got.RestoreDuration, want.RestoreDuration},
				{"Billed Restore Duration", got.BilledRestoreDuration, want.BilledRestoreDuration},
			} {
				assert.Equal(t, f.want, f.got, "%s read back from %q", f.name, line)
			}
			assert.Equal(t, want.MemorySizeMB, got.MemorySizeMB, "Memory Size read back from %q", line)
			assert.Equal(t, want.MaxMemoryUsedMB, got.MaxMemoryUsedMB, "Max Memory Used read back from %q", line)
			assert.Equal(t, want.Status, got.Status, "Status read back from %q", line)
			assert.Len(t, got.Fields, strings.Count(line, "\t"), "fields read back from %q = %v; want one a tab", line, got.Fields)
		})
	}
}

// TestFormatPrintsAsLambdaPrints: the real REPORT lines, read and written again, come out byte
// for byte as Lambda printed them, so that Format's order, units and precision are Lambda's.
func TestFormatPrintsAsLambdaPrints(t *testing.T) {
	for _, file := range []string{"real-cold.txt", "real-warm.txt", "real-snapstart.txt"} {
		want := strings.TrimRight(fixture(t, file), "\n")
		r, err := Parse(want)
		require.NoError(t, err, "Parse(%s)", file)
		assert.Equal(t, want, Format(r), "Format(Parse(%s)) = %q; want the line as printed", file, Format(r))
	}
}
