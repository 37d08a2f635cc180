#!/usr/bin/env bash
# delegate_test.sh: tests tools/delegate.sh's sudo path, the one the hosted runner takes: a user
# with passwordless sudo, no login session, systemd as init and the unified cgroup v2 hierarchy.
# The runner stand-in's guest runs it (tools/runner/guest.sh); elsewhere it says what it needs
# and exits 2. It checks that the command
#   - gets the caller's environment exactly, quotes, backslashes, $ and newlines included;
#   - gets it without any value showing where other users look: no process's arguments, and no
#     Environment= of the unit (systemctl show, /run/systemd/transient/);
#   - runs in a delegated group whose cpu controller it can use;
#   - gives its exit status back, and is stopped, unit and all, when delegate.sh is.
set -euo pipefail
cd "$(dirname "$0")/.."

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
need() { echo "delegate_test.sh: $* (run it in the runner stand-in's guest: make runner-guest RUN='bash tools/delegate_test.sh')" >&2; exit 2; }
[ "$(id -u)" != 0 ] || need "root never takes the sudo path"
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || need "/sys/fs/cgroup is not cgroup v2"
! systemctl --user show-environment >/dev/null 2>&1 || need "this user's systemd answers, so delegate.sh would not take the sudo path"
sudo -n true 2>/dev/null || need "sudo needs a password"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A value with every character the environment file's syntax treats specially, and a secret no
# argument of any process may carry.
hard=$'a b\t"double" \'single\' `tick` $HOME ${HOME} \\n \\\\ \\"\nsecond line, trailing space '
secret=secret-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$secret" > "$dir/secret"
export CLAIMS_DELEGATE_HARD=$hard CLAIMS_DELEGATE_SECRET=$secret

# shellcheck disable=SC2016 # expanded by the delegated shell
tools/delegate.sh bash -c 'printf "%s" "$CLAIMS_DELEGATE_HARD" > "$1/hard"; printf "%s" "$CLAIMS_DELEGATE_SECRET" > "$1/secret.seen"' _ "$dir"
[ "$(cat "$dir/hard")" = "$hard" ] || fail "CLAIMS_DELEGATE_HARD = $(printf '%q' "$(cat "$dir/hard")"); want $(printf '%q' "$hard")"
cmp -s "$dir/secret" "$dir/secret.seen" || fail "CLAIMS_DELEGATE_SECRET did not reach the command unchanged"

# While a delegated command runs: no process's arguments and no unit's Environment= hold the secret.
tools/delegate.sh sleep 30 &
pid=$!
unit=
for _ in $(seq 50); do
	unit=$(systemctl list-units --plain --no-legend "claims-delegated-$pid-*" | awk '{print $1; exit}')
	[ -n "$unit" ] && break
	sleep 0.2
done
[ -n "$unit" ] || fail "no claims-delegated-* unit appeared while delegate.sh ran"
if grep -qsFl -f "$dir/secret" /proc/[0-9]*/cmdline; then
	fail "a process's arguments hold the secret: $(grep -sFl -f "$dir/secret" /proc/[0-9]*/cmdline | tr '\n' ' ')"
fi
if [ -n "$unit" ]; then
	systemctl show -p Environment "$unit" | grep -qF -f "$dir/secret" && fail "systemctl show $unit's Environment= holds the secret"
	grep -qsF -f "$dir/secret" "/run/systemd/transient/$unit" && fail "/run/systemd/transient/$unit holds the secret"
	# The command's group is a leaf of the delegated unit, which may enable cpu below itself.
	group=/sys/fs/cgroup$(systemctl show -P ControlGroup "$unit")
	grep -qw cpu "$group/cgroup.controllers" || fail "$group's controllers ($(cat "$group/cgroup.controllers")) lack cpu"
	[ "$(stat -c %U "$group")" = "$(id -un)" ] || fail "$group belongs to $(stat -c %U "$group"), not $(id -un): not delegated"
fi

# Stopping delegate.sh stops the unit and its command.
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 143 ] || fail "delegate.sh ended by TERM exited $rc; want 143"
if [ -n "$unit" ]; then
	for _ in $(seq 50); do
		systemctl is-active --quiet "$unit" || break
		sleep 0.2
	done
	! systemctl is-active --quiet "$unit" || fail "$unit still active after delegate.sh was stopped"
fi

# The command's exit status comes back.
rc=0
tools/delegate.sh bash -c 'exit 7' || rc=$?
[ "$rc" = 7 ] || fail "delegate.sh bash -c 'exit 7' exited $rc; want 7"

[ "$fails" = 0 ] || { echo "delegate_test.sh: $fails failed" >&2; exit 1; }
echo "delegate_test.sh: ok (the environment exact, no value in arguments or the unit, cpu delegated to $(id -un), TERM stops the unit, status 7 back)"
