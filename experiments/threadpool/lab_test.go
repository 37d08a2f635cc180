package threadpool

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/sys/proc"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
	"github.com/serverless-claims/claims/results/family"
)

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

// lab is one lab program on one Node.js runtime with its environment: what a claim body runs
// against (nodeModes starts one per runtime) and what a result records as its target. The
// environment holds nothing but PATH, HOME and Env (see proc.CleanEnv), so a UV_THREADPOOL_SIZE
// in the user's shell never reaches the lab: the tests set it, or leave it unset on purpose.
type lab struct{ family.Lab }

// Mode is "local": the lab runs on this machine.
func (lab) Mode() string { return "local" }

// nodeModes are the Node.js runtimes a claim runs on (runtimes.ChosenNodeRuntimes: every one
// found, or the first alone under CLAIMS_NODE_RUNTIMES=first), as modes named node24, node20,
// ...; each starts the main lab program on its runtime with no environment.
func nodeModes(t *testing.T) []claimtest.Mode[lab] {
	t.Helper()
	nodes, err := runtimes.ChosenNodeRuntimes()
	require.NoError(t, err, "finding the Node.js runtimes (run `make setup`)")
	return labModes(nodes)
}

// everyNodeMode is nodeModes over every runtime found, even under CLAIMS_NODE_RUNTIMES=first:
// for the claim decided across runtimes (P5), which one runtime alone would decide otherwise.
// Only CLAIMS_NODE_RUNTIMES=only, one column of the runtime matrix, keeps it to one runtime.
func everyNodeMode(t *testing.T) []claimtest.Mode[lab] {
	t.Helper()
	nodes, err := runtimes.AcrossNodeRuntimes()
	require.NoError(t, err, "finding the Node.js runtimes (run `make setup`)")
	return labModes(nodes)
}

// labModes are the modes of nodes, one per runtime.
func labModes(nodes []runtimes.Node) []claimtest.Mode[lab] {
	modes := make([]claimtest.Mode[lab], len(nodes))
	for i, n := range nodes {
		modes[i] = claimtest.Mode[lab]{
			Name:  fmt.Sprintf("node%d", n.Major),
			Start: func(*testing.T) lab { return lab{family.Lab{Node: n, Script: labScript, Env: map[string]string{}}} },
		}
	}
	return modes
}

// firstLab is the lab on the first runtime, for the tests that check the tests rather than the
// runtimes.
func firstLab(t *testing.T) lab {
	t.Helper()
	return nodeModes(t)[0].Start(t)
}

// sized is the main lab program on l's runtime with UV_THREADPOOL_SIZE=size; "" leaves it unset,
// libuv's default.
func (l lab) sized(size string) lab {
	env := map[string]string{}
	if size != "" {
		env["UV_THREADPOOL_SIZE"] = size
	}
	return lab{family.Lab{Node: l.Node, Script: labScript, Env: env}}
}

// script is another program on l's runtime, with env.
func (l lab) script(script string, env map[string]string) lab {
	return lab{family.Lab{Node: l.Node, Script: script, Env: env}}
}

// environment is the machine and l's runtime, for l's result.
func (l lab) environment() results.Environment {
	env := results.Fingerprint()
	env.Node, env.OpenSSL = l.Node.Version, l.Node.OpenSSL
	env.UVThreadpoolSize = l.Env["UV_THREADPOOL_SIZE"]
	return env
}

// run runs scenario with params (a JSON object) and decodes the RESULT line into out; it fails
// the test when the program cannot run, errs or prints no result.
func (l lab) run(t *testing.T, scenario string, params, out any) {
	t.Helper()
	require.NoError(t, l.try(t, scenario, params, out))
}

// try is run, returning the error.
func (l lab) try(t *testing.T, scenario string, params, out any) error {
	t.Helper()
	script, err := repo.Path(l.Script)
	if err != nil {
		return err
	}
	if params == nil {
		params = struct{}{}
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
	l := lab{family.Lab{Node: node, Script: labScript, Env: map[string]string{}}}
	l.run(t, "calibrate", map[string]any{"jobMs": jobMs}, &c)
	require.Positive(t, c.Iterations, "calibrated pbkdf2 iterations")
	calibrations.iterations[key] = c.Iterations
	return c.Iterations
}

// ms rounds milliseconds for results and messages.
func ms(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// shown prints an unset variable as such.
func shown(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}
