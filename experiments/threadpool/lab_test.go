package threadpool

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claimtest"
	"github.com/serverless-claims/claims/harness/proc"
	"github.com/serverless-claims/claims/harness/repo"
	"github.com/serverless-claims/claims/harness/results"
	"github.com/serverless-claims/claims/harness/runtimes"
	"github.com/serverless-claims/claims/harness/stats"
	"github.com/serverless-claims/claims/harness/verdict"
)

// seed is the article these claims come from.
const seed = "004_932fe155145b0ebf.txt"

// The lab programs, relative to the repository root.
const (
	labScript = "testdata/threadpool/lab.js"
	labCJS    = "testdata/threadpool/entry-set-inside.cjs"
	labESM    = "testdata/threadpool/entry-set-inside.mjs"
)

// resultPrefix starts the one line a lab program prints with its measurement.
const resultPrefix = "RESULT "

// labTimeout bounds one lab run. The longest, the article-sized interference run, takes a few
// seconds; a run that takes minutes has hung.
const labTimeout = 3 * time.Minute

// forEachNode runs body once per Node.js runtime, as subtests named node24, node20, ...
func forEachNode(t *testing.T, body func(t *testing.T, node runtimes.Node)) {
	t.Helper()
	nodes, err := runtimes.NodeRuntimes()
	require.NoError(t, err, "finding the Node.js runtimes (run `make setup`)")
	for _, n := range nodes {
		t.Run(fmt.Sprintf("node%d", n.Major), func(t *testing.T) { body(t, n) })
	}
}

// lab is one lab program run: which script on which runtime with which environment. The
// environment holds nothing but PATH, HOME and env (see proc.CleanEnv), so a UV_THREADPOOL_SIZE
// in the user's shell never reaches the lab: the tests set it, or leave it unset on purpose.
type lab struct {
	Node   runtimes.Node     `json:"node"`
	Script string            `json:"script"` // repository-relative
	Env    map[string]string `json:"env"`
}

// labOn is the main lab program on node with env.
func labOn(node runtimes.Node, env map[string]string) lab {
	return lab{Node: node, Script: labScript, Env: env}
}

// run runs scenario with params and decodes the RESULT line into out; it fails the test when
// the program cannot run, errs or prints no result.
func (l lab) run(t *testing.T, scenario string, params map[string]any, out any) {
	t.Helper()
	require.NoError(t, l.try(t, scenario, params, out))
}

// try is run, returning the error.
func (l lab) try(t *testing.T, scenario string, params map[string]any, out any) error {
	t.Helper()
	script, err := repo.Path(l.Script)
	if err != nil {
		return err
	}
	if params == nil {
		params = map[string]any{}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	lines, err := proc.Run(t, proc.Spec{
		Name: "lab " + scenario,
		Path: l.Node.Path,
		Args: []string{script, scenario, string(raw)},
		Env:  proc.CleanEnv(proc.Vars(l.Env)...),
		Dir:  t.TempDir(),
	}, labTimeout)
	if err != nil {
		return err
	}
	for _, line := range lines {
		if js, ok := strings.CutPrefix(line, resultPrefix); ok {
			if err := json.Unmarshal([]byte(js), out); err != nil {
				return fmt.Errorf("lab %s result: %w (%.200q)", scenario, err, js)
			}
			return nil
		}
	}
	return fmt.Errorf("lab %s printed no %q line; stdout: %q", scenario, resultPrefix, lines)
}

var calibrations = struct {
	sync.Mutex
	iterations map[string]int
}{iterations: map[string]int{}}

// iterationsFor is the pbkdf2 iteration count that takes jobMs on one idle core of this machine
// with node's OpenSSL, measured once per runtime and test binary, so every trial of every test
// does the same work.
func iterationsFor(t *testing.T, node runtimes.Node, jobMs int) int {
	t.Helper()
	key := fmt.Sprintf("%s@%d", node.Path, jobMs)
	calibrations.Lock()
	defer calibrations.Unlock()
	if n, ok := calibrations.iterations[key]; ok {
		return n
	}
	var c struct{ Iterations int }
	labOn(node, nil).run(t, "calibrate", map[string]any{"jobMs": jobMs}, &c)
	require.Positive(t, c.Iterations, "calibrated pbkdf2 iterations")
	calibrations.iterations[key] = c.Iterations
	return c.Iterations
}

// claim is what a test decides: the IDs in shared/CLAIMS.md, the claim in a sentence and the
// article's own figure.
type claim struct {
	ids       []string
	text      string
	published string
}

// start begins the result of measuring c with l.
func (c claim) start(t *testing.T, l lab, params map[string]any) *results.Result {
	t.Helper()
	env := results.Fingerprint()
	env.Node, env.OpenSSL = l.Node.Version, l.Node.OpenSSL
	env.UVThreadpoolSize = l.Env["UV_THREADPOOL_SIZE"]
	return &results.Result{
		Experiment:  t.Name(),
		Claims:      c.ids,
		Claim:       c.text,
		Mode:        "local",
		StartedAt:   time.Now().UTC(),
		Parameters:  params,
		Target:      l,
		Published:   results.Published{Source: seed, Figure: c.published},
		Environment: env,
	}
}

// decide gives res its verdict and writes it under results/threadpool (claimtest.Decide).
func decide(t *testing.T, res *results.Result, evidence stats.Proportion, checks ...verdict.Check) {
	t.Helper()
	claimtest.Decide(t, "threadpool", res, evidence, checks...)
}

// holds asserts the claim (claimtest.Holds).
func holds(t *testing.T, res *results.Result) {
	t.Helper()
	claimtest.Holds(t, *res)
}

// sizeEnv is the lab environment for a pool size; "" leaves UV_THREADPOOL_SIZE unset, libuv's
// default.
func sizeEnv(size string) map[string]string {
	if size == "" {
		return map[string]string{}
	}
	return map[string]string{"UV_THREADPOOL_SIZE": size}
}

// ms rounds milliseconds for results and messages.
func ms(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
