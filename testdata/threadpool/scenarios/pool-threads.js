'use strict';
// poolThreads: how many threads the pool really has, from /proc/self/task: the threads before
// the first pool job (which creates the pool) and after it completed.
const { statOnce, threads } = require('../lib');

module.exports = async function () {
  const before = threads();
  await statOnce();
  const after = threads();
  return { before, after, poolThreads: after.total - before.total, uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null };
};
