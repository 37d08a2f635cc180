package functions_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/functions"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/managedruntime"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/runtimes"
)

// ownCheck is one of a function's own checks, with its language's tool, run in the function's
// folder as its README gives it.
type ownCheck struct {
	name string
	run  func(ctx context.Context, root, dir string) ([]byte, error)
}

// command runs name with args in dir, the function's folder.
func command(name string, args ...string) func(ctx context.Context, root, dir string) ([]byte, error) {
	return func(ctx context.Context, root, dir string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = filepath.Join(root, filepath.FromSlash(dir))
		// The Python function's tests read no AWS configuration but their own.
		cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_DISABLED=true", "PYTHONDONTWRITEBYTECODE=1")
		return cmd.CombinedOutput()
	}
}

// cargo runs cargo's command args on the Rust function as lambdazip builds it: offline, against
// the vendored crates of its Cargo.lock.
func cargo(args ...string) func(ctx context.Context, root, dir string) ([]byte, error) {
	return func(ctx context.Context, root, dir string) ([]byte, error) {
		return lambdazip.RustCargo(ctx, root, dir, args...)
	}
}

// ownChecks are each language's own tests and linter. Python's are Debian's interpreter (the one
// the managed runtime's stand-in runs, whose boto3 the bundle vendors) and flake8
// (provision.FunctionCheckPackages); Node's run on the runtime the probes run on (Node 24 after
// make setup) with the function's devDependencies.
func ownChecks(t *testing.T) map[lambdazip.Language][]ownCheck {
	t.Helper()
	node, err := runtimes.FindNode()
	require.NoError(t, err, "the Node.js runtime for the Node function's checks")
	return map[lambdazip.Language][]ownCheck{
		lambdazip.Rust: {
			{"cargo test", cargo("test", "--offline", "--locked")},
			{"cargo clippy", cargo("clippy", "--offline", "--locked", "--all-targets", "--", "-D", "warnings")},
			{"cargo fmt --check", cargo("fmt", "--check")},
		},
		lambdazip.Node: {
			{"node --test", command(node.Path, "--test", "test/*.test.mjs")},
			{"eslint", command(node.Path, "node_modules/eslint/bin/eslint.js", ".")},
		},
		lambdazip.Python: {
			{"python3 -m unittest", command(managedruntime.PythonCommand, "-m", "unittest", "discover", "-s", "tests", "-t", ".")},
			{"flake8", command("/usr/bin/flake8")},
		},
	}
}

// TestEachFunctionPassesItsOwnChecks runs the GetItem function in each language other than Go
// (whose tests are this module's) through its own tests and linter, with its language's tools:
// the Rust function's unit tests (the SigV4 test vectors among them), Clippy and rustfmt; the
// Node function's node:test tests and ESLint; the Python function's unittest tests and flake8.
func TestEachFunctionPassesItsOwnChecks(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	dir, err := functions.GetItem(lambdazip.Node)
	require.NoError(t, err)
	require.NoError(t, provision.NPMCI(t.Context(), os.Stderr, "the Node function's dependencies and its checks' tools", dir, "eslint"),
		"installing the Node function's devDependencies")
	for lang, checks := range ownChecks(t) {
		t.Run(string(lang), func(t *testing.T) {
			dir, err := functions.GetItem(lang)
			require.NoError(t, err)
			for _, c := range checks {
				out, err := c.run(t.Context(), root, dir)
				assert.NoError(t, err, "%s in %s = %v; want it to pass (output:\n%s)", c.name, dir, err, strings.TrimSpace(string(out)))
			}
		})
	}
}
