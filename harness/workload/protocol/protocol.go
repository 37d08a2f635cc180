// Package protocol holds the probe protocol's messages (docs/protocol.md): the READY line a probe
// prints when it listens, and the JSON answer every request gets. Anything that speaks this
// protocol can be put under the experiments; the document's field tables must match these types.
package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ReadyPrefix starts the one stdout line by which a probe says it listens.
const ReadyPrefix = "READY "

// Ready is the READY line's JSON. Addr, EnvID, PID, Runtime and Version are required; Extra keeps
// every field as the probe sent it (GOMAXPROCS, OpenSSL version, ...) for the result's record.
type Ready struct {
	Addr    string `json:"addr"`
	EnvID   string `json:"envId"`
	PID     int    `json:"pid"`
	Runtime string `json:"runtime"`
	Version string `json:"version"`

	Extra map[string]any `json:"-"`
}

// AwaitReady is a readiness test for a process's stdout lines (proc.Spec.Ready): other lines are
// skipped, the READY line is parsed into into, and a READY line that does not parse is an error.
func AwaitReady(into *Ready) func(line string) (bool, error) {
	return func(line string) (bool, error) {
		if !strings.HasPrefix(line, ReadyPrefix) {
			return false, nil
		}
		r, err := ParseReady(line)
		*into = r
		return err == nil, err
	}
}

// ParseReady reads a READY line. It fails, naming the field, when a required field is missing.
func ParseReady(line string) (Ready, error) {
	body, ok := strings.CutPrefix(strings.TrimSpace(line), ReadyPrefix)
	if !ok {
		return Ready{}, fmt.Errorf("not a READY line: %q", line)
	}
	var r Ready
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		return Ready{}, fmt.Errorf("READY line: %w", err)
	}
	if err := json.Unmarshal([]byte(body), &r.Extra); err != nil {
		return Ready{}, fmt.Errorf("READY line: %w", err)
	}
	switch {
	case r.Addr == "":
		return Ready{}, fmt.Errorf("READY line has no addr: %s", body)
	case r.EnvID == "":
		return Ready{}, fmt.Errorf("READY line has no envId: %s", body)
	case r.PID <= 0:
		return Ready{}, fmt.Errorf("READY line has no pid: %s", body)
	case r.Runtime == "" || r.Version == "":
		return Ready{}, fmt.Errorf("READY line has no runtime or version: %s", body)
	}
	return r, nil
}

// Answer is the JSON every probe request gets. ReceivedAt (the handler started) and FinishedAt
// (the handler finished its work) are milliseconds on the probe process's own monotonic clock:
// two answers compare only when they carry the same EnvID.
type Answer struct {
	EnvID      string  `json:"envId"`
	PID        int     `json:"pid"`
	ReceivedAt float64 `json:"receivedAt"`
	FinishedAt float64 `json:"finishedAt"`
	Path       string  `json:"path,omitempty"`
	Ms         int     `json:"ms,omitempty" jsonschema:"minimum=1"` // what a /cpu was asked to spin
	Mode       string  `json:"mode,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// ParseAnswer decodes a probe's answer and checks the fields every answer must carry.
func ParseAnswer(body []byte) (Answer, error) {
	var a Answer
	if err := json.Unmarshal(body, &a); err != nil {
		return Answer{}, fmt.Errorf("answer is not JSON: %w (%.200q)", err, body)
	}
	if a.EnvID == "" || a.PID <= 0 {
		return Answer{}, fmt.Errorf("answer has no envId or pid: %.200s", body)
	}
	if a.FinishedAt < a.ReceivedAt {
		return Answer{}, fmt.Errorf("answer finishedAt %.3f is before receivedAt %.3f", a.FinishedAt, a.ReceivedAt)
	}
	return a, nil
}
