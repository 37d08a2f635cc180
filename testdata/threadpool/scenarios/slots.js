'use strict';
// slots: count the pool's slots by ordering, not by time. Round k starts k equal pbkdf2 jobs and
// then one fs.stat. While a slot is free the stat runs at once and completes long before any
// pbkdf2; when all slots are taken it waits in the queue until a pbkdf2 finishes, so it completes
// after one. The smallest k whose stat completes after a pbkdf2 is the slot count.
const { intParam, pbkdf2, statOnce, threads } = require('../lib');

async function round(k, iterations) {
  const heavy = [];
  for (let i = 0; i < k; i++) heavy.push(pbkdf2(iterations));
  const stat = await statOnce();
  const ends = await Promise.all(heavy);
  const firstHeavy = Math.min(...ends);
  return {
    jobs: k,
    heavyDoneBeforeStat: ends.filter((e) => e <= stat).length,
    statWaited: firstHeavy <= stat,
  };
}

module.exports = async function (params) {
  const maxJobs = intParam(params, 'maxJobs', 1, 64);
  const iterations = intParam(params, 'iterations', 1000, 10_000_000);
  const rounds = [];
  let slots = null;
  for (let k = 1; k <= maxJobs; k++) {
    const r = await round(k, iterations);
    rounds.push(r);
    if (r.statWaited) {
      slots = k;
      break;
    }
  }
  return { slots, rounds, threads: threads(), uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null };
};
