package provision

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDpkg is a machine's dpkg and apt-get: dpkg-query -W answers from installed, apt-get
// install installs what it is asked for.
type fakeDpkg struct {
	installed map[string]bool
	installs  [][]string
}

func (f *fakeDpkg) run(cmd *exec.Cmd) error {
	switch filepath.Base(cmd.Args[0]) {
	case "dpkg-query":
		for _, a := range cmd.Args[4:] {
			if f.installed[a] {
				fmt.Fprintf(cmd.Stdout, "%s install ok installed\n", a)
			} else {
				fmt.Fprintf(cmd.Stdout, "%s unknown ok not-installed\n", a)
			}
		}
		return nil
	case "apt-get":
		if cmd.Args[1] == "install" {
			pkgs := slices.DeleteFunc(slices.Clone(cmd.Args[2:]), func(a string) bool { return strings.HasPrefix(a, "-") })
			f.installs = append(f.installs, pkgs)
			for _, p := range pkgs {
				f.installed[p] = true
			}
		}
		return nil
	}
	return fmt.Errorf("fake dpkg: unexpected %v", cmd.Args)
}

// TestDebianInstallsOnlyWhatIsMissing: the Debian step asks dpkg first, installs the packages
// it lacks, once, and then only checks.
func TestDebianInstallsOnlyWhatIsMissing(t *testing.T) {
	m := newMachine(t, "v24.1.0", "apt-get")
	asUser(t, 0)
	d := &fakeDpkg{installed: map[string]bool{"python3": true}}
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Run: d.run}
	assert.NoError(t, p.debian(t.Context(), "the Python function", PythonPackages))
	assert.Equal(t, [][]string{PythonPackages[1:]}, d.installs, "apt-get installs; want only the missing packages")
	assert.NoError(t, p.debian(t.Context(), "the Python function", PythonPackages))
	assert.Len(t, d.installs, 1, "a second run installs again; want it to only check")
}

// TestDebianNamesWhatIsMissingWithoutRoot: where apt-get cannot run as root the error names
// each missing package and the command that installs them.
func TestDebianNamesWhatIsMissingWithoutRoot(t *testing.T) {
	m := newMachine(t, "v24.1.0", "apt-get") // no sudo on PATH
	asUser(t, 1000)
	d := &fakeDpkg{installed: map[string]bool{}}
	p := &Provisioner{Root: m.root, Out: &bytes.Buffer{}, Run: d.run}
	err := p.debian(t.Context(), "the Rust function", RustPackages)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "run su -c 'apt-get install -y --no-install-recommends "+strings.Join(RustPackages, " ")+"'")
		assert.Contains(t, err.Error(), "not root, and no sudo on PATH")
	}
	assert.Empty(t, d.installs)
}

// TestPrebuiltFunctionsNeedNoDebianPackages: with PrebuiltEnv set nothing here builds the Rust
// or Python function, so their needs install nothing, and say why.
func TestPrebuiltFunctionsNeedNoDebianPackages(t *testing.T) {
	m := newMachine(t, "v24.1.0", "apt-get")
	asUser(t, 0)
	d := &fakeDpkg{installed: map[string]bool{}}
	var out bytes.Buffer
	p := &Provisioner{Root: m.root, Out: &out, Run: d.run}
	t.Setenv(PrebuiltEnv, "/prebuilt")
	require.NoError(t, p.Ensure(t.Context(), NeedRust, NeedPython))
	assert.Empty(t, d.installs, "apt-get installs with the functions prebuilt")
	assert.Contains(t, out.String(), "prebuilt in /prebuilt ("+PrebuiltEnv+")")

	t.Setenv(PrebuiltEnv, "")
	require.NoError(t, p.Ensure(t.Context(), NeedPython))
	assert.Equal(t, [][]string{PythonPackages}, d.installs, "apt-get installs without the setting")
}
