'use strict';
// Broken probe: /ping answers 5 ms late (breaks W1's 1 ms loopback baseline).
require('../node/index.js').start({ pingDelayMs: 5 });
