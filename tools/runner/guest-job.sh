#!/bin/bash
# guest-job.sh: the runner stand-in guest's job (guest.sh copies it into the guest's disk as
# /usr/local/sbin/claims-job, which claims-job.service runs at boot; docs/runner.md). It mounts the
# host's shared folders (virtio-9p: the job's folder and the Go caches; the clone is on the
# guest's disk), runs the job's command as user runner in a transient systemd service with a
# delegated cgroup (or as root, as the host asked), writes its output, exit status and the
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
	echo "guest: the job runs as $as$([ "$as" = runner ] && echo ', in a transient service with Delegate=yes (its cgroup subtree is runner'"'"'s)')"
	user=()
	[ "$as" = runner ] && user=(--uid=runner --gid=runner)
	# The run's settings (CLAIMS_TRIALS, CLAIMS_COLD_STARTS), one VAR=value a line.
	settings=()
	while IFS= read -r kv; do [ -z "$kv" ] || settings+=("--setenv=$kv"); done </mnt/job/env
	echo "guest: settings ${settings[*]#--setenv=}"
	# The service's group is runner's (Delegate=yes), and cgroup v2 gives no controller to the
	# children of a group with members: DelegateSubgroup= (systemd 254 and later) starts the job in
	# a leaf of it, so that harness/sys/cgroup can enable cpu in the service's group and make its
	# groups beside the leaf, as a workflow step run under `sudo systemd-run --uid=runner -p
	# Delegate=yes -p DelegateSubgroup=job` would.
	# Nothing is fetched in the guest: the module cache and the toolchain came from the host.
	start=$(date +%s)
	systemd-run --quiet --wait --pipe --collect "${user[@]}" -p Delegate=yes -p DelegateSubgroup=job \
		-p WorkingDirectory="$home/work/claims" \
		--setenv=HOME="$([ "$as" = runner ] && echo "$home" || echo /root)" \
		--setenv=PATH="$home/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		--setenv=GOMODCACHE="$home/go/pkg/mod" --setenv=GOCACHE="$home/.cache/go-build" \
		--setenv=GOPROXY=off --setenv=GOTOOLCHAIN=local --setenv=CI=true --setenv=LANG=C.UTF-8 \
		"${settings[@]}" \
		bash /mnt/job/cmd </dev/null
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
