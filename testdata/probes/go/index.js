'use strict';
// The Go probe's launcher, as the article deployed it on Lambda Web Functions: the Node.js
// runtime starts this file, which starts the Go binary as a child process. The child inherits
// the environment (so it binds AWS_LAMBDA_HTTP_ENDPOINT itself) and stdout (so its READY line is
// the launcher's). No HTTP passes through Node.
//
// The binary is GO_PROBE_BIN when set, else `probe` beside this file (the file a deployment zips).
const { spawn } = require('node:child_process');
const path = require('node:path');

const bin = process.env.GO_PROBE_BIN || path.join(__dirname, 'probe');
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', env: process.env });

child.on('error', (err) => {
  console.error(`launcher: cannot start ${bin}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) console.error(`launcher: ${bin} ended by ${signal}`);
  process.exit(code === null ? 1 : code);
});

// A launcher that dies must not leave its server behind: pass the ending signals on.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
