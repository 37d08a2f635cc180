// Package cgroup runs processes under a CPU quota, so that a cold-start experiment can give a
// Lambda function's process the share of one CPU that its memory size gets on Lambda (see
// lambdalocal.ShareForMemory; claim T5), and makes sure the quota's cgroup is gone afterwards.
//
// New makes a cgroup named claims-<name>-<pid>-<n> in the hierarchy that has the cpu controller,
// found in /proc/self/mountinfo: directly under its root where this process may write there
// (root), else in the subtree the system delegates to this user, as rootless container engines
// do (see place), and sets its CPU bandwidth (the CFS quota): cpu.max on cgroup v2 when the v2
// hierarchy has the cpu controller, else cpu.cfs_period_us and cpu.cfs_quota_us on cgroup v1 (a
// controller belongs to one hierarchy at a time, so at most one of the two can have it). The group also gets the largest CPU weight,
// so that other work on the machine does not take its share (see quotaSettings). Add moves a
// whole process into the group; the children it starts later are born inside it.
//
// A cgroup outlives the process that made it, so removal is taken care of three ways. Removing
// first moves any remaining members back to the parent group, because the kernel refuses to
// remove a cgroup that has members; they go on running, without the quota.
//   - New registers Remove with t.Cleanup.
//   - SIGINT, SIGTERM or SIGHUP to the test binary (Ctrl-C) removes every live group before the
//     binary dies of the signal, as it would have without this package, through the one
//     handler harness/sys/interrupt keeps for this package and harness/sys/proc alike.
//   - A test binary that dies any other way (SIGKILL, a test timeout's panic, which runs no
//     cleanup) leaves its groups behind. Stale lists them, and the next New removes every
//     claims- group whose owner, the pid in its name, no longer runs. This assumes that every
//     process using the hierarchy sees the same pids (one pid namespace), which holds unless a
//     container shares the host's cgroup filesystem; a reused pid only delays the sweep.
//
// Making a cgroup needs Linux, and root or a delegated subtree. Available says which hierarchy
// and how, or exactly why not and what to run instead, for t.Skip; DescribeMachine says the same
// for a result's environment.
package cgroup

// prefix starts the name of every group this package makes; Stale and the sweep in New look
// only at directories named so.
const prefix = "claims-"
