#!/usr/bin/env bash
# userland.sh [COMMAND]: runs COMMAND (default: make test) as user runner in the runner stand-in's
# userland (docs/runner.md): the cached Debian 13 root file system (rootfs.sh) entered as a
# container on this kernel, over a fresh clone of this checkout's HEAD at ~/work/claims, as the
# hosted runner's job would. Its output and results/ come back to .runner/userland/ in this
# checkout. The run writes into an overlay of the root that is removed after, with every process
# and mount it made, also on failure, a timeout (RUNNER_USERLAND_TIMEOUT, default 40m) or Ctrl-C.
# The Go module and build caches persist between runs in the cache, as setup-go's cache does on
# the hosted runner. Exits with COMMAND's status.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$@"

cmd=${1:-${RUN:-make test}}
limit=${RUNNER_USERLAND_TIMEOUT:-40m}
out="$REPO_DIR/.runner/userland"

root=$(timed rootfs "$RUNNER_DIR/rootfs.sh")
stage=$(mktemp -d /var/tmp/claims-runner-userland.XXXXXX)
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	# The namespace's mounts are gone with it; the overlay's upper layer and the clone remain.
	rm -rf --one-file-system "$stage"
}
trap cleanup EXIT
trap on_signal INT TERM

stage_run "$root" "$stage"

rm -rf "$out" && mkdir -p "$out"
log "running as $RUNNER_USER in $RUNNER_SUITE's userland (timeout $limit): $cmd"
rc=0
timed "userland run" timeout -k 30 "$limit" "$RUNNER_DIR/enter.sh" "$root" --overlay "$stage" --user "$RUNNER_USER" "${RUNNER_BINDS[@]}" \
	-- bash -c "cd ~/work/claims && $cmd" > >(trap '' INT; exec tee "$out/output.log") 2>&1 || rc=$?
if [ -d "$stage/claims/results" ]; then
	cp -r "$stage/claims/results" "$out/results"
fi
log "output and results/ in $out; exit $rc"
exit "$rc"
