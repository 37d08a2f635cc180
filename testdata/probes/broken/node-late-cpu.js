'use strict';
// Broken probe: every /cpu is taken up 300 ms after it arrives, as behind a queue, so each /ping
// reaches the probe before its /cpu and no trial is evidence: W2 and W3 come out inconclusive,
// neither pass nor fail (cmd/history's tests: an inconclusive verdict is never a flip).
require('../node/index.js').start({ cpuDelayMs: 300 });
