'use strict';
// The pool's size, three ways: slots counts its slots by ordering, poolThreads its threads, and
// waves shows when equal jobs end, the article's timing view.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { intParam, now, pbkdf2, sleep, statOnce, threads } = require('../lib');

// slots: count the pool's slots by ordering, not by time. Round k starts k jobs that each hold a
// slot without using the CPU (an fs.open of a FIFO that no one writes, which blocks in open(2)),
// then one fs.stat. While a slot is free the stat completes at once; when every slot is held it
// waits in the queue, and completes only after the held jobs are let go, holdMs later. The
// smallest k whose stat completes after the release is the slot count. Holding without CPU keeps
// the stat's thread and the loop from competing with the holders for the machine's cores.
async function slots(params) {
  const maxJobs = intParam(params, 'maxJobs', 1, 64);
  const holdMs = intParam(params, 'holdMs', 10, 10_000);
  const fifo = path.join(process.cwd(), `slots-${process.pid}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const rounds = [];
  let count = null;
  try {
    for (let k = 1; k <= maxJobs; k++) {
      const r = await round(k, fifo, holdMs);
      rounds.push(r);
      if (r.statWaited) {
        count = k;
        break;
      }
    }
  } finally {
    fs.unlinkSync(fifo);
  }
  return { slots: count, rounds, threads: threads(), uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null };
}

// round is slots' round k: k holders on fifo, then one stat.
async function round(k, fifo, holdMs) {
  const held = [];
  for (let i = 0; i < k; i++) held.push(hold(fifo));
  let statAt = null;
  const stat = statOnce().then((t) => (statAt = t));
  await Promise.race([stat, sleep(holdMs)]);
  // Let every holder go: a writer's open completes the readers' opens, and a holder still queued
  // finds the writer there when its turn comes.
  const released = now();
  const writer = fs.openSync(fifo, 'w');
  const opened = await Promise.all(held);
  fs.closeSync(writer);
  for (const o of opened) fs.closeSync(o.fd);
  await stat;
  return {
    jobs: k,
    heavyDoneBeforeStat: opened.filter((o) => o.at <= statAt).length,
    statWaited: statAt >= released,
  };
}

// hold starts one pool job that blocks in open(2) on fifo until a writer opens it, and resolves
// with its fd and the time the open completed.
function hold(fifo) {
  return new Promise((resolve, reject) =>
    fs.open(fifo, 'r', (err, fd) => (err ? reject(err) : resolve({ fd, at: now() }))));
}

// poolThreads: how many threads the pool really has, from /proc/self/task: the threads before
// the first pool job (which creates the pool) and after it completed.
async function poolThreads() {
  const before = threads();
  await statOnce();
  const after = threads();
  return { before, after, poolThreads: after.total - before.total, uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null };
}

// waves: start `jobs` equal pbkdf2 jobs at once and report when each ended, in ms after the
// start, in the order they ended.
async function waves(params) {
  const jobs = intParam(params, 'jobs', 1, 1024);
  const iterations = intParam(params, 'iterations', 1000, 10_000_000);
  await statOnce(); // create the pool first, so thread start-up is not in the first wave
  const start = now();
  const ends = await Promise.all(Array.from({ length: jobs }, () => pbkdf2(iterations)));
  return { jobs, iterations, endsMs: ends.map((e) => e - start).sort((a, b) => a - b) };
}

module.exports = { slots, poolThreads, waves };
