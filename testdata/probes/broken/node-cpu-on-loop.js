'use strict';
// Broken probe: every /cpu spins on the event loop whatever its mode (breaks W11).
require('../node/index.js').start({ forceCpuMode: 'spin' });
