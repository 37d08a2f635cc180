// Package managedruntime stands in for Lambda's managed runtimes nodejs24.x and python3.11, for
// the local platforms (the emulator, and the Lambda API stand-in): what Lambda runs as the
// runtime, around a function's handler, is AWS's runtime interface client, which this machine
// does not have. The stand-in is a Runtime API loop in the language's standard library
// (node/runtime.mjs, python/runtime.py) that does what AWS documents of the runtime: it reads
// _HANDLER and LAMBDA_TASK_ROOT, loads the handler's module during Init, reports a failed Init
// to /runtime/init/error, then takes events from AWS_LAMBDA_RUNTIME_API's invocation/next and
// posts each handler's answer or error (docs/fidelity.md, "Managed runtimes").
//
// A custom runtime (provided.al2023) needs no stand-in: its bootstrap is the function's own.
package managedruntime

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/sys/provision"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// Supported says whether runtime, one of lambdazip's runtime names, is one a local platform
// can run: the managed ones this package stands in for, and the custom ones it passes through.
func Supported(runtime string) bool {
	switch runtime {
	case lambdazip.NodeJS24, lambdazip.Python311, lambdazip.ProvidedAL2023, lambdazip.ProvidedAL2:
		return true
	}
	return false
}

// PythonCommand is the Python the python3.11 stand-in runs: Debian's, whose python3-boto3 the
// Python function vendors.
const PythonCommand = "/usr/bin/python3"

// Bootstrap is what the emulator runs for a function of runtime whose task root (its zip,
// unzipped) is taskRoot, with handler as CreateFunction's Handler: the executable, and the
// variables the runtime finds in its environment beside the function's own. For a managed
// runtime it writes a script into scratch, a folder of the caller's, that starts the stand-in.
func Bootstrap(ctx context.Context, runtime, handler, taskRoot, scratch string) (string, map[string]string, error) {
	env := map[string]string{"LAMBDA_TASK_ROOT": taskRoot, "_HANDLER": handler}
	var argv []string
	switch runtime {
	case lambdazip.ProvidedAL2023, lambdazip.ProvidedAL2:
		return filepath.Join(taskRoot, "bootstrap"), env, nil
	case lambdazip.NodeJS24:
		node, err := provision.Node24(ctx)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", runtime, err)
		}
		loop, err := repo.Path("harness/standin/managedruntime/node/runtime.mjs")
		if err != nil {
			return "", nil, err
		}
		argv = []string{node, loop}
	case lambdazip.Python311:
		if _, err := os.Stat(PythonCommand); err != nil {
			return "", nil, fmt.Errorf("%s: Debian's Python (%s) is missing: apt-get install python3", runtime, PythonCommand)
		}
		loop, err := repo.Path("harness/standin/managedruntime/python/runtime.py")
		if err != nil {
			return "", nil, err
		}
		// -I: isolated, as the managed runtime is: no user site, no PYTHON* variables but
		// those the loop sets up itself (sys.path gets the task root, as Lambda's does).
		argv = []string{PythonCommand, "-I", loop}
	default:
		return "", nil, fmt.Errorf("runtime %q; a local platform runs %s, %s, %s or %s", runtime, lambdazip.ProvidedAL2023, lambdazip.ProvidedAL2, lambdazip.NodeJS24, lambdazip.Python311)
	}
	script := "#!/bin/sh\nexec"
	for _, a := range argv {
		script += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	path := filepath.Join(scratch, "bootstrap-"+runtime)
	if err := os.WriteFile(path, []byte(script+"\n"), 0o755); err != nil {
		return "", nil, err
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return "", nil, err
	}
	return path, env, nil
}
