// Package results is the JSON record of one experiment: its claims, parameters, every raw trial,
// the summary, the verdict with its reason, the published figure beside ours, and the machine it
// ran on. Files are written whole or not at all, and never hold a credential, an account ID or a
// signed URL. results/README.md documents the schema.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// Schema names this version of the format; a change that breaks readers bumps it. The JSON
// Schema that checks it is results/schema/claims-result-v2.json, generated from the types.
const Schema = "claims-result/v2"

// DirEnv overrides where results go (default: results/ at the repository root).
const DirEnv = "CLAIMS_RESULTS_DIR"

// The modes a result can come from: where its target ran.
const (
	// ModeLocal is a run against this machine's stand-ins.
	ModeLocal = "local"
	// ModeLive is a run on AWS Lambda, or on an endpoint a user named that speaks its API.
	ModeLive = "live"
	// ModeLiveStandIn is the live mode's code run end to end against this repository's
	// stand-ins of Lambda's, IAM's and DynamoDB's APIs: the local model of Lambda reached
	// through Lambda's API, which proves the live path, not Lambda.
	ModeLiveStandIn = "live-standin"
	// ModeLocalRouter is a Web Function claim run against this repository's stand-in endpoint
	// (harness/standin/webrouter): probe processes as environments behind a router whose policy is the
	// stand-in's own, which proves the measuring and deciding, not Lambda's routing.
	ModeLocalRouter = "local-router"
)

// Modes are the modes a result can come from, in the order above.
var Modes = []string{ModeLocal, ModeLive, ModeLiveStandIn, ModeLocalRouter}

// SensitivityDir is the folder under Dir for the results of runs against targets broken on
// purpose (the tests that check the claim tests): they are evidence about the tests, never findings.
const SensitivityDir = "sensitivity"

// MatrixDir is the folder under Dir for the runtime matrix (`make matrix`): one folder per runtime
// below it, each holding that runtime's results laid out as Dir is, and matrix.md and matrix.json
// beside it in Dir. The report's summary leaves it out, and shows the matrix instead.
const MatrixDir = "matrix"

// Result is one experiment's record. Parameters, Target, Summary and Trials are typed by the
// experiment's family (Family names which); a reader that does not know the family gets them as
// json.RawMessage.
type Result struct {
	Schema string `json:"schema"`
	// the test's full name
	Experiment string `json:"experiment" jsonschema:"pattern=^(Test|Benchmark)[A-Za-z0-9_]+(/.+)?$"`
	// which parameters, summary and trials: eventloop, threadpool.waves...
	Family string `json:"family"`
	// catalog IDs: W2, W3...
	Claims []string `json:"claims" jsonschema:"pattern=^[WTP][0-9]{1\\,2}$,minItems=1"`
	// the claim in a sentence, as this run tests it
	Claim string `json:"claim" jsonschema:"minLength=1"`
	// ModeLocal, ModeLive, ModeLiveStandIn or ModeLocalRouter, as the target says
	Mode string `json:"mode"`
	// what a sensitivity run broke on purpose
	Broken     string    `json:"broken,omitempty" jsonschema:"minLength=1"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Headline   string    `json:"headline" jsonschema:"minLength=1"` // our key figures in one line
	Parameters any       `json:"parameters"`
	// what was measured: the probe, lab or function, its runtime and settings
	Target   any             `json:"target"`
	Summary  any             `json:"summary"`
	Verdict  verdict.Verdict `json:"verdict"`
	Expected *Expected       `json:"expected,omitempty"` // what the test asserts when not that the claim holds
	// ModelPrediction is, on a platform that judges the local model (ModeLive), what the model
	// predicted of this claim here: what the same test asserts locally and through the
	// stand-ins. The test asserts the article's claim there, never the model's refutation, so
	// a verdict that differs from the prediction is a finding about the model.
	ModelPrediction *Prediction `json:"modelPrediction,omitempty"`
	Published       []Published `json:"published" jsonschema:"minItems=1"` // the catalog's figure for each claim
	Environment     Environment `json:"environment"`
	Trials          any         `json:"trials"` // every raw trial, with its evidence
}

// Expected is what a claim test asserts of its verdict when that is not "the claim holds": a
// claim these runtimes do not bear out is a finding, and its test passes while the verdict stays
// Outcome. A reader tells "fail, as the test asserts" from "fail" by it.
type Expected struct {
	Outcome verdict.Outcome `json:"outcome"`
	// why the claim does not hold here, as the test states it
	Why string `json:"why" jsonschema:"minLength=1"`
	// OrInconclusive says the test accepts an inconclusive verdict too: the claim's effect is
	// at its bound here, so more evidence moves its interval onto the bound, not past it.
	OrInconclusive bool `json:"orInconclusive,omitempty"`
}

// Prediction is the local model's prediction of a verdict: Outcome pass where it predicts the
// claim holds, else the refutation its test asserts locally, with why.
type Prediction struct {
	Outcome verdict.Outcome `json:"outcome"`
	// why the model refutes the claim here; "" where it predicts pass
	Why string `json:"why,omitempty" jsonschema:"minLength=1"`
	// the model predicts fail or inconclusive
	OrInconclusive bool `json:"orInconclusive,omitempty"`
}

// Disagrees says whether a verdict of outcome differs from the prediction.
func (p Prediction) Disagrees(outcome verdict.Outcome) bool {
	if p.OrInconclusive && outcome == verdict.Inconclusive {
		return false
	}
	return outcome != p.Outcome
}

// Published is a claim's published figure as the catalog quotes it, to read beside ours.
type Published struct {
	Claim  string         `json:"claim" jsonschema:"pattern=^[WTP][0-9]{1\\,2}$"`
	Source catalog.Source `json:"source"`
	Figure string         `json:"figure"` // "" where none was published
}

// PublishedFor is the catalog's figure for each of ids.
func PublishedFor(ids []string) ([]Published, error) {
	out := make([]Published, 0, len(ids))
	for _, id := range ids {
		c, err := catalog.Lookup(id)
		if err != nil {
			return nil, err
		}
		out = append(out, Published{Claim: id, Source: c.Source, Figure: c.Published})
	}
	return out, nil
}

// Environment is the machine and runtimes a result was measured on.
type Environment struct {
	Go       string `json:"go"`
	Node     string `json:"node,omitempty"`
	OpenSSL  string `json:"openssl,omitempty"`
	OS       string `json:"os"`
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpuModel"`
	Cores    int    `json:"cores" jsonschema:"minimum=1"`
	// the probe's, where it is a Go probe; else the harness's
	GOMAXPROCS       int    `json:"gomaxprocs" jsonschema:"minimum=1"`
	UVThreadpoolSize string `json:"uvThreadpoolSize,omitempty"`
	CPUQuota         string `json:"cpuQuota,omitempty"` // cgroup quota/period where one was applied
	// Cgroup is the machine's cgroup hierarchy with the cpu controller and how a quota is made in
	// it, or why none can be (cgroup.DescribeMachine): "v1 /sys/fs/cgroup/cpu, groups at its
	// root", "v2 /sys/fs/cgroup, groups in the subtree delegated at <path>", "none: <reason>".
	Cgroup   string  `json:"cgroup,omitempty" jsonschema:"pattern=^(v1 |v2 |none: )"`
	LoadAvg1 float64 `json:"loadAvg1" jsonschema:"minimum=0"` // how busy the machine was when the run started
}

// Dir is where results are written: CLAIMS_RESULTS_DIR, else results/ under root.
func Dir(root string) string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(root, "results")
}

// FileName turns a test's name into a file name: TestX/node/one-cpu -> TestX--node--one-cpu.json.
func FileName(testName string) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == '=':
			return r
		case r == '/':
			return '/'
		default:
			return '_'
		}
	}, testName)
	return strings.ReplaceAll(safe, "/", "--") + ".json"
}

// ErrSecret is returned when a result would have carried a credential, account ID or signed URL.
var ErrSecret = errors.New("result holds what looks like a credential, account ID or signed URL; not written")

// Write writes r as dir/name atomically: to a temporary file in the same folder, synced, then
// renamed over the old one, so a reader sees the old file or the new one, never half of either.
func Write(dir, name string, r Result) (string, error) {
	r.Schema = Schema
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("result %s: %w", name, err)
	}
	if found := ScanSecrets(data); len(found) > 0 {
		return "", fmt.Errorf("%w: %s", ErrSecret, strings.Join(found, "; "))
	}
	path := filepath.Join(dir, name)
	if err := wholefile.Write(path, append(data, '\n')); err != nil {
		return "", err
	}
	return path, nil
}

// Read reads a result file: the envelope typed, the family's parts as json.RawMessage.
func Read(path string) (Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	// The family's parts are tagged as Result's are: an untagged field would lose to the
	// embedded one's exact-name match and stay empty.
	var raw struct {
		Result
		Parameters json.RawMessage `json:"parameters"`
		Target     json.RawMessage `json:"target"`
		Summary    json.RawMessage `json:"summary"`
		Trials     json.RawMessage `json:"trials"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	r := raw.Result
	if r.Schema != Schema {
		return Result{}, fmt.Errorf("%s: schema %q; this reader knows %q", path, r.Schema, Schema)
	}
	r.Parameters, r.Target, r.Summary, r.Trials = raw.Parameters, raw.Target, raw.Summary, raw.Trials
	return r, nil
}
