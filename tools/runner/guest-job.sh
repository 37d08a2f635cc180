#!/bin/bash
# guest-job.sh: the runner stand-in guest's job (guest.sh copies it into the guest's disk as
# /usr/local/sbin/claims-job, which claims-job.service runs at boot; docs/runner.md). It mounts the
# host's shared folders (virtio-9p: the job's folder and the Go caches; the clone is on the
# guest's disk), runs the job's command as user runner through tools/delegate.sh, as the
# workflows run the claims (or as root, as the host asked), writes its output, exit status and the
# clone's results/ into the shared job folder, and powers the guest off.
set -u
# A shared folder's virtio device may not be probed yet when the job starts (seen under TCG on a
# busy host: "9pnet_virtio: no channels available for device job"): mnt tries for a minute.
mnt() {
	mkdir -p "$2" || return 1
	local i
	for i in $(seq 60); do
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 "$1" "$2" 2>/dev/null && return 0
		[ "$i" -eq 1 ] && echo "claims-job: the shared folder $1 is not there yet; waiting for it" >/dev/console
		sleep 1
	done
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 "$1" "$2"
}
mnt job /mnt/job || exit 1
home=/home/runner
{
	mnt gomod "$home/go/pkg/mod" && mnt gobuild "$home/.cache/go-build" || exit 1
	as=$(cat /mnt/job/as)
	echo "guest: kernel $(uname -r), $(nproc) CPUs, /sys/fs/cgroup is $(stat -fc %T /sys/fs/cgroup) with controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)"
	echo "guest: the job runs as $as$([ "$as" = runner ] && echo ', through tools/delegate.sh (a transient service with Delegate=yes, its cgroup subtree runner'"'"'s)')"
	# The run's settings (CLAIMS_TRIALS, CLAIMS_COLD_STARTS), one VAR=value a line.
	settings=()
	while IFS= read -r kv; do [ -z "$kv" ] || settings+=("$kv"); done </mnt/job/env
	echo "guest: settings ${settings[*]}"
	# Nothing is fetched in the guest: the module cache and the toolchain came from the host.
	env=(PATH="$home/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		GOMODCACHE="$home/go/pkg/mod" GOCACHE="$home/.cache/go-build"
		GOPROXY=off GOTOOLCHAIN=local CI=true LANG=C.UTF-8 "${settings[@]}")
	start=$(date +%s)
	if [ "$as" = runner ]; then
		# As a workflow's step runs the claims on the hosted runner: user runner, no login
		# session, passwordless sudo, and tools/delegate.sh, which starts the command in a
		# transient service of its own with Delegate=yes, in a leaf of that service's group
		# (DelegateSubgroup=job), where harness/sys/cgroup makes its groups beside the leaf.
		runuser -u runner -- env -i -C "$home/work/claims" HOME="$home" USER=runner LOGNAME=runner "${env[@]}" \
			tools/delegate.sh bash /mnt/job/cmd </dev/null
	else
		env -i -C "$home/work/claims" HOME=/root "${env[@]}" bash /mnt/job/cmd </dev/null
	fi
	rc=$?
	echo "guest: the job took $(($(date +%s) - start)) s, exit $rc"
	[ ! -d "$home/work/claims/results" ] || cp -r "$home/work/claims/results" /mnt/job/results || echo "guest: copying results/ back failed"
	echo "$rc" >/mnt/job/rc
} >/mnt/job/output.log 2>&1
echo "claims-job: the job ended; syncing" >/dev/console
timeout 60 sync
echo "claims-job: powering off" >/dev/console
# The guest is thrown away after: no need to stop its services one by one.
systemctl poweroff --force
