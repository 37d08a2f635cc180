#!/usr/bin/env bash
# guest.sh [COMMAND]: runs COMMAND (default: the cgroup v2 part: tools/delegate_test.sh,
# harness/sys/cgroup's tests, and claims.yml's shard job for go:local, its quota step running T8
# and the Go function's T1-T6 through tools/delegate.sh) as user runner in the runner
# stand-in's guest (docs/runner.md): the runner's root file system booted by QEMU with Debian
# 13's kernel and systemd as init, so that the tests meet the unified cgroup v2 hierarchy.
# Steps, each timed:
#   1. the cached root file system (rootfs.sh);
#   2. a fresh clone of this checkout's HEAD, prepared in the userland at native speed
#      (RUNNER_GUEST_PREPARE, default: make setup, the test packages and the commands the job
#      runs compiled), so that the guest fetches nothing: what make setup installs is in the
#      overlay the guest's disk is made from, and so is the prepared clone; the Go module and
#      build caches reach the guest through virtio-9p, and results/ comes back through the job's
#      shared folder;
#   3. the guest's disk: the root, the overlay and the clone, with the job's service
#      (guest-job.sh);
#   4. QEMU with KVM where /dev/kvm boots a kernel, else TCG (RUNNER_ACCEL=kvm|tcg forces one),
#      user-mode networking with no way out (restrict=on), the whole VM under a timeout
#      (RUNNER_GUEST_TIMEOUT, default 35m; the time waiting for RUNNER_GUEST_LOCK is not counted).
# The output and results/ come back to .runner/guest/. Every process, mount and file it made is
# removed after, also on failure, timeout or Ctrl-C. RUNNER_GUEST_AS=root runs the job as root in
# the guest instead of runner. Exits with the job's status (124 when the VM timed out).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$@"

prepare=${RUNNER_GUEST_PREPARE:-make setup && go test -count=1 -run '^\$' ./harness/sys/cgroup/... ./experiments/coldstart && go build -o .cache/bin/workflow ./tools/runner/workflow && go build -o /dev/null ./cmd/matrix ./cmd/history}
limit=${RUNNER_GUEST_TIMEOUT:-35m}
as=${RUNNER_GUEST_AS:-runner}
case $as in runner | root) ;; *) die "RUNNER_GUEST_AS = $as; want runner or root" ;; esac
# make test's number of trials: under TCG the guest's CPU is about ten times slower than the host's.
trials=${CLAIMS_TRIALS:-8}
# The cold starts per variant and memory size of the claims about a CPU share (T1, T2, T3, T5):
# CLAIMS_COLD_STARTS where set; under TCG else the fewest that decide such a claim
# (harness/sys/settings' MinColdStarts), so that T1-T6 fit the guest's time; the results record
# how many ran (parameters.coldStarts).
cold_starts=${CLAIMS_COLD_STARTS:-}
# The local platform's function timeout (harness/sys/settings' CLAIMS_FUNCTION_TIMEOUT_S, 30 s
# unless set), which no claim rests on: under TCG else 300 s (the emulator's own default), since
# a 128 MB function's first invocation there outlasted 30 s, the emulator ended it, and then
# crashed on the next invoke (the EOF T1, T2, T3 and T5 met; docs/runner.md).
function_timeout=${CLAIMS_FUNCTION_TIMEOUT_S:-}
out="$REPO_DIR/.runner/guest"
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd mkfs.ext4 e2fsprogs

root=$(timed rootfs "$RUNNER_DIR/rootfs.sh")
stage=$(mktemp -d /var/tmp/claims-runner-guest.XXXXXX)
tailpid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
	rm -rf --one-file-system "$stage"
}
trap cleanup EXIT
trap on_signal INT TERM

stage_run "$root" "$stage"
rm -rf "$out" && mkdir -p "$out"

logged prepare "$out/prepare.log" timeout -k 30 20m "$RUNNER_DIR/enter.sh" "$root" --overlay "$stage" --user "$RUNNER_USER" "${RUNNER_BINDS[@]}" \
	-- bash -c "cd ~/work/claims && $prepare" ||
	log "preparing the copy in the userland failed (see $out/prepare.log): the guest runs all the same, and its tests say what is missing"
rm -rf "${stage:?}/merged" "$stage/work"
# The clone goes onto the guest's disk, not into a shared folder: under TCG a file read through
# virtio-9p costs so much that the binaries run from it (the emulator, the functions, Node and
# dynalite) started in hundreds of ms to seconds (a Go function's runtime took 570-840 ms to reach
# main, against 0.4 ms natively), which T4's Init then counted; on the disk they start as from
# any disk.
install -d -o "$RUNNER_UID" -g "$RUNNER_UID" "$stage/upper$RUNNER_HOME/work/claims"
cp -a "$stage/claims/." "$stage/upper$RUNNER_HOME/work/claims/"
rm -rf "${stage:?}/claims"

# The guest's own files, in the overlay: the job's service, enabled, and its script.
install -D -m 755 "$RUNNER_DIR/guest-job.sh" "$stage/upper/usr/local/sbin/claims-job"
install -d "$stage/upper/etc/systemd/system/multi-user.target.wants"
cat >"$stage/upper/etc/systemd/system/claims-job.service" <<'UNIT'
[Unit]
Description=The runner stand-in's job (tools/runner/guest-job.sh)
ConditionKernelCommandLine=claims.job
After=multi-user.target
# The job powers the guest off when it ends; should it fail before, this does.
FailureAction=poweroff-force
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/claims-job
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
ln -s ../claims-job.service "$stage/upper/etc/systemd/system/multi-user.target.wants/claims-job.service"
echo "/dev/vda / ext4 rw,relatime 0 1" >"$stage/upper/etc/fstab"
# The host's name resolves, as enter.sh has it in the container: sudo looks it up on each call,
# and says "unable to resolve host" where it cannot.
{
	printf '127.0.1.1\t%s\n' "$(cat "$root/etc/hostname")"
	cat "$root/etc/hosts" 2>/dev/null || printf '127.0.0.1\tlocalhost\n'
} >"$stage/upper/etc/hosts"

# The disk: a sparse ext4 image filled from the root and the overlay (mkfs.ext4 -d), in a mount
# namespace of its own so that the overlay's mount goes with it.
# shellcheck disable=SC2016 # the script's own arguments
logged disk "$out/disk.log" unshare --mount --propagation private sh -c '
	set -e
	mkdir -p "$1/merged" "$1/work"
	mount -t overlay overlay -o "lowerdir=$2,upperdir=$1/upper,workdir=$1/work" "$1/merged"
	mkfs.ext4 -q -F -L claims-runner -d "$1/merged" "$1/disk.img" 16G
' sh "$stage" "$root" || die "making the guest's disk failed"
rm -rf "${stage:?}/upper" "$stage/merged" "$stage/work"

kernel=$(find "$root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -n1)
initrd=$(find "$root/boot" -maxdepth 1 -name 'initrd.img-*' | sort | tail -n1)
if [ -z "$kernel" ] || [ -z "$initrd" ]; then die "no kernel or initrd in $root/boot"; fi

# KVM where it boots a kernel: a machine whose /dev/kvm opens but cannot run a guest (this one:
# "KVM internal error. Suberror: 1") would stop the VM at once. The probe boots the kernel with no
# root, which panics within seconds where KVM works, and looks for the panic on the console.
accel=${RUNNER_ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 512 -display none -monitor none -nodefaults \
		-serial stdio -no-reboot -kernel "$kernel" -append "console=ttyS0 panic=-1 root=/dev/nonexistent" </dev/null 2>&1 |
		grep -q 'Kernel panic'; then
		accel=kvm
	fi
fi
case $accel in
kvm) cpu=host; log "the guest runs under KVM" ;;
tcg) cpu=max; log "the guest runs under TCG (emulated, about ten times slower than the host; no KVM that boots a kernel here)" ;;
*) die "RUNNER_ACCEL = $accel; want kvm or tcg" ;;
esac

# tools/delegate.sh's own test, of the path the hosted runner takes; then the cold-start claims
# that make cgroups and rest on the CPU model, T8 and T1-T6 on the Go function, as claims.yml's
# shard job runs them: its jobs shards and shard (go:local), every step from the workflow file
# (tools/runner/workflow, in this clone: -here), the quota step through tools/delegate.sh, with
# MATRIX_TESTS naming those claims. make matrix records a claim that failed as a verdict and goes
# on, so the job checks its log for the cold-start package having passed.
claims=TestThrottleSlices,TestFirstCallDominatedByTLS,TestFirstInvocationIsSlow,TestWarmupRemovesHandshake,TestWarmupFailureDoesNotFailInit,TestHandshakeScalesWithCPU,TestPhasesAreTheSDKsOwnConnection
if [ "$accel" = tcg ]; then
	[ -n "$cold_starts" ] || cold_starts=5
	[ -n "$function_timeout" ] || function_timeout=300
fi
default_cmd="rc=0
bash tools/delegate_test.sh || rc=1
go tool gotestsum --format testname -- -count=1 -timeout 10m ./harness/sys/cgroup/... || rc=1
wf=\$(mktemp -d)
.cache/bin/workflow -dir \"\$wf\" -here -event schedule -job shards -job shard -matrix shard=go:local -set MATRIX_TESTS=$claims .github/workflows/claims.yml || rc=1
cat \"\$wf\"/jobs/*/log
grep -q 'experiments/coldstart passed in' \"\$wf\"/jobs/*go_local*/log || { echo 'the shard job: the cold-start package did not pass'; rc=1; }
exit \$rc"
cmd=${1:-${RUN:-$default_cmd}}

mkdir -p "$stage/job"
printf '%s\n' "$cmd" >"$stage/job/cmd"
echo "$as" >"$stage/job/as"
{
	echo "CLAIMS_TRIALS=$trials"
	[ -z "$cold_starts" ] || echo "CLAIMS_COLD_STARTS=$cold_starts"
	[ -z "$function_timeout" ] || echo "CLAIMS_FUNCTION_TIMEOUT_S=$function_timeout"
} >"$stage/job/env"
touch "$stage/job/output.log"
tail -n +1 -F "$stage/job/output.log" 2>/dev/null &
tailpid=$!
share() { printf 'local,path=%s,mount_tag=%s,security_model=none' "$1" "$2"; }
log "booting the guest ($accel, 2 CPUs, 4 GiB, timeout $limit); its console in $out/console.log"
rc=0
# On a machine shared with other timing-sensitive runs, RUNNER_GUEST_LOCK names a lock file that
# the VM holds while it runs (flock), so that it neither measures them nor is measured by them.
if [ -n "${RUNNER_GUEST_LOCK:-}" ]; then
	exec 8>>"$RUNNER_GUEST_LOCK"
	log "waiting for $RUNNER_GUEST_LOCK"
	timed lock flock 8
fi
timed guest timeout -k 30 "$limit" qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu" -smp 2 -m 4096 \
	-display none -monitor none -nodefaults -no-reboot -serial "file:$out/console.log" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "root=/dev/vda rw console=ttyS0 claims.job fsck.mode=skip systemd.show_status=error" \
	-drive "file=$stage/disk.img,if=virtio,format=raw" \
	-netdev user,id=net0,restrict=on -device virtio-net-pci,netdev=net0 \
	-virtfs "$(share "$stage/job" job)" \
	-virtfs "$(share "$RUNNER_CACHE/go/mod" gomod)" -virtfs "$(share "$RUNNER_CACHE/go/build" gobuild)" \
	</dev/null || rc=$?
sleep 1
kill "$tailpid" 2>/dev/null || true
tailpid=
cp "$stage/job/output.log" "$out/output.log"
[ -d "$stage/job/results" ] && cp -r "$stage/job/results" "$out/results"
if [ "$rc" -ne 0 ]; then
	log "the VM did not end by itself (exit $rc; 124: the timeout, $limit)"
	exit "$rc"
fi
[ -s "$stage/job/rc" ] || die "the guest ended without the job's exit status: see $out/console.log"
rc=$(cat "$stage/job/rc")
log "output and results/ in $out; the job's exit $rc"
exit "$rc"
