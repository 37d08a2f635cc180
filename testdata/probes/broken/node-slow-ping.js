'use strict';
// Broken probe: /ping answers 20 ms late, 4% of the default spin (breaks W1's baseline, at most 1%).
require('../node/index.js').start({ pingDelayMs: 20 });
