package provision

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAptAccess: the decision of how apt-get runs as root (as root, through sudo -n, or not at
// all) and, where it cannot, the command a person runs instead. It runs nothing but sudo -n
// true, through a fake.
func TestAptAccess(t *testing.T) {
	pkgs := []string{"shellcheck", "python3-boto3"}
	const install = "apt-get install -y --no-install-recommends shellcheck python3-boto3"
	for _, tc := range []struct {
		name      string
		uid       int
		commands  []string // on PATH besides node
		sudoWorks bool
		way       aptWay
		argv      []string // by base name; nil where setup cannot run apt-get
		runs      [][]string
		why       string
		command   string
	}{
		{name: "root: apt-get itself, nothing asked", commands: []string{"apt-get", "sudo"},
			way: aptAsRoot, argv: []string{"apt-get"}, command: install},
		{name: "not root, sudo -n works: through sudo", uid: 1000, commands: []string{"apt-get", "sudo"}, sudoWorks: true,
			way: aptSudo, argv: []string{"sudo", "-n", "env", noninteractive, "apt-get"}, runs: [][]string{{"sudo", "-n", "true"}}},
		{name: "not root, sudo asks a password: the sudo command", uid: 1000, commands: []string{"apt-get", "sudo"},
			way: aptSudoAsks, runs: [][]string{{"sudo", "-n", "true"}},
			why: "not root, and sudo asks a password (sudo -n true: sudo: a password is required)", command: "sudo " + install},
		{name: "not root, no sudo: the command as root", uid: 1000, commands: []string{"apt-get"},
			way: aptNoSudo, why: "not root, and no sudo on PATH", command: "su -c '" + install + "'"},
		{name: "no apt-get: the packages by name", commands: []string{"sudo"},
			way: aptNone, why: "apt-get is not on PATH",
			command: "install shellcheck python3-boto3 (Debian's package names) with this system's package manager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t, "v24.1.0", tc.commands...)
			asUser(t, tc.uid)
			apt := &fakeApt{t: t, bin: m.bin, sudoWorks: tc.sudoWorks}
			p := &Provisioner{Root: m.root, Out: &bytes.Buffer{}, Run: apt.run}
			a := p.aptAccess(t.Context())
			assert.Equal(t, tc.way, a.way, "decision")
			var argv []string
			for _, arg := range a.argv {
				if filepath.IsAbs(arg) {
					arg = filepath.Base(arg)
				}
				argv = append(argv, arg)
			}
			assert.Equal(t, tc.argv, argv, "apt-get as root = %q; want %q", argv, tc.argv)
			assert.Equal(t, tc.runs, apt.runs, "commands run to decide")
			assert.Equal(t, tc.why, a.why, "why apt-get cannot run as root")
			if tc.command != "" {
				assert.Equal(t, tc.command, a.command(pkgs), "command named for a person")
			}
		})
	}
}

// TestSetupNamesOneCommandForWhatItCannotInstall: not root and sudo asking a password, setup
// runs every other step, installs nothing through apt-get, and ends with one command that
// installs every Debian package missing.
func TestSetupNamesOneCommandForWhatItCannotInstall(t *testing.T) {
	m := newMachine(t, "v24.1.0", "npm", "gcc", "apt-get", "sudo")
	asUser(t, 1000)
	d := &fakeDpkg{installed: map[string]bool{}}
	apt := &fakeApt{t: t, bin: m.bin}
	npm := &fakeNPM{t: t}
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Platform: Node24Platform, Run: func(cmd *exec.Cmd) error {
		switch filepath.Base(cmd.Args[0]) {
		case "npm":
			return npm.run(cmd)
		case "dpkg-query":
			return d.run(cmd)
		}
		return apt.run(cmd)
	}}
	err := p.All(t.Context())
	for _, r := range apt.runs {
		assert.NotContains(t, r, "install", "commands run; want no install without root (output: %s)", out.String())
	}
	assert.Empty(t, d.installs, "packages installed without root")
	assert.Contains(t, out.String(), "setup: installing dynalite", "the other steps run")
	if assert.Error(t, err) {
		lines := strings.Split(err.Error(), "\n")
		want := append(append(append(append([]string{"sudo apt-get install -y --no-install-recommends"}, RustPackages...), PythonPackages...), FunctionCheckPackages...), ShellcheckPackage)
		assert.Equal(t, "\t"+strings.Join(want, " "), lines[len(lines)-1], "last line of the error; want one command for every missing package (error: %v)", err)
		assert.Equal(t, 1, strings.Count(err.Error(), "sudo apt-get"), "commands named; want one (error: %v)", err)
		assert.Contains(t, err.Error(), "make lint (actionlint checks the workflows' scripts with shellcheck) needs Debian's shellcheck")
		assert.Contains(t, err.Error(), "not root, and sudo asks a password")
	}
	assert.Contains(t, out.String(), "run sudo apt-get install -y --no-install-recommends chromium", "chromium's note")
}

// TestShellcheck: setup installs shellcheck where none is on PATH, once, and only checks where
// one is.
func TestShellcheck(t *testing.T) {
	m := newMachine(t, "v24.1.0", "apt-get")
	asUser(t, 0)
	d := &fakeDpkg{installed: map[string]bool{}}
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Run: func(cmd *exec.Cmd) error {
		if filepath.Base(cmd.Args[0]) == "apt-get" && cmd.Args[1] == "install" {
			require.NoError(t, os.WriteFile(filepath.Join(m.bin, ShellcheckPackage), []byte("#!/bin/sh\n"), 0o755))
		}
		return d.run(cmd)
	}}
	assert.NoError(t, p.shellcheck(t.Context()), "output: %s", out.String())
	assert.Equal(t, [][]string{{ShellcheckPackage}}, d.installs, "apt-get installs")
	assert.Contains(t, out.String(), "setup: shellcheck installed (")
	out.Reset()
	assert.NoError(t, p.shellcheck(t.Context()))
	assert.Len(t, d.installs, 1, "a second run installs again; want it to only check")
	assert.Contains(t, out.String(), "setup: shellcheck is installed (")
}

// TestShellcheckWithHomebrew: without apt-get but with brew (macOS), setup installs shellcheck
// with brew, as the user; it never asks apt-get or dpkg.
func TestShellcheckWithHomebrew(t *testing.T) {
	m := newMachine(t, "v24.1.0", "brew")
	asUser(t, 1000)
	var runs [][]string
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Run: func(cmd *exec.Cmd) error {
		runs = append(runs, append([]string{filepath.Base(cmd.Args[0])}, cmd.Args[1:]...))
		if filepath.Base(cmd.Args[0]) == "brew" {
			require.NoError(t, os.WriteFile(filepath.Join(m.bin, ShellcheckPackage), []byte("#!/bin/sh\n"), 0o755))
		}
		return nil
	}}
	assert.NoError(t, p.shellcheck(t.Context()), "output: %s", out.String())
	assert.Equal(t, [][]string{{"brew", "install", ShellcheckPackage}}, runs, "commands run")
	assert.Contains(t, out.String(), "setup: shellcheck installed (")
}
