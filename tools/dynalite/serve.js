'use strict';
// Starts dynalite in memory on 127.0.0.1 at a port the kernel picks and prints one line,
// `READY {"addr":...}`, in the probe protocol's form (harness/workload/protocol), so the harness can wait
// for it like any probe. Plain HTTP: the harness puts TLS in front with a CA it makes at run time,
// because dynalite's bundled certificate expired in 2018.
const crypto = require('crypto');
const dynalite = require('dynalite');

// Tables become ACTIVE at once: the experiments create one before their trials.
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => {
  const { address, port } = server.address();
  const version = require('dynalite/package.json').version;
  console.log('READY ' + JSON.stringify({
    addr: `${address}:${port}`, envId: crypto.randomBytes(8).toString('hex'), pid: process.pid,
    runtime: 'dynalite', version,
  }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
