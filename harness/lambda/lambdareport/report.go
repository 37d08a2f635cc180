// Package lambdareport reads AWS Lambda's per-invocation REPORT record, the evidence for claims
// about Init Duration and Duration, in the forms it is printed in:
//
//   - Lambda's classic text line, fields separated by tabs ("REPORT RequestId: …\tDuration: 12.34
//     ms\t…"), with Init Duration only on a cold start, Restore Duration and Billed Restore
//     Duration on a SnapStart restore, Status and Error Type on a failed invoke, and X-Ray's
//     "XRAY TraceId: …\tSegmentId: …\tSampled: true" either on the same line or on the next;
//   - the same line with spaces where the tabs were, as consoles and copies often render it;
//   - the Runtime Interface Emulator's line, which prints Init Duration first and fakes the memory
//     figures (Max Memory Used is always Memory Size), and its Lambda Managed Instances
//     (multi-concurrency) line, which carries Duration alone;
//   - the JSON platform.report record of the Telemetry API and of the JSON log format.
//
// Fields are read by name, never by position, because the forms order them differently and new
// fields appear over time: a name the package does not know is kept in Report.Fields, never an
// error. What is an error is a line that claims to be a REPORT and cannot be read: no RequestId,
// a known figure that is not a number, or a figure in the wrong unit.
package lambdareport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The forms a Report can come in, as Report.Form says.
const (
	FormText = "text" // the classic tab- (or space-) separated line
	FormJSON = "json" // a platform.report record
)

// ErrNotReport is returned, wrapped, by Parse for a line that is not a REPORT at all, so that a
// caller scanning a log can skip it; any other error means the line is a REPORT that is malformed.
var ErrNotReport = errors.New("not a REPORT line")

// Report is one invocation's REPORT, whatever form it came in. Durations are in milliseconds and
// memory in MB; a figure the line did not carry is nil, so a warm start's InitDuration is nil
// rather than 0. A result keeps it as an invocation's report (results/family's Invoked) under
// the json names below: the figures the claims read, without the request id, the SnapStart
// figures, the form and the fields as printed.
type Report struct {
	RequestID             string   `json:"-"`
	InitDuration          *float64 `json:"initMs,omitempty" jsonschema:"minimum=0"`
	Duration              *float64 `json:"durationMs,omitempty" jsonschema:"minimum=0"`
	BilledDuration        *float64 `json:"billedMs,omitempty" jsonschema:"minimum=0"`
	RestoreDuration       *float64 `json:"-"`
	BilledRestoreDuration *float64 `json:"-"`
	MemorySizeMB          *int     `json:"memorySizeMB,omitempty" jsonschema:"minimum=0"`
	MaxMemoryUsedMB       *int     `json:"maxMemoryUsedMB,omitempty" jsonschema:"minimum=0"`
	// Status is the invoke's outcome as printed: a text line says it only when the invoke failed
	// ("timeout", "error"), so "" there means success; a JSON record always says it ("success").
	Status string `json:"status,omitempty"`
	Form   string `json:"-"` // FormText or FormJSON
	// Fields holds every field of the record, known or not, as printed. For text it is keyed by
	// the printed name ("Billed Duration") and the value keeps its unit ("13 ms"), with runs of
	// white space made one space. For JSON it is keyed by the record's key, with a metric under
	// "metrics." ("metrics.durationMs"), the envelope's time under "time", a string unquoted and
	// any other value as compact JSON.
	Fields map[string]string `json:"-"`
}

// Cold reports whether the invocation paid for an Init phase, which Lambda shows by printing
// Init Duration. A SnapStart restore prints Restore Duration instead and is not counted here.
func (r Report) Cold() bool { return r.InitDuration != nil }

// BilledAsLambda is what Lambda bills, in whole milliseconds, for an invocation with this
// REPORT's figures on a custom runtime (provided.al2023, provided.al2), whose Init was always
// billed: Init Duration, on a cold start, with Duration, rounded up from the figures as printed
// (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/; since
// 1 August 2025 managed runtimes' on-demand ZIP functions are billed so too). It is for a REPORT
// that bills otherwise, as the Runtime Interface Emulator's does (ceil(Duration) on a cold start
// as well), and is computed, not read: ok is false when the REPORT has no Duration.
func (r Report) BilledAsLambda() (ms float64, ok bool) {
	if r.Duration == nil {
		return 0, false
	}
	hundredths := math.Round(*r.Duration * 100)
	if r.InitDuration != nil {
		hundredths += math.Round(*r.InitDuration * 100)
	}
	return math.Ceil(hundredths / 100), true
}

// kind is how a known field's value is read.
type kind int

const (
	kindText kind = iota // kept as printed
	kindMs               // "<number> ms", into a *float64
	kindMB               // "<integer> MB", into a *int
)

// textFields are the names Lambda and the emulator print, with how to read each. Names not here
// are still kept in Fields.
var textFields = map[string]kind{
	"RequestId":               kindText,
	"Duration":                kindMs,
	"Billed Duration":         kindMs,
	"Init Duration":           kindMs,
	"Restore Duration":        kindMs,
	"Billed Restore Duration": kindMs,
	"Memory Size":             kindMB,
	"Max Memory Used":         kindMB,
	"Status":                  kindText,
	"Error Type":              kindText,
	"XRAY TraceId":            kindText,
	"SegmentId":               kindText,
	"Sampled":                 kindText,
}

// knownNames are textFields' names split into words, for telling where a name starts in a line
// whose tabs became spaces.
var knownNames = func() [][]string {
	var names [][]string
	for name := range textFields {
		names = append(names, strings.Fields(name))
	}
	return names
}()

// jsonMetrics are the platform.report metrics the package reads, with how to read each.
var jsonMetrics = map[string]kind{
	"durationMs":              kindMs,
	"billedDurationMs":        kindMs,
	"initDurationMs":          kindMs,
	"restoreDurationMs":       kindMs,
	"billedRestoreDurationMs": kindMs,
	"memorySizeMB":            kindMB,
	"maxMemoryUsedMB":         kindMB,
}

var (
	// A figure as Lambda prints it: plain decimal, never a sign, exponent, NaN or hex float, all of
	// which strconv would otherwise accept.
	decimalRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	integerRe = regexp.MustCompile(`^[0-9]+$`)
	// A word that ends a field name in the text form, less its colon: "RequestId", "Duration".
	nameWordRe = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)
)

// Parse reads one REPORT, text or JSON. Leading and trailing white space is ignored; inside a text
// record a newline separates fields like a tab, so that a CloudWatch event whose XRAY part is on a
// second line parses whole. A text REPORT must start the line: one behind a prefix (a timestamp
// from `aws logs tail`, a container name from `docker compose logs`) is not recognised, so strip it
// first. A JSON REPORT is one record, not the Telemetry API's array of them. A line that is not a
// REPORT gives an error wrapping ErrNotReport; a REPORT that cannot be read gives an error that
// names the field at fault.
func Parse(line string) (Report, error) {
	s := strings.TrimSpace(line)
	if strings.HasPrefix(s, "{") {
		return parseJSON(s)
	}
	return parseText(s)
}

// Find returns every REPORT in a multi-line log, in order, skipping the lines that are not one
// (START, END, INIT_START, the function's own output, other platform records). An "XRAY TraceId:"
// line right after a text REPORT is read as part of it, as Lambda prints it. A malformed REPORT is
// not skipped silently, since a dropped cold start would bias the very figures the caller wants:
// its error, prefixed with its 1-based line number, is joined into the returned error, and the
// REPORTs that did parse are returned alongside it.
func Find(log string) ([]Report, error) {
	lines := strings.Split(log, "\n")
	var reports []Report
	var errs []error
	for i := 0; i < len(lines); i++ {
		line, at := lines[i], i+1
		if i+1 < len(lines) && isWord(strings.TrimSpace(line), "REPORT") &&
			strings.HasPrefix(strings.TrimSpace(lines[i+1]), "XRAY TraceId:") {
			line += "\n" + lines[i+1]
			i++
		}
		r, err := Parse(line)
		switch {
		case errors.Is(err, ErrNotReport):
		case err != nil:
			errs = append(errs, fmt.Errorf("line %d: %w", at, err))
		default:
			reports = append(reports, r)
		}
	}
	return reports, errors.Join(errs...)
}

// isWord reports whether s begins with the word w followed by white space or nothing, so that
// "REPORTS" and "INIT_REPORT" are not "REPORT".
func isWord(s, w string) bool {
	rest, ok := strings.CutPrefix(s, w)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r')
}

// field is one "Name: value" of a text record.
type field struct{ name, value string }

func parseText(s string) (Report, error) {
	if !isWord(s, "REPORT") {
		return Report{}, fmt.Errorf("%w: %q", ErrNotReport, clip(s))
	}
	fields, err := splitFields(s[len("REPORT"):])
	if err != nil {
		return Report{}, err
	}
	r := Report{Form: FormText, Fields: make(map[string]string, len(fields))}
	for _, f := range fields {
		if _, dup := r.Fields[f.name]; dup {
			return Report{}, fmt.Errorf("field %q appears twice", f.name)
		}
		r.Fields[f.name] = f.value
		if err := r.setText(f.name, f.value); err != nil {
			return Report{}, err
		}
	}
	if r.RequestID == "" {
		return Report{}, errors.New("no RequestId")
	}
	return r, nil
}

// setText stores a known text field's value in its place in r; an unknown name is left alone.
func (r *Report) setText(name, value string) error {
	k, known := textFields[name]
	if !known {
		return nil
	}
	switch k {
	case kindMs:
		v, err := quantity(value, "ms", decimalRe)
		if err != nil {
			return fmt.Errorf("%s %q: %w", name, value, err)
		}
		*r.msField(name) = &v
	case kindMB:
		v, err := quantity(value, "MB", integerRe)
		if err != nil {
			return fmt.Errorf("%s %q: %w", name, value, err)
		}
		n, err := toInt(v)
		if err != nil {
			return fmt.Errorf("%s %q: %w", name, value, err)
		}
		*r.mbField(name) = &n
	default:
		switch name {
		case "RequestId":
			if value == "" {
				return errors.New("no RequestId")
			}
			if strings.ContainsAny(value, " \t") {
				return fmt.Errorf("RequestId %q is not one word", value)
			}
			r.RequestID = value
		case "Status":
			r.Status = value
		}
	}
	return nil
}

// msField is where the named duration (text or JSON name) is kept.
func (r *Report) msField(name string) **float64 {
	switch name {
	case "Billed Duration", "billedDurationMs":
		return &r.BilledDuration
	case "Init Duration", "initDurationMs":
		return &r.InitDuration
	case "Restore Duration", "restoreDurationMs":
		return &r.RestoreDuration
	case "Billed Restore Duration", "billedRestoreDurationMs":
		return &r.BilledRestoreDuration
	default: // "Duration", "durationMs"
		return &r.Duration
	}
}

// mbField is where the named memory figure (text or JSON name) is kept.
func (r *Report) mbField(name string) **int {
	if name == "Memory Size" || name == "memorySizeMB" {
		return &r.MemorySizeMB
	}
	return &r.MaxMemoryUsedMB
}

// quantity reads "<number> <unit>", the number matching re.
func quantity(value, unit string, re *regexp.Regexp) (float64, error) {
	parts := strings.Fields(value)
	switch {
	case len(parts) == 0:
		return 0, errors.New("no value")
	case len(parts) == 1:
		return 0, fmt.Errorf("no unit; want %s", unit)
	case len(parts) > 2:
		return 0, fmt.Errorf("want <number> %s", unit)
	case parts[1] != unit:
		return 0, fmt.Errorf("unit %q; want %s", parts[1], unit)
	case !re.MatchString(parts[0]):
		return 0, fmt.Errorf("%q is not a number", parts[0])
	}
	v, err := strconv.ParseFloat(parts[0], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", parts[0])
	}
	return v, nil
}

// toInt converts a memory figure, refusing fractions and sizes no function has.
func toInt(v float64) (int, error) {
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("%v is not a whole number of MB", v)
	}
	if v < 0 || v > 1<<31 {
		return 0, fmt.Errorf("%v MB is out of range", v)
	}
	return int(v), nil
}

// splitFields cuts the body of a text REPORT (after "REPORT") into its fields. Tabs and newlines
// always end a field. Within a run without them, as in a line whose tabs became spaces, a name is
// a word ending in ":" together with the capitalised words just before it (not units such as MB,
// and always leaving the field before it one word of value), or a known name if that starts
// earlier, which it can only do when the field before it has an empty value.
func splitFields(body string) ([]field, error) {
	var out []field
	for _, seg := range strings.FieldsFunc(body, func(c rune) bool { return c == '\t' || c == '\n' || c == '\r' }) {
		words := strings.Fields(seg)
		cur := -1 // index in out of the field being filled from this segment; -1 before the first
		valueFrom := 0
		for i, w := range words {
			last, isName := strings.CutSuffix(w, ":")
			if !isName || !nameWordRe.MatchString(last) {
				continue
			}
			lo := nameStart(words, i, valueFrom, cur >= 0)
			if cur >= 0 {
				out[cur].value = strings.Join(words[valueFrom:lo], " ")
			} else if lo > 0 {
				return nil, fmt.Errorf("unnamed text %q before %q", strings.Join(words[:lo], " "), w)
			}
			names := append(slices.Clone(words[lo:i]), last)
			out = append(out, field{name: strings.Join(names, " ")})
			cur, valueFrom = len(out)-1, i+1
		}
		if cur < 0 {
			return nil, fmt.Errorf("unnamed text %q", strings.Join(words, " "))
		}
		out[cur].value = strings.Join(words[valueFrom:], " ")
	}
	return out, nil
}

// nameStart returns the index of the first word of the name whose colon-word is words[i]. The name
// starts no earlier than floor; when filling is set (a field is being filled, its value starting
// at floor) the capitalised words taken leave that field at least one word, though a known name
// may take them all and leave it empty.
func nameStart(words []string, i, floor int, filling bool) int {
	stop := floor
	if filling {
		stop = floor + 1
	}
	lo := i
	for lo-1 >= stop && nameWordRe.MatchString(words[lo-1]) && !isUnit(words[lo-1]) {
		lo--
	}
	last := strings.TrimSuffix(words[i], ":")
	for _, name := range knownNames {
		start := i - len(name) + 1
		if start < lo && start >= floor && name[len(name)-1] == last && slices.Equal(words[start:i], name[:len(name)-1]) {
			lo = start
		}
	}
	return lo
}

// isUnit reports whether w is a unit that ends a value and so cannot start a name.
func isUnit(w string) bool { return w == "MB" || w == "GB" || w == "KB" }

func parseJSON(s string) (Report, error) {
	var event map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &event); err != nil {
		// A function's own output may start with "{" and be anything; only a line that names
		// platform.report was meant to be one.
		if strings.Contains(s, `"platform.report"`) {
			return Report{}, fmt.Errorf("platform.report: %w", err)
		}
		return Report{}, fmt.Errorf("%w: JSON that does not decode: %v", ErrNotReport, err)
	}
	var typ string
	if raw, ok := event["type"]; !ok || json.Unmarshal(raw, &typ) != nil || typ != "platform.report" {
		return Report{}, fmt.Errorf("%w: JSON whose type is not platform.report", ErrNotReport)
	}
	r := Report{Form: FormJSON, Fields: map[string]string{}}
	if raw, ok := event["time"]; ok {
		r.Fields["time"] = jsonText(raw)
	}
	var record map[string]json.RawMessage
	if err := json.Unmarshal(event["record"], &record); err != nil || record == nil {
		return Report{}, errors.New("platform.report has no record object")
	}
	for key, raw := range record {
		if key != "metrics" {
			r.Fields[key] = jsonText(raw)
		}
	}
	if err := json.Unmarshal(record["requestId"], &r.RequestID); err != nil || r.RequestID == "" {
		return Report{}, errors.New("platform.report has no requestId")
	}
	if raw, ok := record["status"]; ok {
		if err := json.Unmarshal(raw, &r.Status); err != nil {
			return Report{}, fmt.Errorf("status %s is not a string", raw)
		}
	}
	var metrics map[string]json.RawMessage
	if err := json.Unmarshal(record["metrics"], &metrics); err != nil || metrics == nil {
		return Report{}, errors.New("platform.report has no metrics object")
	}
	for key, raw := range metrics {
		if string(raw) == "null" {
			continue // a metric the record did not carry, however the serialiser put it
		}
		r.Fields["metrics."+key] = jsonText(raw)
		k, known := jsonMetrics[key]
		if !known {
			continue
		}
		v, err := jsonNumber(raw)
		if err != nil {
			return Report{}, fmt.Errorf("metrics.%s %s: %w", key, raw, err)
		}
		if k == kindMs {
			*r.msField(key) = &v
			continue
		}
		n, err := toInt(v)
		if err != nil {
			return Report{}, fmt.Errorf("metrics.%s %s: %w", key, raw, err)
		}
		*r.mbField(key) = &n
	}
	return r, nil
}

// jsonNumber reads a JSON number that is not negative; a string holding digits is refused, since
// the schema says number and a quoted one means some other producer.
func jsonNumber(raw json.RawMessage) (float64, error) {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return 0, errors.New("not a number")
	}
	v, err := n.Float64()
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, errors.New("not a non-negative number")
	}
	return v, nil
}

// jsonText is a JSON value as Fields keeps it: a string unquoted, anything else compact.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// clip shortens a line for an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
