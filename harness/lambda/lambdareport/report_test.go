package lambdareport

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dir holds the fixtures; see its README for where each form comes from.
const dir = "../../../testdata/lambdareport"

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

func ms(v float64) *float64 { return &v }
func mb(v int) *int         { return &v }

// typed is a Report without its Fields, for comparing the figures a test cares about.
func typed(r Report) Report {
	r.Fields = nil
	return r
}

func TestParseFixtures(t *testing.T) {
	cases := []struct {
		file   string
		want   Report
		fields map[string]string // a subset of the Fields the record must carry
	}{
		{"real-cold.txt", Report{
			RequestID: "3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37", Duration: ms(12.34), BilledDuration: ms(108),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(40), InitDuration: ms(95.12), Form: FormText,
		}, map[string]string{"Duration": "12.34 ms", "Init Duration": "95.12 ms", "Memory Size": "128 MB"}},
		{"real-warm.txt", Report{
			RequestID: "9d41b7e0-25c3-4f6a-8e19-b0a7c3d5e284", Duration: ms(2.48), BilledDuration: ms(3),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(41), Form: FormText,
		}, nil},
		{"real-snapstart.txt", Report{
			RequestID: "6c2e8f14-a93b-4d07-b5e1-74f0c9a2d8b6", Duration: ms(18.77), BilledDuration: ms(19),
			MemorySizeMB: mb(512), MaxMemoryUsedMB: mb(92), RestoreDuration: ms(250.18), BilledRestoreDuration: ms(123),
			Form: FormText,
		}, map[string]string{"Billed Restore Duration": "123 ms"}},
		{"real-xray.txt", Report{ // XRAY on the event's second line, as CloudWatch shows it
			RequestID: "c793869b-0e49-4d5b-a5b6-4fd21e8dedac", Duration: ms(170.19), BilledDuration: ms(171),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(73), InitDuration: ms(176.48), Form: FormText,
		}, map[string]string{"XRAY TraceId": "1-5d9d007f-0a8c7fd02a5e480aed55ef0b", "SegmentId": "3d752a1b51bbe37e", "Sampled": "true"}},
		{"real-xray-oneline.txt", Report{
			RequestID: "1b8e3d70-c4f2-4a19-86d5-e9a0f37b2c41", Duration: ms(201.67), BilledDuration: ms(202),
			MemorySizeMB: mb(2048), MaxMemoryUsedMB: mb(81), Form: FormText,
		}, map[string]string{"XRAY TraceId": "1-61c86fa4-59b3c6d959653c527fd10966", "Sampled": "true"}},
		{"real-spaces.txt", Report{
			RequestID: "8fc6f963-411b-48b5-8483-a32130c0f45d", Duration: ms(201.67), BilledDuration: ms(202),
			MemorySizeMB: mb(2048), MaxMemoryUsedMB: mb(81), InitDuration: ms(480.25), Form: FormText,
		}, map[string]string{"Max Memory Used": "81 MB", "XRAY TraceId": "1-61c86fa4-59b3c6d959653c527fd10966", "SegmentId": "107ea78a5750a811", "Sampled": "true"}},
		{"real-timeout.txt", Report{
			RequestID: "2e7c4a91-5f0b-4c38-9d6e-a1b2c3d4e5f6", Duration: ms(3000), BilledDuration: ms(3000),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(51), Status: "timeout", Form: FormText,
		}, nil},
		{"real-error.txt", Report{
			RequestID: "4a0d9e63-8b17-4f52-a6c4-3e9f1d7b2a80", Duration: ms(45.61), BilledDuration: ms(46),
			MemorySizeMB: mb(256), MaxMemoryUsedMB: mb(256), InitDuration: ms(310.02), Status: "error", Form: FormText,
		}, map[string]string{"Error Type": "Runtime.OutOfMemory"}},
		{"real-unknown-fields.txt", Report{
			RequestID: "7e3b1c95-d2a4-4f60-8b7e-05c9a3f1d264", Duration: ms(9.87), BilledDuration: ms(10),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(44), InitDuration: ms(101.30), Form: FormText,
		}, map[string]string{"Future Metric": "7 widgets", "New Duration": "1.50 ms"}},
		{"platform-report.json", Report{
			RequestID: "e1c5a9f2-3b74-4d0e-8a6c-5f2b9d71c304", Duration: ms(12.3), BilledDuration: ms(13),
			MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(40), InitDuration: ms(95.1), Status: "success", Form: FormJSON,
		}, map[string]string{
			"time":               "2024-05-14T09:21:37.412Z",
			"requestId":          "e1c5a9f2-3b74-4d0e-8a6c-5f2b9d71c304",
			"status":             "success",
			"metrics.durationMs": "12.3",
			"tracing":            `{"spanId":"54565fb41ac79632","type":"X-Amzn-Trace-Id","value":"Root=1-66433e21-6a2b4c8d0e1f23456789abcd;Parent=54565fb41ac79632;Sampled=1"}`,
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := Parse(fixture(t, c.file))
			require.NoError(t, err)
			for name, want := range c.fields {
				assert.Equal(t, want, got.Fields[name], "Fields[%q]", name)
			}
			assert.Equal(t, c.want, typed(got))
		})
	}
}

func TestFind(t *testing.T) {
	cases := []struct {
		file string
		want []Report
	}{
		{"rie-classic.txt", []Report{ // Init Duration printed first; Max Memory Used is Memory Size
			{RequestID: "8b3c6e2a-1f47-4d90-b8a5-c27e9f0d3b61", InitDuration: ms(0.51), Duration: ms(120.42),
				BilledDuration: ms(121), MemorySizeMB: mb(3008), MaxMemoryUsedMB: mb(3008), Form: FormText},
			{RequestID: "5e9a2d17-c380-4b6f-a1e4-92d7b0c5f3a8", Duration: ms(3.07),
				BilledDuration: ms(4), MemorySizeMB: mb(3008), MaxMemoryUsedMB: mb(3008), Form: FormText},
		}},
		{"rie-multiconcurrency.txt", []Report{ // interleaved invokes, Duration only, in the order they ended
			{RequestID: "5f6e7d8c-9b0a-4c1d-9e2f-3a4b5c6d7e8f", Duration: ms(48.20), Form: FormText},
			{RequestID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", Duration: ms(131.95), Form: FormText},
			{RequestID: "9c8b7a6f-5e4d-4c3b-a2a1-0f9e8d7c6b5a", Duration: ms(7.03), Form: FormText},
		}},
		{"mixed.log", []Report{
			{RequestID: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", Duration: ms(170.19), BilledDuration: ms(171),
				MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(73), InitDuration: ms(176.48), Form: FormText},
			{RequestID: "d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a", Duration: ms(1.92), BilledDuration: ms(2),
				MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(74), Form: FormText},
		}},
		{"platform-log.jsonl", []Report{
			{RequestID: "e1c5a9f2-3b74-4d0e-8a6c-5f2b9d71c304", Duration: ms(12.3), BilledDuration: ms(13),
				MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(40), InitDuration: ms(95.1), Status: "success", Form: FormJSON},
			{RequestID: "f27d0b86-4c95-4e1f-9b7d-6a3c0e82d415", Duration: ms(2.05), BilledDuration: ms(3),
				MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(41), Status: "success", Form: FormJSON},
			{RequestID: "0b9e4c27-d6a1-4f38-b2c5-81e7f30a9d46", Duration: ms(18.77), BilledDuration: ms(19),
				MemorySizeMB: mb(512), MaxMemoryUsedMB: mb(92), RestoreDuration: ms(250.18), Status: "success", Form: FormJSON},
			{RequestID: "a3f81d5e-2c07-4b69-8e4a-d5b2c9e07f13", Duration: ms(3000), BilledDuration: ms(3000),
				MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(51), Status: "timeout", Form: FormJSON},
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := Find(fixture(t, c.file))
			require.NoError(t, err)
			var typedGot []Report
			for _, r := range got {
				typedGot = append(typedGot, typed(r))
			}
			assert.Equal(t, c.want, typedGot)
		})
	}
}

func TestFindJoinsTheXRAYLine(t *testing.T) {
	got, err := Find(fixture(t, "mixed.log"))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "1-66433e21-0a8c7fd02a5e480aed55ef0b", got[0].Fields["XRAY TraceId"])
	assert.Equal(t, "4e863b2c62ccf48f", got[1].Fields["SegmentId"])
}

// The same figures in any order, tabs or spaces, are the same Report: fields are read by name.
func TestParseByNameNotPosition(t *testing.T) {
	want := Report{
		RequestID: "3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37", Duration: ms(12.34), BilledDuration: ms(108),
		MemorySizeMB: mb(128), MaxMemoryUsedMB: mb(40), InitDuration: ms(95.12), Form: FormText,
	}
	orders := map[string]string{
		"Lambda's order":     "REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37\tDuration: 12.34 ms\tBilled Duration: 108 ms\tMemory Size: 128 MB\tMax Memory Used: 40 MB\tInit Duration: 95.12 ms\t",
		"the emulator's":     "REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37\tInit Duration: 95.12 ms\tDuration: 12.34 ms\tBilled Duration: 108 ms\tMemory Size: 128 MB\tMax Memory Used: 40 MB\t",
		"reversed":           "REPORT Init Duration: 95.12 ms\tMax Memory Used: 40 MB\tMemory Size: 128 MB\tBilled Duration: 108 ms\tDuration: 12.34 ms\tRequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37",
		"spaces":             "REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37 Duration: 12.34 ms Billed Duration: 108 ms Memory Size: 128 MB Max Memory Used: 40 MB Init Duration: 95.12 ms",
		"spaces, reversed":   "REPORT Init Duration: 95.12 ms Max Memory Used: 40 MB Memory Size: 128 MB Billed Duration: 108 ms Duration: 12.34 ms RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37",
		"tabs and spaces":    "  REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37 \t Duration: 12.34 ms  Billed Duration: 108 ms \tMemory Size: 128 MB\tMax Memory Used: 40 MB Init Duration: 95.12 ms\t\r\n",
		"an unknown between": "REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37 Duration: 12.34 ms Extension Overhead: 3.00 ms Billed Duration: 108 ms Memory Size: 128 MB Max Memory Used: 40 MB Init Duration: 95.12 ms",
	}
	for name, line := range orders {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(line)
			require.NoError(t, err)
			assert.Equal(t, want, typed(got))
		})
	}
	got, err := Parse(orders["an unknown between"])
	require.NoError(t, err)
	assert.Equal(t, "3.00 ms", got.Fields["Extension Overhead"], "an unknown field is kept whole")
}

func TestParseNotReport(t *testing.T) {
	for _, line := range []string{
		"",
		"START RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37 Version: $LATEST",
		"END RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37",
		"INIT_REPORT Init Duration: 10003.42 ms\tPhase: init\tStatus: timeout",
		"REPORTS are written at midnight",
		"XRAY TraceId: 1-5d9d007f-0a8c7fd02a5e480aed55ef0b\tSegmentId: 3d752a1b51bbe37e\tSampled: true",
		"2024-05-14T09:30:00.108Z\tc1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f\tINFO\tREPORT RequestId: nope",
		`{"time":"2024-05-14T09:21:37.398Z","type":"platform.start","record":{"requestId":"x","version":"$LATEST"}}`,
		`{"timestamp":"2024-05-14T09:21:37.405Z","level":"INFO","message":"order accepted"}`,
		`{this is not JSON}`,
	} {
		_, err := Parse(line)
		assert.ErrorIs(t, err, ErrNotReport, "Parse(%q)", line)
	}
}

// malformedWant is what the error for each line of malformed.txt must say, in the file's order.
var malformedWant = []string{
	`Duration "abc ms": "abc" is not a number`,
	`no RequestId`,
	`no RequestId`,
	`Duration "12.34 s": unit "s"; want ms`,
	`Memory Size "128 GB": unit "GB"; want MB`,
	`Init Duration "95.12": no unit; want ms`,
	`Max Memory Used "40.5 MB": "40.5" is not a number`,
	`Duration "-1.00 ms": "-1.00" is not a number`,
	`Duration "NaN ms": "NaN" is not a number`,
	`field "Duration" appears twice`,
	`unnamed text "at 09:30" before "RequestId:"`,
	`metrics.durationMs "12.3": not a number`,
	`platform.report has no requestId`,
	`metrics.memorySizeMB 128.5: 128.5 is not a whole number of MB`,
	`platform.report has no metrics object`,
	`platform.report: unexpected end of JSON input`,
}

func TestParseMalformed(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(fixture(t, "malformed.txt"), "\n"), "\n")
	require.Len(t, lines, len(malformedWant), "malformed.txt lines")
	for i, line := range lines {
		_, err := Parse(line)
		if !assert.Error(t, err, "line %d: Parse(%q)", i+1, line) {
			continue
		}
		assert.NotErrorIs(t, err, ErrNotReport, "line %d is a REPORT, malformed", i+1)
		assert.Equal(t, malformedWant[i], err.Error(), "line %d", i+1)
	}
}

func TestFindCollectsErrors(t *testing.T) {
	log := fixture(t, "malformed.txt") + fixture(t, "real-cold.txt")
	got, err := Find(log)
	require.Error(t, err)
	require.Len(t, got, 1, "the well-formed REPORT after the malformed ones")
	assert.Equal(t, "3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37", got[0].RequestID)

	var joined interface{ Unwrap() []error }
	require.True(t, errors.As(err, &joined), "Find's error = %T; want a joined error", err)
	errs := joined.Unwrap()
	require.Len(t, errs, len(malformedWant))
	assert.Equal(t, "line 1: "+malformedWant[0], errs[0].Error())
	assert.Equal(t, "line 16: "+malformedWant[15], errs[15].Error())
}

func TestCold(t *testing.T) {
	for file, want := range map[string]bool{
		"real-cold.txt":        true,
		"real-warm.txt":        false,
		"real-snapstart.txt":   false, // a restore, not an Init
		"platform-report.json": true,
	} {
		r, err := Parse(fixture(t, file))
		require.NoError(t, err)
		assert.Equal(t, want, r.Cold(), "Cold() of %s", file)
	}
}

// TestBilledAsLambda: a custom runtime's cold start bills Init with Duration, a warm invoke its
// Duration, each rounded up from the printed figures; the provided.al2023 fixtures bill so, and
// the emulator's cold REPORT, which bills Duration alone, is told apart.
func TestBilledAsLambda(t *testing.T) {
	for file, want := range map[string]float64{"real-cold.txt": 108, "real-warm.txt": 3} {
		r, err := Parse(fixture(t, file))
		require.NoError(t, err)
		got, ok := r.BilledAsLambda()
		require.True(t, ok, "BilledAsLambda of %s", file)
		assert.Equal(t, want, got, "BilledAsLambda of %s = %v; want %v", file, got, want)
		require.NotNil(t, r.BilledDuration)
		assert.Equal(t, got, *r.BilledDuration, "%s's Billed Duration = %v; want %v, as Lambda bills a custom runtime", file, *r.BilledDuration, got)
	}

	emulator, err := Parse("REPORT RequestId: 3f5a9c2e-7b1d-4e8a-9c0f-2d6b8e4a1f37\tInit Duration: 95.12 ms\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 128 MB\t")
	require.NoError(t, err)
	got, ok := emulator.BilledAsLambda()
	require.True(t, ok)
	assert.Equal(t, 108.0, got, "BilledAsLambda of the emulator's cold REPORT")
	assert.Equal(t, 13.0, *emulator.BilledDuration, "the emulator's own Billed Duration is kept as printed")

	exact, err := Parse("REPORT RequestId: 4a0d9e63-8b17-4f52-a6c4-3e9f1d7b2a80\tDuration: 4.88 ms\tBilled Duration: 100 ms\tMemory Size: 128 MB\tMax Memory Used: 40 MB\tInit Duration: 95.12 ms\t")
	require.NoError(t, err)
	got, _ = exact.BilledAsLambda()
	assert.Equal(t, 100.0, got, "BilledAsLambda of figures summing to a whole millisecond")

	_, ok = Report{RequestID: "x"}.BilledAsLambda()
	assert.False(t, ok, "BilledAsLambda of a REPORT without Duration")
}

// textFigures are the text form's numeric fields and where Report keeps each, written out here
// rather than taken from the package so that the fuzz test checks the package against the spec.
var textFigures = []struct {
	name string
	ms   func(Report) *float64
	mb   func(Report) *int
}{
	{name: "Duration", ms: func(r Report) *float64 { return r.Duration }},
	{name: "Billed Duration", ms: func(r Report) *float64 { return r.BilledDuration }},
	{name: "Init Duration", ms: func(r Report) *float64 { return r.InitDuration }},
	{name: "Restore Duration", ms: func(r Report) *float64 { return r.RestoreDuration }},
	{name: "Billed Restore Duration", ms: func(r Report) *float64 { return r.BilledRestoreDuration }},
	{name: "Memory Size", mb: func(r Report) *int { return r.MemorySizeMB }},
	{name: "Max Memory Used", mb: func(r Report) *int { return r.MaxMemoryUsedMB }},
}

// FuzzParse checks that Parse never panics, and that whatever it accepts as a text line carries
// in Fields, as printed, exactly the figures it reports.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(f, err)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(string(b))
		for _, line := range strings.Split(string(b), "\n") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := Parse(line)
		if err != nil {
			return
		}
		if r.RequestID == "" {
			t.Errorf("RequestID = %q; want one, since Parse accepted %q", r.RequestID, line)
		}
		if r.Form != FormText {
			return
		}
		for _, fig := range textFigures {
			printed, ok := r.Fields[fig.name]
			words := strings.Fields(printed)
			switch {
			case fig.ms != nil:
				got := fig.ms(r)
				if ok != (got != nil) {
					t.Fatalf("%s in Fields = %v, in Report = %v; want both or neither (line %q)", fig.name, ok, got != nil, line)
				}
				if !ok {
					continue
				}
				want, err := strconv.ParseFloat(words[0], 64)
				if err != nil || len(words) != 2 || words[1] != "ms" || *got != want {
					t.Fatalf("%s = %v; want %q as printed (line %q)", fig.name, *got, printed, line)
				}
			default:
				got := fig.mb(r)
				if ok != (got != nil) {
					t.Fatalf("%s in Fields = %v, in Report = %v; want both or neither (line %q)", fig.name, ok, got != nil, line)
				}
				if !ok {
					continue
				}
				want, err := strconv.Atoi(words[0])
				if err != nil || len(words) != 2 || words[1] != "MB" || *got != want {
					t.Fatalf("%s = %v; want %q as printed (line %q)", fig.name, *got, printed, line)
				}
			}
		}
	})
}
