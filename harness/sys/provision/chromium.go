package provision

import (
	"context"
	"errors"
	"os/exec"
)

// ChromiumPackage is the Debian package, and the command it puts on PATH, that the report's
// browser test (report/browser_test.go) opens the report page in. Only `make setup` installs it:
// no experiment needs a browser, so the experiment packages' checks never ask for it.
const ChromiumPackage = "chromium"

// chromium installs ChromiumPackage with apt-get when no chromium is on PATH and apt-get can run
// as root (as root, or through sudo that asks no password). Where it cannot, it says why and
// goes on: the browser test then skips, naming what is missing, and nothing else needs it.
func (p *Provisioner) chromium(ctx context.Context) {
	if path, err := exec.LookPath(ChromiumPackage); err == nil {
		p.logf("chromium is installed (%s)", path)
		return
	}
	const skips = "the report's browser test skips until a chromium is on PATH"
	apt, a := p.aptGet(ctx)
	if apt == nil {
		p.logf("chromium is not on PATH and cannot be installed here (%s): %s; to install it, run %s", a.why, skips, a.command([]string{ChromiumPackage}))
		return
	}
	p.logf("chromium is not on PATH; installing Debian's %s", ChromiumPackage)
	err := p.aptInstall(apt, a, ChromiumPackage)
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
