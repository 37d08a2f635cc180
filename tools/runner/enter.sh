#!/usr/bin/env bash
# enter.sh ROOT [--user NAME] [--overlay DIR] [--bind HOSTDIR:DIR]... -- COMMAND...: runs COMMAND
# in the root file system ROOT as a container on this kernel: chroot in a mount and PID namespace of its own, with
# /proc, /sys (and so the host's cgroup hierarchy), /dev and /dev/pts. When COMMAND ends, or this
# script is killed, the kernel ends every process left in the PID namespace and drops every mount
# made in the mount namespace: nothing outlives the run. With --overlay, ROOT is left unchanged:
# the run writes into DIR/upper (an overlay over ROOT), which the caller removes.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: $0 ROOT [--user NAME] [--bind HOSTDIR:DIR]... -- COMMAND..."
root=$1; shift
[ -d "$root/etc" ] || die "$root is not a root file system (no etc/)"
user=root
overlay=
binds=()
while [ $# -gt 0 ]; do
	case $1 in
	--user) user=$2; shift 2 ;;
	--overlay) overlay=$2; shift 2 ;;
	--bind) binds+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) die "unknown option $1" ;;
	esac
done
[ $# -ge 1 ] || die "no command given after --"

if [ "${_RUNNER_IN_NS:-}" != 1 ]; then
	need_cmd unshare util-linux
	# --kill-child: if this script is killed (Ctrl-C, a timeout), the namespace's first process
	# is killed too, and with it every process in the namespace.
	args=("$root" --user "$user" --overlay "$overlay")
	for b in "${binds[@]}"; do args+=(--bind "$b"); done
	exec env _RUNNER_IN_NS=1 unshare --mount --uts --pid --fork --kill-child --propagation private \
		"$0" "${args[@]}" -- "$@"
fi

if [ -n "$overlay" ]; then
	mkdir -p "$overlay/upper" "$overlay/work" "$overlay/merged"
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$overlay/upper,workdir=$overlay/work" "$overlay/merged"
	root=$overlay/merged
fi
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mkdir -p "$root/run/lock"
for b in "${binds[@]}"; do
	[ -d "$root/${b#*:}" ] || mkdir -p "$root/${b#*:}"
	mount --bind "${b%%:*}" "$root/${b#*:}"
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The root's host name, in a UTS namespace of its own, resolvable as on any installed system (sudo
# looks it up).
name=$(cat "$root/etc/hostname" 2>/dev/null || echo claims-runner)
hostname "$name"
{ printf '127.0.1.1\t%s\n' "$name"; cat "$root/etc/hosts"; } >"$root/run/hosts"
mount --bind "$root/run/hosts" "$root/etc/hosts"
# This machine's trust: where its way out re-signs TLS with a local authority (its
# /usr/local/share/ca-certificates), the root trusts what the machine trusts, for this run only.
bundle=/etc/ssl/certs/ca-certificates.crt
if [ -f "$bundle" ] && [ -f "$root$bundle" ]; then
	mount --bind -o ro "$bundle" "$root$bundle"
fi
# ... and the variables that point tools at it, where this machine sets them.
pass=()
for v in SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO CURL_CA_BUNDLE PIP_CERT REQUESTS_CA_BUNDLE; do
	[ -z "${!v:-}" ] || pass+=("$v=${!v}")
done

if [ "$user" = root ]; then
	exec chroot "$root" /usr/bin/env -i "${pass[@]}" HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
fi
# As the user, with the login environment the hosted runner's jobs get: HOME, the setup-go
# toolchain first on PATH, CI=true.
exec chroot --userspec="$user:$user" "$root" /usr/bin/env -i "${pass[@]}" HOME="/home/$user" USER="$user" \
	LOGNAME="$user" TERM="${TERM:-dumb}" LANG=C.UTF-8 CI=true \
	PATH="/home/$user/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
