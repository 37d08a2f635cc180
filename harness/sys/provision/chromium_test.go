package provision

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests never run apt-get or sudo: PATH holds scripts of those names that exit 3, and
// fakeApt stands for them through Provisioner.Run.

// fakeApt answers the commands the chromium step runs. apt-get install fails with
// installOutput while the lists are stale (until an update ran, if updateMends), else puts a
// chromium on PATH (unless installsNothing); sudo -n true fails unless sudoWorks.
type fakeApt struct {
	t               *testing.T
	bin             string // the folder on PATH, where an install puts chromium
	sudoWorks       bool
	stale           bool
	updateMends     bool
	installOutput   string // printed by a failing install
	installsNothing bool

	runs [][]string // each command's arguments, the program by its base name
	envs [][]string
}

func (f *fakeApt) run(cmd *exec.Cmd) error {
	if dpkgHoldsAll(cmd) {
		return nil
	}
	args := slices.Clone(cmd.Args)
	args[0] = filepath.Base(cmd.Path)
	f.runs = append(f.runs, args)
	f.envs = append(f.envs, cmd.Env)
	if args[0] == "sudo" && slices.Equal(args[1:], []string{"-n", "true"}) {
		if f.sudoWorks {
			return nil
		}
		fmt.Fprintln(cmd.Stderr, "sudo: a password is required")
		return errors.New("exit status 1")
	}
	i := slices.IndexFunc(args, func(a string) bool { return filepath.Base(a) == "apt-get" })
	if i < 0 || i+1 >= len(args) {
		return errors.New("fake apt: not apt-get")
	}
	switch args[i+1] {
	case "update":
		if f.updateMends {
			f.stale = false
		}
		return nil
	case "install":
		if f.stale {
			fmt.Fprintln(cmd.Stdout, f.installOutput)
			return errors.New("exit status 100")
		}
		if !f.installsNothing {
			require.NoError(f.t, os.WriteFile(filepath.Join(f.bin, ChromiumPackage), []byte("#!/bin/sh\n"), 0o755))
		}
		return nil
	}
	return errors.New("fake apt: unexpected command")
}

// asUser makes the chromium step decide as user id uid.
func asUser(t *testing.T, uid int) {
	t.Helper()
	old := geteuid
	geteuid = func() int { return uid }
	t.Cleanup(func() { geteuid = old })
}

// install is the command the step runs to install chromium, after apt-get's path.
var install = []string{"install", "-y", "--no-install-recommends", ChromiumPackage}

func TestChromium(t *testing.T) {
	aptGet := func(args ...string) []string { return append([]string{"apt-get"}, args...) }
	for _, tc := range []struct {
		name     string
		uid      int
		commands []string // on PATH besides node
		apt      fakeApt
		runs     [][]string
		says     string
		have     bool // chromium on PATH after
	}{
		{name: "already installed: only checked", commands: []string{"apt-get", ChromiumPackage},
			says: "chromium is installed (", have: true},
		{name: "no apt-get: a note", says: "chromium is not on PATH and cannot be installed here (apt-get is not on PATH): the report's browser test skips"},
		{name: "root installs", commands: []string{"apt-get"},
			runs: [][]string{aptGet(install...)}, says: "chromium installed (", have: true},
		{name: "stale lists: one update, then again", commands: []string{"apt-get"},
			apt:  fakeApt{stale: true, updateMends: true, installOutput: "E: Unable to locate package chromium"},
			runs: [][]string{aptGet(install...), aptGet("update"), aptGet(install...)}, says: "chromium installed (", have: true},
		{name: "lists still stale after the update: a note", commands: []string{"apt-get"},
			apt:  fakeApt{stale: true, installOutput: "E: Package 'chromium' has no installation candidate"},
			runs: [][]string{aptGet(install...), aptGet("update"), aptGet(install...)},
			says: "chromium could not be installed (apt-get install -y --no-install-recommends chromium: exit status 100)"},
		{name: "another failure: no update, a note", commands: []string{"apt-get"},
			apt:  fakeApt{stale: true, installOutput: "E: Could not get lock /var/lib/dpkg/lock-frontend"},
			runs: [][]string{aptGet(install...)}, says: "chromium could not be installed"},
		{name: "installed but not on PATH: a note", commands: []string{"apt-get"}, apt: fakeApt{installsNothing: true},
			runs: [][]string{aptGet(install...)}, says: "apt-get installed it, but no chromium is on PATH"},
		{name: "not root, no sudo: a note", uid: 1000, commands: []string{"apt-get"},
			says: "setup: chromium is not on PATH and cannot be installed here (not root, and no sudo on PATH): the report's browser test skips until a chromium is on PATH; to install it, run su -c 'apt-get install -y --no-install-recommends chromium'"},
		{name: "not root, sudo asks a password: a note", uid: 1000, commands: []string{"apt-get", "sudo"},
			runs: [][]string{{"sudo", "-n", "true"}},
			says: "cannot be installed here (not root, and sudo asks a password (sudo -n true: sudo: a password is required)): the report's browser test skips until a chromium is on PATH; to install it, run sudo apt-get install -y --no-install-recommends chromium"},
		{name: "not root, sudo without a password installs", uid: 1000, commands: []string{"apt-get", "sudo"},
			apt:  fakeApt{sudoWorks: true},
			runs: [][]string{{"sudo", "-n", "true"}, append([]string{"sudo", "-n", "env", noninteractive}, aptGet(install...)...)},
			says: "setup: not root: sudo -n apt-get install -y --no-install-recommends chromium", have: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t, "v24.1.0", tc.commands...)
			asUser(t, tc.uid)
			apt := tc.apt
			apt.t, apt.bin = t, m.bin
			var out bytes.Buffer
			p := &Provisioner{Root: m.root, Run: apt.run, Out: &out}
			p.chromium(t.Context())

			// apt-get is named by its full path: the one LookPath found.
			var runs [][]string
			for _, r := range apt.runs {
				r = slices.Clone(r)
				for i, a := range r {
					if a == filepath.Join(m.bin, "apt-get") {
						r[i] = "apt-get"
					}
				}
				runs = append(runs, r)
			}
			assert.Equal(t, tc.runs, runs, "commands run; want these (output: %s)", out.String())
			for i, env := range apt.envs {
				if apt.runs[i][0] != "sudo" || len(apt.runs[i]) > 3 {
					assert.Contains(t, env, noninteractive, "environment of %v", apt.runs[i])
				}
			}
			assert.Contains(t, out.String(), tc.says)
			_, err := exec.LookPath(ChromiumPackage)
			assert.Equal(t, tc.have, err == nil, "chromium on PATH after the step = %v; want %v", err == nil, tc.have)

			// Idempotent: once installed, a second call only checks.
			if tc.have {
				n := len(apt.runs)
				out.Reset()
				p.chromium(t.Context())
				assert.Len(t, apt.runs, n, "commands run by a second call; want none (output: %s)", out.String())
				assert.Contains(t, out.String(), "setup: chromium is installed (")
			}
		})
	}
}

func TestSetupGoesOnWithoutChromium(t *testing.T) {
	m := newMachine(t, "v24.1.0", "npm", "gcc", "apt-get", ShellcheckPackage)
	asUser(t, 0)
	apt := &fakeApt{t: t, bin: m.bin, stale: true, installOutput: "E: Could not get lock"}
	npm := &fakeNPM{t: t}
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Platform: Node24Platform, Run: func(cmd *exec.Cmd) error {
		if strings.HasSuffix(cmd.Path, "npm") {
			return npm.run(cmd)
		}
		return apt.run(cmd)
	}}
	assert.NoError(t, p.All(t.Context()), "setup with chromium not installable = error; want a note (output: %s)", out.String())
	assert.Contains(t, out.String(), "setup: chromium could not be installed")
	assert.Contains(t, out.String(), "setup: installing dynalite", "the other steps run first")
}
