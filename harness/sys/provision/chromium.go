package provision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ChromiumPackage is the Debian package, and the command it puts on PATH, that the report's
// browser test (report/browser_test.go) opens the report page in. Only `make setup` installs it:
// no experiment needs a browser, so the experiment packages' checks never ask for it.
const ChromiumPackage = "chromium"

// geteuid is os.Geteuid; tests replace it to decide as a user other than the one running them.
var geteuid = os.Geteuid

// noninteractive keeps apt-get from stopping to ask.
const noninteractive = "DEBIAN_FRONTEND=noninteractive"

// staleLists are what apt-get prints when its package lists are missing or older than the
// mirror: the only failure that `apt-get update` mends.
var staleLists = []string{"Unable to locate package", "has no installation candidate", "Failed to fetch"}

// chromium installs ChromiumPackage with apt-get when no chromium is on PATH and apt-get can run
// as root (as root, or through sudo that asks no password). Where it cannot, it says why and
// goes on: the browser test then skips, naming what is missing, and nothing else needs it.
func (p *Provisioner) chromium(ctx context.Context) {
	if path, err := exec.LookPath(ChromiumPackage); err == nil {
		p.logf("chromium is installed (%s)", path)
		return
	}
	const skips = "the report's browser test skips until a chromium is on PATH"
	apt, err := p.aptGet(ctx)
	if err != nil {
		p.logf("chromium is not on PATH, and %v: %s", err, skips)
		return
	}
	p.logf("chromium is not on PATH; installing Debian's %s", ChromiumPackage)
	err = p.aptInstall(apt, ChromiumPackage)
	if err == nil {
		var path string
		if path, err = exec.LookPath(ChromiumPackage); err == nil {
			p.logf("chromium installed (%s)", path)
			return
		}
		err = errors.New("apt-get installed it, but no chromium is on PATH")
	}
	p.logf("chromium could not be installed (%v): %s", err, skips)
}

// aptGet is apt-get as this process can run it as root: as root, or through sudo that asks no
// password. Where it cannot, the error says why.
func (p *Provisioner) aptGet(ctx context.Context) (func(args ...string) (string, error), error) {
	aptGet, err := exec.LookPath("apt-get")
	if err != nil {
		return nil, errors.New("apt-get is not on PATH")
	}
	// apt-get must not stop to ask. sudo resets the environment, so through sudo env sets it.
	argv := []string{aptGet}
	if geteuid() != 0 {
		sudo, err := exec.LookPath("sudo")
		if err != nil {
			return nil, errors.New("installing it needs root (not root, and no sudo on PATH)")
		}
		if err := p.run(exec.CommandContext(ctx, sudo, "-n", "true"), io.Discard); err != nil {
			return nil, fmt.Errorf("installing it needs root (not root; sudo -n true: %v)", err)
		}
		argv = []string{sudo, "-n", "env", noninteractive, aptGet}
	}
	return func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
		cmd.Env = append(os.Environ(), noninteractive)
		cmd.WaitDelay = 5 * time.Second
		err := p.run(cmd, io.MultiWriter(p.out(), &out))
		if err != nil {
			err = fmt.Errorf("apt-get %s: %w", strings.Join(args, " "), err)
		}
		return out.String(), err
	}, nil
}

// aptInstall installs packages through apt, updating its package lists first where they are too
// old to find them.
func (p *Provisioner) aptInstall(apt func(args ...string) (string, error), packages ...string) error {
	install := append([]string{"install", "-y", "--no-install-recommends"}, packages...)
	p.logf("apt-get %s", strings.Join(install, " "))
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
