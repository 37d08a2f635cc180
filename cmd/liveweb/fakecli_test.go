package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fake aws's state file and call log, passed to the test binary by fakeAWS's script.
const (
	fakeStateEnv = "LIVEWEB_FAKE_AWS_STATE"
	fakeLogEnv   = "LIVEWEB_FAKE_AWS_LOG"
)

// fakeState is what the fake aws holds between calls.
type fakeState struct {
	// Version is the --version line; "" is a v2 with lambda-web.
	Version string `json:"version,omitempty"`
	// NoLambdaWeb makes every lambda-web command an invalid choice, as on AWS CLI v1 or a v2
	// from before the commands.
	NoLambdaWeb bool          `json:"noLambdaWeb,omitempty"`
	Functions   []fakeWebFunc `json:"functions,omitempty"`
	LogGroups   []string      `json:"logGroups,omitempty"`
	// CreateFailures are the stderr of create-web-function's next calls, each failing once in
	// turn; then it succeeds.
	CreateFailures []string `json:"createFailures,omitempty"`
	// ListFailure, where set, is the stderr of every list-web-functions, which then exits
	// ListExit: the CLI's answer in a region or account where the service is not served.
	ListFailure string `json:"listFailure,omitempty"`
	ListExit    int    `json:"listExit,omitempty"`
}

// fakeWebFunc is a Web Function the fake lists.
type fakeWebFunc struct {
	Name string            `json:"functionName"`
	ARN  string            `json:"functionArn"`
	Tags map[string]string `json:"tags,omitempty"`
}

func writeFakeState(t *testing.T, path string, st fakeState) {
	t.Helper()
	b, err := json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

func readFakeState(t *testing.T, dir string) fakeState {
	t.Helper()
	b, err := os.ReadFile(dir + "/state.json")
	require.NoError(t, err)
	var st fakeState
	require.NoError(t, json.Unmarshal(b, &st))
	return st
}

// The CLI's exit statuses: 252 for a command line it cannot parse, 254 for an error the service
// answered (AWS CLI v2 user guide, cli-usage-returncodes).
const (
	exitParse   = 252
	exitService = 254
)

// fakeCLI is the fake aws: it logs the call (without the global options every run adds) and
// answers it from the state in statePath, as AWS CLI v2 and the services answer, writing the
// state back after a deletion. Errors are printed as the CLI prints a service's error: "An error
// occurred (<Code>) when calling the <Operation> operation: <message>".
func fakeCLI(statePath, logPath string, args []string, stdout, stderr io.Writer) int {
	args = withoutGlobals(args)
	if logPath != "" {
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(f, strings.Join(args, " "))
			f.Close()
		}
	}
	b, err := os.ReadFile(statePath)
	if err != nil {
		fmt.Fprintln(stderr, "fake aws:", err)
		return 99
	}
	var st fakeState
	if err := json.Unmarshal(b, &st); err != nil {
		fmt.Fprintln(stderr, "fake aws:", err)
		return 99
	}
	save := func() {
		b, _ := json.Marshal(st)
		_ = os.WriteFile(statePath, b, 0o600)
	}
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	serviceErr := func(code, op, msg string) int {
		fmt.Fprintf(stderr, "\nAn error occurred (%s) when calling the %s operation: %s\n", code, op, msg)
		return exitService
	}
	has := func(a ...string) bool { return len(args) >= len(a) && slices.Equal(args[:len(a)], a) }
	switch {
	case has("--version"):
		fmt.Fprintln(stdout, cmpOr(st.Version, "aws-cli/2.99.0 Python/3.13 Linux/6 exe/x86_64"))
		return 0
	case slices.Contains(args, "help"):
		// `help` renders a man page; without groff or mandoc it fails.
		fmt.Fprintln(stderr, `Could not find executable named "groff"`)
		return 1
	case len(args) > 0 && args[0] == "lambda-web" && st.NoLambdaWeb:
		// The CLI prints its usage, then the error.
		fmt.Fprintln(stderr, "\nusage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\nTo see help text, you can run:\n\n  aws help\n\naws: error: argument command: Invalid choice, valid choices are:\n\naccessanalyzer | account")
		return exitParse
	case has("lambda-web", "create-web-function") && slices.Contains(args, "--generate-cli-skeleton"):
		fmt.Fprintln(stdout, `{"functionName": "", "revisionConfig": {"description": "", "kmsKeyArn": "", "buildConfig": {}, "serviceConfig": {}}, "endpointConfig": {"endpointName": "", "endpointType": "HomeRegion", "authType": "IamAuth"}, "tags": {"KeyName": ""}}`)
		return 0
	case has("lambda-web", "create-web-function"):
		if len(st.CreateFailures) > 0 {
			msg := st.CreateFailures[0]
			st.CreateFailures = st.CreateFailures[1:]
			save()
			fmt.Fprintln(stderr, "\n"+msg)
			return exitService
		}
		fmt.Fprintf(stdout, `{"functionName": %q, "state": "Pending"}`+"\n", flag("--function-name"))
		return 0
	case has("lambda-web", "list-web-functions") && st.ListFailure != "":
		fmt.Fprintln(stderr, "\n"+st.ListFailure)
		return st.ListExit
	case has("lambda-web", "list-web-functions"):
		out := struct {
			Functions []fakeWebFunc `json:"functions"`
		}{Functions: []fakeWebFunc{}}
		for _, f := range st.Functions {
			out.Functions = append(out.Functions, fakeWebFunc{Name: f.Name, ARN: f.ARN})
		}
		_ = json.NewEncoder(stdout).Encode(out)
		return 0
	case has("lambda-web", "list-tags"):
		for _, f := range st.Functions {
			if f.ARN == flag("--resource") {
				_ = json.NewEncoder(stdout).Encode(map[string]any{"tags": f.Tags})
				return 0
			}
		}
		return serviceErr("ResourceNotFoundException", "ListTags", "Web function not found")
	case has("lambda-web", "delete-web-function"):
		i := slices.IndexFunc(st.Functions, func(f fakeWebFunc) bool { return f.Name == flag("--function-name") })
		if i < 0 {
			return serviceErr("ResourceNotFoundException", "DeleteWebFunction", "Web function not found: "+flag("--function-name"))
		}
		st.Functions = slices.Delete(st.Functions, i, i+1)
		save()
		return 0
	case has("lambda-web", "wait", "web-function-deleted"):
		return 0
	case has("logs", "describe-log-groups"):
		out := struct {
			LogGroups []map[string]string `json:"logGroups"`
		}{LogGroups: []map[string]string{}}
		for _, g := range st.LogGroups {
			if strings.HasPrefix(g, flag("--log-group-name-prefix")) {
				out.LogGroups = append(out.LogGroups, map[string]string{"logGroupName": g})
			}
		}
		_ = json.NewEncoder(stdout).Encode(out)
		return 0
	case has("logs", "delete-log-group"):
		i := slices.Index(st.LogGroups, flag("--log-group-name"))
		if i < 0 {
			return serviceErr("ResourceNotFoundException", "DeleteLogGroup", "The specified log group does not exist.")
		}
		st.LogGroups = slices.Delete(st.LogGroups, i, i+1)
		save()
		return 0
	}
	fmt.Fprintf(stderr, "fake aws: refusing %s\n", strings.Join(args, " "))
	return 99
}

// withoutGlobals drops the options awsCLI.run adds to every call (--output json, --no-cli-pager,
// --region r), so that the log shows each call as the code asks it.
func withoutGlobals(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--output", "--region":
			i++
		case "--no-cli-pager":
		default:
			out = append(out, args[i])
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
