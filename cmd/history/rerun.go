package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// goTest runs a flipped claim's test again: go test in its package, with the build tags and
// settings its mode needs, or the command a user gave (-rerun).
type goTest struct {
	command string // "" for go test
	out     io.Writer
	dirs    []string
}

// modeBuild are the tags and settings each mode's tests run with, as the Makefile runs them.
var modeBuild = map[string]struct {
	tags string
	env  []string
}{
	results.ModeLocal:       {},
	results.ModeLiveStandIn: {tags: "lambda", env: []string{"CLAIMS_LIVE_STANDIN=1"}},
	results.ModeLocalRouter: {tags: "lambda", env: []string{"CLAIMS_LIVE_STANDIN=1"}},
	results.ModeLive:        {tags: "lambda"},
}

// Rerun implements history.Rerunner.
func (g *goTest) Rerun(ctx context.Context, k history.Key) (verdict.Outcome, string, error) {
	base, _, _ := strings.Cut(k.Experiment, "/")
	var pkg string
	for _, t := range catalog.Tests() {
		if t.Name == base {
			pkg = "./experiments/" + t.Package
		}
	}
	if pkg == "" {
		return "", "", fmt.Errorf("%s is not a claim test of the catalog", base)
	}
	build, ok := modeBuild[k.Mode]
	if !ok {
		return "", "", fmt.Errorf("mode %q: no way to run it again", k.Mode)
	}
	if k.Column != "" && g.command == "" {
		return "", "", fmt.Errorf("%s is a runtime matrix column's: give -rerun the command that runs that column", k.Column)
	}
	dir, err := os.MkdirTemp("", "claims-again-")
	if err != nil {
		return "", "", err
	}
	g.dirs = append(g.dirs, dir)
	pattern := runPattern(k.Experiment)
	root, err := repo.Root()
	if err != nil {
		return "", "", err
	}
	var cmd *exec.Cmd
	if g.command == "" {
		args := []string{"test", "-count=1", "-p", "1", "-timeout", "20m", "-run", pattern}
		if build.tags != "" {
			args = append(args, "-tags", build.tags)
		}
		cmd = exec.CommandContext(ctx, "go", append(args, pkg)...)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", expand(g.command, map[string]string{
			"test": base, "run": pattern, "pkg": pkg, "tags": build.tags, "dir": dir, "column": k.Column}))
	}
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), build.env...), results.DirEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = g.out, g.out
	// The test and what it starts run in a process group of their own, which an interrupt
	// reaches whole, so each test's cleanup stops what it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = time.Minute
	fmt.Fprintf(g.out, "history: running %s again: %s\n", k, strings.Join(cmd.Args, " "))
	runErr := cmd.Run() // a claim that fails fails its test: what counts is the result file
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	outcome, file, err := find(dir, k)
	if err != nil && runErr != nil {
		err = fmt.Errorf("%w (%v)", err, runErr)
	}
	return outcome, file, err
}

// cleanup removes the second runs' folders, once their files have been kept.
func (g *goTest) cleanup() {
	for _, d := range g.dirs {
		os.RemoveAll(d)
	}
}

// runPattern is go test's -run pattern of exactly the test and subtests of experiment.
func runPattern(experiment string) string {
	parts := strings.Split(experiment, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// expand replaces {name} in command with vars' values, each quoted for sh.
func expand(command string, vars map[string]string) string {
	for k, v := range vars {
		command = strings.ReplaceAll(command, "{"+k+"}", "'"+strings.ReplaceAll(v, "'", `'\''`)+"'")
	}
	return command
}

// find is the verdict of the result for k under dir, at any depth (a matrix column's run writes
// under matrix/<column>/).
func find(dir string, k history.Key) (verdict.Outcome, string, error) {
	var outcome verdict.Outcome
	var file string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		r, err := results.Read(path)
		if err != nil {
			return nil // the matrix's own files, a shard's descriptor: not results
		}
		if r.Experiment == k.Experiment && r.Mode == k.Mode && r.Broken == "" {
			outcome, file = r.Verdict.Outcome, path
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	if file == "" {
		return "", "", fmt.Errorf("the second run wrote no result of %s", k)
	}
	return outcome, file, nil
}
