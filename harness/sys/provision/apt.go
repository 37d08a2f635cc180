package provision

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// geteuid is os.Geteuid; tests replace it to decide as a user other than the one running them.
var geteuid = os.Geteuid

// noninteractive keeps apt-get from stopping to ask.
const noninteractive = "DEBIAN_FRONTEND=noninteractive"

// aptInstallArgs are apt-get's arguments before the packages, in what setup runs and in the
// command it names for a person to run.
var aptInstallArgs = []string{"install", "-y", "--no-install-recommends"}

// staleLists are what apt-get prints when its package lists are missing or older than the
// mirror: the only failure that `apt-get update` mends.
var staleLists = []string{"Unable to locate package", "has no installation candidate", "Failed to fetch"}

// aptWay is how apt-get can run as root from this process, decided by aptAccess.
type aptWay int

const (
	// aptNone: apt-get is not on PATH (not a Debian or Ubuntu machine).
	aptNone aptWay = iota
	// aptAsRoot: this process is root.
	aptAsRoot
	// aptSudo: not root, and sudo runs commands without asking a password (sudo -n).
	aptSudo
	// aptSudoAsks: not root, and sudo asks a password, which setup never types.
	aptSudoAsks
	// aptNoSudo: not root, and no sudo on PATH.
	aptNoSudo
)

// aptAccess is the decision of how this process can run apt-get as root.
type aptAccess struct {
	way aptWay
	// argv runs apt-get as root, its arguments to follow; nil where setup cannot.
	argv []string
	// why says, where argv is nil, why setup cannot.
	why string
}

// aptAccess decides how apt-get can run as root: as root, or not root through sudo -n (tried
// with `sudo -n true`, which fails at once where sudo would ask a password). It runs nothing
// else.
func (p *Provisioner) aptAccess(ctx context.Context) aptAccess {
	aptGet, err := exec.LookPath("apt-get")
	if err != nil {
		return aptAccess{way: aptNone, why: "apt-get is not on PATH"}
	}
	if geteuid() == 0 {
		return aptAccess{way: aptAsRoot, argv: []string{aptGet}}
	}
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return aptAccess{way: aptNoSudo, why: "not root, and no sudo on PATH"}
	}
	var out bytes.Buffer
	if err := p.run(exec.CommandContext(ctx, sudo, "-n", "true"), &out); err != nil {
		said := strings.TrimSpace(out.String())
		if said == "" {
			said = err.Error()
		}
		return aptAccess{way: aptSudoAsks, why: fmt.Sprintf("not root, and sudo asks a password (sudo -n true: %s)", said)}
	}
	// sudo resets the environment, so through sudo env sets DEBIAN_FRONTEND.
	return aptAccess{way: aptSudo, argv: []string{sudo, "-n", "env", noninteractive, aptGet}}
}

// command is what a person runs to install pkgs where setup cannot: through sudo where there
// is one (it asks the password setup never types), else as root through su. Without apt-get it
// names the packages for the system's own package manager.
func (a aptAccess) command(pkgs []string) string {
	install := "apt-get " + strings.Join(append(append([]string{}, aptInstallArgs...), pkgs...), " ")
	switch a.way {
	case aptSudoAsks:
		return "sudo " + install
	case aptNoSudo:
		return "su -c '" + install + "'"
	case aptNone:
		return "install " + strings.Join(pkgs, " ") + " (Debian's package names) with this system's package manager"
	}
	return install
}

// aptGet is apt-get as this process can run it as root (see aptAccess); where it cannot, the
// access says why and what a person runs instead.
func (p *Provisioner) aptGet(ctx context.Context) (func(args ...string) (string, error), aptAccess) {
	a := p.aptAccess(ctx)
	if a.argv == nil {
		return nil, a
	}
	return func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, a.argv[0], append(a.argv[1:], args...)...)
		cmd.Env = append(os.Environ(), noninteractive)
		cmd.WaitDelay = 5 * time.Second
		err := p.run(cmd, io.MultiWriter(p.out(), &out))
		if err != nil {
			err = fmt.Errorf("apt-get %s: %w", strings.Join(args, " "), err)
		}
		return out.String(), err
	}, a
}

// aptInstall installs packages through apt, updating its package lists first where they are too
// old to find them. The line it prints says when apt-get runs through sudo.
func (p *Provisioner) aptInstall(apt func(args ...string) (string, error), a aptAccess, packages ...string) error {
	install := append(append([]string{}, aptInstallArgs...), packages...)
	how := "apt-get"
	if a.way == aptSudo {
		how = "not root: sudo -n apt-get" // sudo that asks no password
	}
	p.logf("%s %s", how, strings.Join(install, " "))
	out, err := apt(install...)
	if err != nil && isStale(out) {
		p.logf("apt-get's package lists are stale: apt-get update, then installing again")
		if _, err = apt("update"); err == nil {
			_, err = apt(install...)
		}
	}
	return err
}

// isStale says whether apt-get's output shows package lists too old to find the package.
func isStale(out string) bool {
	for _, s := range staleLists {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// run runs cmd through Run, its output to w.
func (p *Provisioner) run(cmd *exec.Cmd, w io.Writer) error {
	cmd.Stdout, cmd.Stderr = w, w
	run := p.Run
	if run == nil {
		run = (*exec.Cmd).Run
	}
	return run(cmd)
}
