'use strict';
// waves: the article's timing view. Start `jobs` equal pbkdf2 jobs at once and report when each
// ended, in ms after the start, in the order they ended.
const { intParam, pbkdf2, now, statOnce } = require('../lib');

module.exports = async function (params) {
  const jobs = intParam(params, 'jobs', 1, 1024);
  const iterations = intParam(params, 'iterations', 1000, 10_000_000);
  await statOnce(); // create the pool first, so thread start-up is not in the first wave
  const start = now();
  const ends = await Promise.all(Array.from({ length: jobs }, () => pbkdf2(iterations)));
  return { jobs, iterations, endsMs: ends.map((e) => e - start).sort((a, b) => a - b) };
};
