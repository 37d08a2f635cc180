'use strict';
// Helpers every scenario shares: parameter checks, the clock, calibrated pool work, the pool's
// threads as /proc sees them, and the loop-blocking sampler.

const crypto = require('crypto');
const fs = require('fs');

// BadParam is a parameter that makes no sense; the lab exits 2 with its message.
class BadParam extends Error {}

// intParam reads params[name] as an integer in [lo, hi], or def when absent.
function intParam(params, name, lo, hi, def) {
  const v = params[name];
  if (v === undefined && def !== undefined) return def;
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new BadParam(`${name} = ${JSON.stringify(v)}: want an integer from ${lo} to ${hi}`);
  }
  return v;
}

// now is milliseconds on the process's monotonic clock.
function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

// The heavy pool job every scenario uses: async crypto.pbkdf2, pure CPU on a pool thread, its
// length set by the iteration count.
const PBKDF2 = { password: 'claims', salt: 'threadpool', keylen: 64, digest: 'sha512' };

function pbkdf2(iterations) {
  return new Promise((resolve, reject) => {
    crypto.pbkdf2(PBKDF2.password, PBKDF2.salt, iterations, PBKDF2.keylen, PBKDF2.digest, (err) =>
      err ? reject(err) : resolve(now()));
  });
}

function pbkdf2Sync(iterations) {
  crypto.pbkdf2Sync(PBKDF2.password, PBKDF2.salt, iterations, PBKDF2.keylen, PBKDF2.digest);
}

// calibrate finds the pbkdf2 iteration count that takes jobMs on one otherwise idle core, from
// the best of five timed runs on the main thread (the best is the least disturbed).
function calibrate(jobMs) {
  const probe = 20000;
  pbkdf2Sync(probe); // warm the code path
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = now();
    pbkdf2Sync(probe);
    best = Math.min(best, now() - t);
  }
  return { iterations: Math.max(1000, Math.round((probe * jobMs) / best)), msPer10k: (best * 10000) / probe };
}

// threads counts this process's threads by name, from /proc/self/task. libuv names its pool
// threads "libuv-worker" from version 1.50 on; older ones inherit the process's name. Where there
// is no /proc (macOS), ps -M lists the process's threads, a line each after its header, without
// their names: they count under "?".
function threads() {
  if (process.platform !== 'linux') {
    const out = require('child_process').execFileSync('ps', ['-M', '-p', String(process.pid)], { encoding: 'utf8' });
    const total = out.trim().split('\n').length - 1;
    return { total, byName: { '?': total } };
  }
  const byName = {};
  const tasks = fs.readdirSync('/proc/self/task');
  for (const t of tasks) {
    let name = '?';
    try {
      name = fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
    } catch {
      // the thread ended between readdir and read
    }
    byName[name] = (byName[name] || 0) + 1;
  }
  return { total: tasks.length, byName };
}

// statOnce queues one tiny pool job and resolves with its completion time.
function statOnce(path = __filename) {
  return new Promise((resolve, reject) => fs.stat(path, (err) => (err ? reject(err) : resolve(now()))));
}

// loopSampler measures how long the event loop was blocked: a timer re-armed every intervalMs
// records the gaps between its runs; a gap longer than the interval is time the loop could not
// run anything. stop() returns the longest gap minus the interval, and the sample count.
function loopSampler(intervalMs = 1) {
  let last = now();
  let maxGap = 0;
  let samples = 0;
  let timer;
  const tick = () => {
    const t = now();
    maxGap = Math.max(maxGap, t - last);
    last = t;
    samples++;
    timer = setTimeout(tick, intervalMs);
  };
  timer = setTimeout(tick, intervalMs);
  return {
    stop() {
      clearTimeout(timer);
      const t = now();
      maxGap = Math.max(maxGap, t - last); // a block still running when stopped counts too
      return { blockedMs: Math.max(0, maxGap - intervalMs), samples, intervalMs, method: 'timer-drift' };
    },
  };
}

// logText is `bytes` of deterministic log-like text: it compresses about as much as real logs.
function logText(bytes) {
  const words = ['GET', 'POST', '/api/items', '/health', '200', '404', 'user', 'order', 'latency', 'ms', 'ok', 'retry'];
  let seed = 42;
  const parts = [];
  let size = 0;
  while (size < bytes) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const w = `${words[seed % words.length]}=${seed % 100000} `;
    parts.push(w);
    size += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

// sleep resolves after ms on the loop's timers.
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

module.exports = { BadParam, intParam, now, pbkdf2, pbkdf2Sync, calibrate, threads, statOnce, loopSampler, sleep, logText, PBKDF2 };
