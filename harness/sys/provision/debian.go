package provision

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// PythonPackages are the Debian packages the Python GetItem function (functions/getitem-python)
// is run and vendored from: Debian's Python 3, and python3-boto3 with every package whose
// modules it imports, as Debian 12 builds them for its Python 3.11 (harness/lambda/lambdazip's
// pythonVendored says which module comes from which).
var PythonPackages = []string{
	"python3",
	"python3-boto3", "python3-botocore", "python3-s3transfer", "python3-jmespath",
	"python3-dateutil", "python3-six", "python3-urllib3", "python3-requests",
	"python3-certifi", "python3-idna", "python3-chardet", "python3-charset-normalizer",
}

// debian installs the Debian packages pkgs, which what needs, where any is not installed, with
// apt-get as root (as root, or through sudo that asks no password). Where apt-get cannot run as
// root the error is a *cannotInstall, naming the packages missing, why, and the command that
// installs them; where apt-get fails, it says so.
func (p *Provisioner) debian(ctx context.Context, what string, pkgs []string) error {
	missing := p.notInstalled(ctx, pkgs)
	if len(missing) == 0 {
		p.logf("%s: Debian's %s installed", what, strings.Join(pkgs, ", "))
		return nil
	}
	apt, a := p.aptGet(ctx)
	if apt == nil {
		return &cannotInstall{what: what, pkgs: missing, access: a}
	}
	p.logf("%s needs Debian's %s: installing", what, strings.Join(missing, ", "))
	if err := p.aptInstall(apt, a, missing...); err != nil {
		return fmt.Errorf("%s: installing Debian's %s: %w", what, strings.Join(missing, ", "), err)
	}
	if still := p.notInstalled(ctx, pkgs); len(still) > 0 {
		return fmt.Errorf("%s: apt-get installed nothing of %s", what, strings.Join(still, ", "))
	}
	return nil
}

// cannotInstall says that what needs Debian's pkgs, which this process cannot install, and what
// a person runs to install them.
type cannotInstall struct {
	what   string
	pkgs   []string
	access aptAccess
}

func (e *cannotInstall) Error() string {
	return fmt.Sprintf("%s needs Debian's %s, which cannot be installed here (%s): run %s", e.what, strings.Join(e.pkgs, ", "), e.access.why, e.access.command(e.pkgs))
}

// notInstalled are those of pkgs that dpkg does not hold installed (all of them where dpkg-query
// cannot be run).
func (p *Provisioner) notInstalled(ctx context.Context, pkgs []string) []string {
	var out bytes.Buffer
	args := append([]string{"-W", "-f", "${Package} ${Status}\n"}, pkgs...)
	_ = p.run(exec.CommandContext(ctx, "dpkg-query", args...), &out) // its status is 1 when any is unknown
	installed := map[string]bool{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		name, status, _ := strings.Cut(sc.Text(), " ")
		installed[strings.Split(name, ":")[0]] = strings.HasSuffix(status, "install ok installed")
	}
	var missing []string
	for _, pkg := range pkgs {
		if !installed[pkg] {
			missing = append(missing, pkg)
		}
	}
	return missing
}
