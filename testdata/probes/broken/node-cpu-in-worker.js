'use strict';
// Broken probe: every /cpu runs in a worker thread, so /ping never waits (breaks W2, W3).
require('../node/index.js').start({ forceCpuMode: 'worker' });
