// The function's own measure of its Init, as functions/getitem's main.go takes it: from the
// process's start as the kernel recorded it (/proc/self/stat's starttime, on CLOCK_BOOTTIME)
// to just before the first /next, and from the function's first code to the same end.

import { readFileSync } from "node:fs";

/** clockTicks is Linux's USER_HZ, the unit of /proc/self/stat's starttime: 100 on every
 * architecture Lambda runs (x86_64, arm64); reading it would need sysconf, which Node does not
 * expose. */
const clockTicks = 100;

/** measureInit measures Init up to now; jsStartMs is performance.now() at the function's first
 * code. It returns { ms, from, jsMs }: ms from the process's start ("proc"), or jsMs when
 * /proc cannot be read ("node"). */
export function measureInit(jsStartMs) {
  const end = performance.now();
  const jsMs = end - jsStartMs;
  try {
    return { ms: sinceProcessStartMs() - (performance.now() - end), from: "proc", jsMs };
  } catch {
    return { ms: jsMs, from: "node", jsMs };
  }
}

/** sinceProcessStartMs is how long ago the kernel started this process: CLOCK_BOOTTIME now
 * less /proc/self/stat's starttime, which counts clock ticks since boot on the same clock.
 * Node reads no CLOCK_BOOTTIME; /proc/uptime gives it, truncated to 10 ms. CLOCK_MONOTONIC
 * (process.hrtime) is the same clock to the nanosecond on a machine that has not been
 * suspended since boot: where it falls within that 10 ms it is taken instead. */
function sinceProcessStartMs() {
  const stat = readFileSync("/proc/self/stat", "latin1");
  const uptime = readFileSync("/proc/uptime", "latin1");
  const mono = Number(process.hrtime.bigint()) / 1e6;
  const up = Number.parseFloat(uptime.split(" ")[0]) * 1000;
  if (!Number.isFinite(up)) {
    throw new Error(`/proc/uptime: ${JSON.stringify(uptime)}`);
  }
  const boot = mono >= up && mono < up + 10 ? mono : up;
  return boot - (startTicks(stat) * 1000) / clockTicks;
}

/** startTicks reads field 22, starttime, from the text of /proc/PID/stat. The command name
 * (field 2) is in parentheses and may hold spaces and parentheses itself, so fields are counted
 * from the last ')'. */
export function startTicks(stat) {
  const i = stat.lastIndexOf(")");
  if (i < 0) {
    throw new Error(`/proc/self/stat: no command name in ${JSON.stringify(stat)}`);
  }
  const fields = stat.slice(i + 1).trim().split(/\s+/);
  const starttime = 22 - 3; // fields[0] is field 3, the state
  if (fields.length <= starttime || !/^\d+$/.test(fields[starttime])) {
    throw new Error(`/proc/self/stat: no starttime in ${JSON.stringify(stat)}`);
  }
  return Number(fields[starttime]);
}
