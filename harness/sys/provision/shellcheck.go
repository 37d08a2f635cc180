package provision

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// ShellcheckPackage is the Debian package, and the command it puts on PATH, with which actionlint
// (`make lint`) checks the workflows' run: scripts. Without it on PATH actionlint skips that
// check without a word, so a machine lacking it lints less than GitHub's hosted runner, which has
// it: `make setup` installs it so that the lint is one everywhere. Homebrew's formula has the
// same name.
const ShellcheckPackage = "shellcheck"

// shellcheck installs ShellcheckPackage where no shellcheck is on PATH: with apt-get (see
// debian), or where there is none but Homebrew (macOS), with brew, which needs no root.
func (p *Provisioner) shellcheck(ctx context.Context) error {
	if path, err := exec.LookPath(ShellcheckPackage); err == nil {
		p.logf("shellcheck is installed (%s)", path)
		return nil
	}
	const what = "make lint (actionlint checks the workflows' scripts with shellcheck)"
	_, noApt := exec.LookPath("apt-get")
	if brew, err := exec.LookPath("brew"); noApt != nil && err == nil {
		p.logf("%s: brew install %s", what, ShellcheckPackage)
		cmd := exec.CommandContext(ctx, brew, "install", ShellcheckPackage)
		cmd.WaitDelay = 5 * time.Second
		if err := p.run(cmd, p.out()); err != nil {
			return fmt.Errorf("%s: brew install %s: %w", what, ShellcheckPackage, err)
		}
	} else if err := p.debian(ctx, what, []string{ShellcheckPackage}); err != nil {
		return err
	}
	path, err := exec.LookPath(ShellcheckPackage)
	if err != nil {
		return fmt.Errorf("%s: %s is installed, but no shellcheck is on PATH", what, ShellcheckPackage)
	}
	p.logf("shellcheck installed (%s)", path)
	return nil
}
