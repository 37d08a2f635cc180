package provision

import (
	"context"
	"fmt"
	"os/exec"
)

// ShellcheckPackage is the Debian package, and the command it puts on PATH, with which actionlint
// (`make lint`) checks the workflows' run: scripts. Without it on PATH actionlint skips that
// check without a word, so a machine lacking it lints less than GitHub's hosted runner, which has
// it: `make setup` installs it so that the lint is one everywhere.
const ShellcheckPackage = "shellcheck"

// shellcheck installs ShellcheckPackage where no shellcheck is on PATH (see debian).
func (p *Provisioner) shellcheck(ctx context.Context) error {
	if path, err := exec.LookPath(ShellcheckPackage); err == nil {
		p.logf("shellcheck is installed (%s)", path)
		return nil
	}
	const what = "make lint (actionlint checks the workflows' scripts with shellcheck)"
	if err := p.debian(ctx, what, []string{ShellcheckPackage}); err != nil {
		return err
	}
	path, err := exec.LookPath(ShellcheckPackage)
	if err != nil {
		return fmt.Errorf("%s: Debian's %s is installed, but no shellcheck is on PATH", what, ShellcheckPackage)
	}
	p.logf("shellcheck installed (%s)", path)
	return nil
}
