#!/usr/bin/env bash
# rootfs.sh: prints the folder of the runner stand-in's root file system, building it first when
# the cache has none for its recipe: Debian 13 (trixie) by debootstrap into a folder of its own
# (never through this machine's apt sources), the packages in ./packages, the Go toolchain that
# setup-go installs for go.mod, and user runner (uid 1001) with passwordless sudo. The cache key is
# a hash of this script, ./packages, the suite, the user's id and the Go version: a new recipe
# builds a new root, an unchanged one is reused. Log on stderr, the folder on stdout.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$@"

gover=$(go_version)
k=$(key "suite=$RUNNER_SUITE go=$gover uid=$RUNNER_UID" "$RUNNER_DIR/rootfs.sh" "$RUNNER_DIR/packages")
root="$RUNNER_CACHE/rootfs-$k"
mkdir -p "$RUNNER_CACHE"

# One build at a time per cache: a second caller waits for the first and then reuses its root.
exec 9>"$RUNNER_CACHE/build.lock"
flock 9
if [ -f "$root/.claims-runner-complete" ]; then
	log "root file system cached: $root"
	echo "$root"
	exit 0
fi

need_cmd debootstrap debootstrap
[ -f "/usr/share/debootstrap/scripts/$RUNNER_SUITE" ] || die "this debootstrap does not know $RUNNER_SUITE: apt-get install debootstrap (from Debian 12's updates or later)"
tmp="$root.tmp.$$"
cleanup() { rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap on_signal INT TERM
rm -rf --one-file-system "$root" "$RUNNER_CACHE"/rootfs-*.tmp.*

m=$(mirror)
log "building the root file system ($RUNNER_SUITE, Go $gover) in $tmp from $m; every step is timed"
start=$SECONDS
logged debootstrap "$RUNNER_CACHE/debootstrap.log" debootstrap --variant=minbase --components=main --include=ca-certificates "$RUNNER_SUITE" "$tmp" "$m" ||
	die "debootstrap failed"

# The root's own apt sources: trixie alone, this machine's untouched.
rm -f "$tmp/etc/apt/sources.list"
cat >"$tmp/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $m
Suites: $RUNNER_SUITE $RUNNER_SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
# The hosts file an installed system has: debootstrap writes none, and trixie's netbase no longer
# ships one (the hosted runner's image has one), so the root gets its own.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$tmp/etc/hosts"
# No service starts while packages are installed into the folder.
printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
chmod +x "$tmp/usr/sbin/policy-rc.d"

mapfile -t pkgs < <(grep -v '^#' "$RUNNER_DIR/packages" | grep -v '^$')
logged packages "$RUNNER_CACHE/packages.log" "$RUNNER_DIR/enter.sh" "$tmp" -- sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${pkgs[*]}" ||
	die "installing the packages failed"

# setup-go puts the exact toolchain go.mod names first on PATH. Here trixie's go fetches that
# toolchain from the Go module proxy (GOTOOLCHAIN), which is copied to /usr/local/go; trixie's go
# is then removed, so that only one go is on PATH.
logged go-toolchain "$RUNNER_CACHE/go.log" "$RUNNER_DIR/enter.sh" "$tmp" -- sh -c "
	set -e
	export GOMODCACHE=/tmp/gotoolchain GOTOOLCHAIN=go$gover GOPATH=/tmp/gopath
	test \"\$(go env GOVERSION)\" = go$gover
	src=\$(go env GOROOT)
	rm -rf /usr/local/go && cp -a \"\$src\" /usr/local/go
	chmod -R u+w /tmp/gotoolchain && rm -rf /tmp/gotoolchain /tmp/gopath
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q golang-go && DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -q --purge
	test \"\$(/usr/local/go/bin/go env GOVERSION)\" = go$gover
" || die "installing Go $gover failed"

# The runner's user: uid 1001 like the hosted runner's, passwordless sudo.
"$RUNNER_DIR/enter.sh" "$tmp" -- sh -c "
	set -e
	useradd --create-home --uid $RUNNER_UID --shell /bin/bash $RUNNER_USER
	echo '$RUNNER_USER ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/$RUNNER_USER
	chmod 0440 /etc/sudoers.d/$RUNNER_USER
	apt-get clean
	echo claims-runner >/etc/hostname
"
rm -f "$tmp/usr/sbin/policy-rc.d"
du -sh "$tmp" >&2
touch "$tmp/.claims-runner-complete"
mv "$tmp" "$root"
trap - EXIT
log "root file system built in $((SECONDS - start)) s: $root"
echo "$root"
