'use strict';
// calibrate: the pbkdf2 iteration count that takes jobMs on one idle core. The Go tests
// calibrate once per runtime and pass the count to every trial, so all trials do the same work.
const { intParam, calibrate } = require('../lib');

module.exports = async function (params) {
  const jobMs = intParam(params, 'jobMs', 1, 10000);
  return { jobMs, ...calibrate(jobMs) };
};
