# shellcheck shell=bash disable=SC2034
# What the runner stand-in's scripts share (docs/runner.md): the cache, the recipe's key, the
# Debian mirror, timing. Sourced, not run.

# The suite the stand-in is made of: Debian 13, the current stable (docs/runner.md says why not
# Ubuntu 24.04's).
RUNNER_SUITE=trixie
# The runner's user and its id: the hosted runner's jobs run as user runner, uid 1001.
RUNNER_USER=runner
RUNNER_UID=1001

RUNNER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$RUNNER_DIR/../.." && pwd)

# The cache lives outside the checkout, so that a fresh clone (CI's) reuses what an earlier run
# built; CLAIMS_RUNNER_CACHE moves it.
RUNNER_CACHE=${CLAIMS_RUNNER_CACHE:-/var/cache/claims-runner}

log() { printf 'runner: %s\n' "$*" >&2; }
die() { printf 'runner: %s\n' "$*" >&2; exit 1; }

# need_root re-runs the calling script as root through sudo -n: debootstrap, chroot, mounts and
# QEMU's shared folder all need it. Without root or passwordless sudo it fails naming the command.
need_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		exec sudo -n --preserve-env=CLAIMS_RUNNER_CACHE,RUNNER_MIRROR,RUN,RUNNER_GUEST_AS,RUNNER_GUEST_TIMEOUT,RUNNER_GUEST_LOCK,RUNNER_GUEST_PREPARE,RUNNER_USERLAND_TIMEOUT,RUNNER_ACCEL,CLAIMS_TRIALS,CLAIMS_COLD_STARTS,CLAIMS_FUNCTION_TIMEOUT_S "$0" "$@"
	fi
	die "needs root (debootstrap, chroot, mounts): run it as root or with passwordless sudo: sudo $0 $*"
}

# need_cmd installs the Debian package that gives a missing command (the scripts run as root, and
# a new machine, CI's, has none of them), and fails naming it where apt-get cannot.
need_cmd() {
	command -v "$1" >/dev/null && return 0
	log "$1 is not on PATH: installing Debian's $2"
	if command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >&2 ||
			{ apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >&2; } || true
	fi
	command -v "$1" >/dev/null || die "$1 is not on PATH: apt-get install $2"
}

# mirror is the Debian archive this machine's apt already uses (its first deb822 or one-line
# source of Debian's main archive), so that no host name is written here; RUNNER_MIRROR overrides.
mirror() {
	if [ -n "${RUNNER_MIRROR:-}" ]; then echo "$RUNNER_MIRROR"; return; fi
	local uri
	uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v -- '-security' | grep '/debian/\?$' | head -n1 || true)
	if [ -z "$uri" ]; then
		uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" {print $2}' | grep -v -- '-security' | grep '/debian/\?$' | head -n1 || true)
	fi
	[ -n "$uri" ] || die "no Debian archive in this machine's apt sources: set RUNNER_MIRROR to one"
	echo "$uri"
}

# go_version is the Go toolchain setup-go installs for the workflows (go-version-file: go.mod):
# go.mod's toolchain line where there is one, else its go line.
go_version() {
	local v
	v=$(awk '$1 == "toolchain" {sub(/^go/, "", $2); print $2}' "$REPO_DIR/go.mod")
	[ -n "$v" ] || v=$(awk '$1 == "go" {print $2; exit}' "$REPO_DIR/go.mod")
	[ -n "$v" ] || die "no go or toolchain line in $REPO_DIR/go.mod"
	echo "$v"
}

# key is a short hash of the given files' contents and the extra words: a cached build is reused
# only while its recipe is unchanged.
key() {
	local extra=$1; shift
	{ cat "$@"; echo "$extra"; } | sha256sum | cut -c1-16
}

# run_child runs a command in the background and waits for it, so that a signal to the script
# (Ctrl-C, kill, a timeout's) runs the script's trap at once rather than after the command, and
# on_signal, the trap, ends the command: TERM to it (enter.sh's unshare ends its namespace and
# every process in it; timeout passes the signal on), then the script exits, running its cleanup.
RUNNER_CHILD=
run_child() {
	local rc=0
	"$@" &
	RUNNER_CHILD=$!
	wait "$RUNNER_CHILD" || rc=$?
	RUNNER_CHILD=
	return "$rc"
}
# shellcheck disable=SC2317 # called by the trap
on_signal() {
	trap - INT TERM
	# Where the output goes through tee, tee may be gone already: a write must not end the script.
	trap '' PIPE
	if [ -n "$RUNNER_CHILD" ]; then
		log "interrupted: ending pid $RUNNER_CHILD"
		kill -TERM "$RUNNER_CHILD" 2>/dev/null || true
		wait "$RUNNER_CHILD" 2>/dev/null || true
	fi
	exit 130
}

# stage_run ROOT STAGE makes what a run over ROOT needs in STAGE, for user runner: the folders the
# run mounts into, made in the overlay's upper layer (STAGE/upper) with the owner they have in the
# root, so that runner keeps its home; the Go module and build caches in the cache, which persist
# between runs as setup-go's cache does on the hosted runner; and a fresh clone of this checkout's
# HEAD in STAGE/claims, runner's. It sets RUNNER_HOME and RUNNER_BINDS, the binds (enter.sh's
# --bind) of the clone and the caches at their places in runner's home.
stage_run() {
	local root=$1 stage=$2 d
	RUNNER_HOME="/home/$RUNNER_USER"
	for d in "$RUNNER_HOME" "$RUNNER_HOME/work" "$RUNNER_HOME/go" "$RUNNER_HOME/go/pkg" "$RUNNER_HOME/.cache"; do
		install -d -o "$RUNNER_UID" -g "$RUNNER_UID" -m "$(stat -c %a "$root$RUNNER_HOME")" "$stage/upper$d"
	done
	install -d -o "$RUNNER_UID" -g "$RUNNER_UID" "$RUNNER_CACHE/go/mod" "$RUNNER_CACHE/go/build"
	timed clone git clone -q --no-hardlinks "$REPO_DIR" "$stage/claims"
	git -C "$stage/claims" log -1 --format='runner: the copy is %h %s' >&2
	chown -R "$RUNNER_UID:$RUNNER_UID" "$stage/claims"
	RUNNER_BINDS=(--bind "$stage/claims:$RUNNER_HOME/work/claims"
		--bind "$RUNNER_CACHE/go/mod:$RUNNER_HOME/go/pkg/mod"
		--bind "$RUNNER_CACHE/go/build:$RUNNER_HOME/.cache/go-build")
}

# timed runs a command (run_child) and logs how long it took, under the given name, on stderr.
timed() {
	local name=$1; shift
	local start=$SECONDS rc=0
	run_child "$@" || rc=$?
	log "$name: $((SECONDS - start)) s (exit $rc)"
	return "$rc"
}

# logged NAME FILE COMMAND...: runs COMMAND with its output in FILE, timed on stderr.
logged() {
	local name=$1 file=$2; shift 2
	local start=$SECONDS rc=0
	run_child "$@" >"$file" 2>&1 || rc=$?
	log "$name: $((SECONDS - start)) s (exit $rc; its output in $file)"
	return "$rc"
}
