package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Event is what a claim test logs when it has written a result: the claims decided, the
// verdict and where the result went. A reader of the test's output (cmd/progress, over go test
// -json) parses it with ParseEvent rather than reading the log's prose, so the two cannot drift
// apart: Format writes the only line ParseEvent reads.
type Event struct {
	Claims  []string        `json:"claims"`
	Outcome verdict.Outcome `json:"outcome"`
	Reason  string          `json:"reason"`
	// Path is the result file, as written: absolute, or relative to the test's folder.
	Path string `json:"path"`
}

// eventMark begins an Event's line; the JSON object follows it.
const eventMark = "claims-result "

// ErrNotEvent is returned, wrapped, by ParseEvent for a line that is no Event at all, so that a
// reader scanning a test's output can pass it by; any other error is an Event's line that is
// malformed.
var ErrNotEvent = errors.New("not a result event")

// logHeader is the file:line prefix testing puts before a logged message, indented.
var logHeader = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// Format is e's line: eventMark and e as one line of JSON (a newline in the reason is escaped),
// for the test to log.
func (e Event) Format() string {
	data, err := json.Marshal(e)
	if err != nil {
		// Nothing in an Event fails to marshal; say so rather than log an unreadable line.
		panic(fmt.Sprintf("results: marshalling an Event: %v", err))
	}
	return eventMark + string(data)
}

// ParseEvent reads one line of a test's output back into the Event Format wrote, with or
// without the file:line testing logs it under. A line without the mark is ErrNotEvent; one with
// it whose JSON does not read, or whose outcome is none of the three, or that has no path, is
// an error saying so.
func ParseEvent(line string) (Event, error) {
	s := strings.TrimRight(line, "\r\n")
	if loc := logHeader.FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	rest, ok := strings.CutPrefix(s, eventMark)
	if !ok {
		return Event{}, fmt.Errorf("%w: %.60q", ErrNotEvent, line)
	}
	var e Event
	if err := json.Unmarshal([]byte(rest), &e); err != nil {
		return Event{}, fmt.Errorf("result event %.80q: %w", rest, err)
	}
	switch {
	case e.Outcome != verdict.Pass && e.Outcome != verdict.Fail && e.Outcome != verdict.Inconclusive:
		return Event{}, fmt.Errorf("result event %.80q: outcome %q is not pass, fail or inconclusive", rest, e.Outcome)
	case e.Path == "":
		return Event{}, fmt.Errorf("result event %.80q: no path", rest)
	}
	return e, nil
}
