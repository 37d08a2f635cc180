// init-measure.mjs: /proc/self/stat's starttime read past a command name of any shape, and
// the Init measured from the process's start on this (Linux) machine.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { measureInit, startTicks } from "../init-measure.mjs";

/** statLine is a /proc/PID/stat line for command comm whose field 22, starttime, is start;
 * every other field is its own number times 10, so that a field read off by one is seen. */
function statLine(comm, start, fields = 52) {
  const rest = [];
  for (let i = 3; i <= fields; i++) {
    rest.push(i === 3 ? "S" : i === 22 ? String(start) : String(i * 10));
  }
  return `4242 (${comm}) ${rest.join(" ")}\n`;
}

test("startTicks reads field 22, counting from the command name's last ')'", () => {
  assert.equal(startTicks(statLine("node", 987654)), 987654);
  // A command name holding spaces and parentheses, made to look like fields itself.
  assert.equal(startTicks(statLine(") 1 2 3 4 5 6", 31337)), 31337);
  assert.equal(startTicks(statLine("a) (b", 7)), 7);

  assert.throws(() => startTicks("4242 node S 1 2 3"), /no command name/);
  assert.throws(() => startTicks(statLine("node", 1, 21)), /no starttime/);
  assert.throws(() => startTicks(statLine("node", "-1")), /no starttime/);
  assert.throws(() => startTicks(statLine("node", "12x")), /no starttime/);
});

test("measureInit on Linux: from the process's start, by /proc", { skip: process.platform !== "linux" && "needs /proc" }, () => {
  assert.ok(startTicks(readFileSync("/proc/self/stat", "latin1")) > 0);
  const uptimeBefore = process.uptime() * 1000;
  const t0 = performance.now();
  const init = measureInit(t0 - 5); // as if the function's first code ran 5 ms ago
  const t1 = performance.now();
  const uptimeAfter = process.uptime() * 1000;
  assert.equal(init.from, "proc");
  assert.ok(init.jsMs >= 5 && init.jsMs <= 5 + (t1 - t0), `jsMs ${init.jsMs}`);
  // The kernel started the process before Node's own clock did: ms is at least Node's uptime,
  // less the 10 ms ticks of starttime and /proc/uptime, and not much more.
  assert.ok(init.ms >= uptimeBefore - 20, `ms ${init.ms}; Node's uptime ${uptimeBefore}`);
  assert.ok(init.ms <= uptimeAfter + 2000, `ms ${init.ms}; Node's uptime ${uptimeAfter}`);
  assert.ok(init.ms > init.jsMs);
});
