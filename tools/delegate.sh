#!/usr/bin/env bash
# delegate.sh: runs a command (make test, make matrix, go test ...) in a cgroup v2 subtree that
# systemd delegates to the calling user, so that the cold-start claims can make their CPU quotas
# there without root (harness/sys/cgroup; README, "What runs where"). The workflows run their
# claims through it on GitHub's hosted runner, whose jobs run as user runner with passwordless
# sudo; a person on a Linux laptop runs it the same way.
#
#   - as root: the command as it is (root makes its groups at the hierarchy's root);
#   - where the user's own systemd answers (a login session): a scope of it with Delegate=yes,
#     in the foreground, no sudo (the user's manager is delegated the cpu controller by the
#     system, systemd 252 and later);
#   - else, where sudo needs no password (a CI runner, whose jobs have no login session): a
#     transient service of the system's systemd that runs the command as the calling user with
#     Delegate=yes, started in a leaf of its group (DelegateSubgroup=, systemd 254 and later),
#     because cgroup v2 gives no controller to the children of a group that has members. The
#     command gets this shell's environment and directory; Ctrl-C or the end of this script
#     stops the service and with it every process and group inside it.
# Where none applies, it says why and what to do, and exits 2 without running the command.
#
# CLAIMS_NO_DELEGATION=1 runs the command as it is, saying so: where no subtree can be delegated
# (cgroup v1, no systemd), and the claims that need a CPU quota are to skip with cgroup's reason
# rather than the command not run. The runner stand-in's userland, on a cgroup v1 host, sets it
# for the workflows' steps (docs/runner.md); its guest runs them delegated.
set -euo pipefail

die() { echo "delegate.sh: $*" >&2; exit 2; }
[ $# -gt 0 ] || die "usage: tools/delegate.sh command [argument...]"
if [ "${CLAIMS_NO_DELEGATION:-}" = 1 ]; then
	echo "delegate.sh: CLAIMS_NO_DELEGATION=1: running the command without a delegated subtree; the claims that need a CPU quota skip unless this user can make groups" >&2
	exec "$@"
fi
[ -z "${CLAIMS_NO_DELEGATION:-}" ] || die "CLAIMS_NO_DELEGATION = ${CLAIMS_NO_DELEGATION}: want 1 or unset"
[ "$(uname -s)" = Linux ] || die "cgroups are Linux's; on $(uname -s) the claims that need a CPU quota skip (README)"
[ "$(id -u)" = 0 ] && exec "$@"
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] ||
	die "/sys/fs/cgroup is not the unified cgroup v2 hierarchy, and cgroup v1 has no delegation to a user: run as root, or have root give you a group of the cpu hierarchy (README, \"What runs where\"), or set CLAIMS_NO_DELEGATION=1 to run it with those claims skipping"
command -v systemd-run >/dev/null || die "systemd-run is missing: systemd delegates the subtree, and this machine has no systemd"

if systemctl --user show-environment >/dev/null 2>&1; then
	exec systemd-run --user --scope --quiet -p Delegate=yes -- "$@"
fi

sudo -n true 2>/dev/null ||
	die "your user's systemd does not answer (no login session) and sudo needs a password: run it from a login session, or as root"
unit=claims-delegated-$$-$RANDOM
# The command's environment is this shell's (setup-go's and setup-node's PATH among it, and any
# token a step passes): every exported variable whose name systemd accepts, through a file only
# this user can read, which systemd reads when it starts the command. Never as arguments: those
# any user of the machine sees in ps, and a transient unit's Environment= in systemctl show and
# in /run/systemd/transient/. Each value is double-quoted, with \ " ` $ escaped as the
# EnvironmentFile= syntax wants (systemd.exec(5)); a quoted value may span lines.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
envfile=$dir/environment
while IFS= read -r -d '' kv; do
	name=${kv%%=*} value=${kv#*=}
	[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
	value=${value//\\/\\\\} value=${value//\"/\\\"} value=${value//\`/\\\`} value=${value//\$/\\\$}
	printf '%s="%s"\n' "$name" "$value"
done < <(env -0) > "$envfile"
trap 'sudo -n systemctl stop "$unit" 2>/dev/null; exit 130' INT
trap 'sudo -n systemctl stop "$unit" 2>/dev/null; exit 143' TERM
rc=0
sudo -n systemd-run --quiet --wait --pipe --collect --unit="$unit" \
	--uid="$(id -u)" --gid="$(id -g)" -p Delegate=yes -p DelegateSubgroup=job \
	--working-directory="$PWD" -p EnvironmentFile="$envfile" -- "$@" &
wait $! || rc=$?
exit "$rc"
