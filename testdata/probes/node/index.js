'use strict';
// The Node.js probe of the claims repository: an HTTP/1.1 server that follows the probe protocol
// in docs/protocol.md, so the event-loop experiments can ask whether a CPU-bound request stalls
// the others in one Node process. It has no npm dependencies and runs unchanged as a Lambda Web
// Function's index.js: it binds AWS_LAMBDA_HTTP_ENDPOINT (host:port) when set, else 127.0.0.1:0,
// and prints one line `READY {json}` when it listens.
//
//   GET /ping                   answers at once
//   GET /cpu?ms=N               spins the CPU for N ms on the event loop, in JavaScript
//   GET /cpu?ms=N&mode=worker   the same spin in a worker_threads worker (claim W11)
//   GET /cpu?ms=N&mode=pbkdf2   an async crypto.pbkdf2 call sized to about N ms (claim W11)
//
// Every JSON answer carries envId, pid, receivedAt and finishedAt, the last two in milliseconds
// on this process's monotonic clock (performance.now()), so two answers of one process compare.
const crypto = require('node:crypto');
const http = require('node:http');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { Worker } = require('node:worker_threads');

const MAX_SPIN_MS = 60000; // one request may hold the probe for a minute at most
const MODES = ['spin', 'worker', 'pbkdf2'];
const envId = crypto.randomBytes(8).toString('hex');

// spin busy-waits for ms milliseconds in plain JavaScript: no timer, no built-in async API, so
// nothing else can run on this thread until it returns.
function spin(ms) {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x++;
  return x;
}

// The worker pool for mode=worker: a worker runs one spin at a time and is kept for the next.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
${spin.toString()}
parentPort.on('message', (ms) => parentPort.postMessage(spin(ms)));
`;
const idleWorkers = [];
function spinInWorker(ms) {
  const worker = idleWorkers.pop() || new Worker(WORKER_SOURCE, { eval: true });
  return new Promise((resolve, reject) => {
    const onError = (err) => reject(err);
    worker.once('error', onError);
    worker.once('message', () => {
      worker.off('error', onError);
      idleWorkers.push(worker);
      resolve();
    });
    worker.postMessage(ms);
  });
}

// pbkdf2 iterations per millisecond, measured once at start with the Sync call (harmless at
// start-up, claim P10); the fastest of three rounds, since a busy machine only slows a round.
const PBKDF2 = { digest: 'sha256', keylen: 32, salt: 'claims-probe' };
function calibratePbkdf2() {
  const iterations = 20000;
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    crypto.pbkdf2Sync('probe', PBKDF2.salt, iterations, PBKDF2.keylen, PBKDF2.digest);
    best = Math.min(best, performance.now() - t0);
  }
  return Math.max(1, Math.round(iterations / best));
}
let pbkdf2ItersPerMs = 0;

function pbkdf2For(ms) {
  return new Promise((resolve, reject) => {
    crypto.pbkdf2('probe', PBKDF2.salt, ms * pbkdf2ItersPerMs, PBKDF2.keylen, PBKDF2.digest,
      (err) => (err ? reject(err) : resolve()));
  });
}

class BadRequest extends Error {}

// cpuParams reads and checks /cpu's query: ms an integer from 1 to MAX_SPIN_MS, mode one of MODES.
function cpuParams(query) {
  const ms = query.getAll('ms');
  if (ms.length !== 1) throw new BadRequest(`ms is required once: an integer from 1 to ${MAX_SPIN_MS}`);
  if (!/^[0-9]+$/.test(ms[0]) || Number(ms[0]) < 1 || Number(ms[0]) > MAX_SPIN_MS) {
    throw new BadRequest(`ms = ${JSON.stringify(ms[0])}: want an integer from 1 to ${MAX_SPIN_MS}`);
  }
  const mode = query.get('mode') ?? 'spin';
  if (!MODES.includes(mode)) {
    throw new BadRequest(`mode = ${JSON.stringify(mode)}: want one of ${MODES.join(', ')}`);
  }
  return { ms: Number(ms[0]), mode };
}

function answer(res, status, body, receivedAt) {
  const json = JSON.stringify({
    ...body, envId, pid: process.pid, receivedAt, finishedAt: performance.now(),
  });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(json + '\n');
}

// start runs the probe. Options exist only to build deliberately broken probes for the
// experiments' sensitivity tests (testdata/probes/broken/): forceCpuMode runs every /cpu in that
// mode whatever the query says, pingDelayMs makes /ping answer late, and cpuDelayMs takes up
// every /cpu only that long after it arrived, as a server with a queue in front would.
function start(options = {}) {
  const { forceCpuMode, pingDelayMs = 0, cpuDelayMs = 0 } = options;
  pbkdf2ItersPerMs = calibratePbkdf2();

  const server = http.createServer(async (req, res) => {
    let receivedAt = performance.now();
    const url = new URL(req.url, 'http://probe');
    if (cpuDelayMs > 0 && url.pathname === '/cpu') {
      await new Promise((r) => setTimeout(r, cpuDelayMs));
      receivedAt = performance.now();
    }
    try {
      if (req.method !== 'GET') {
        return answer(res, 405, { error: `method ${req.method} is not allowed: the probe serves GET` }, receivedAt);
      }
      if (url.pathname === '/ping') {
        if (pingDelayMs > 0) await new Promise((r) => setTimeout(r, pingDelayMs));
        return answer(res, 200, { path: '/ping' }, receivedAt);
      }
      if (url.pathname === '/cpu') {
        const { ms, mode: asked } = cpuParams(url.searchParams);
        const mode = forceCpuMode || asked;
        if (mode === 'spin') spin(ms);
        else if (mode === 'worker') await spinInWorker(ms);
        else await pbkdf2For(ms);
        return answer(res, 200, { path: '/cpu', ms, mode }, receivedAt);
      }
      return answer(res, 404, {
        error: `no route for ${url.pathname}: the probe serves GET /ping and GET /cpu?ms=N[&mode=${MODES.join('|')}]`,
      }, receivedAt);
    } catch (err) {
      if (err instanceof BadRequest) return answer(res, 400, { error: err.message }, receivedAt);
      console.error(`probe: ${req.url}: ${err.stack || err}`);
      return answer(res, 500, { error: String(err.message || err) }, receivedAt);
    }
  });
  // A request that is not even HTTP gets a JSON 400 too, and the probe stays up.
  server.on('clientError', (err, socket) => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify({ error: `bad request: ${err.code || err.message}`, envId, pid: process.pid });
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });

  const { host, port } = listenAddress(process.env.AWS_LAMBDA_HTTP_ENDPOINT);
  server.listen(port, host, () => {
    const a = server.address();
    const addr = a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    console.log('READY ' + JSON.stringify({
      addr, envId, pid: process.pid, runtime: 'node', version: process.version,
      openssl: process.versions.openssl, uv: process.versions.uv,
      uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
      availableParallelism: os.availableParallelism(),
      pbkdf2ItersPerMs, forceCpuMode: forceCpuMode ?? null, pingDelayMs,
    }));
  });
  return server;
}

// listenAddress splits AWS_LAMBDA_HTTP_ENDPOINT ("host:port", "[v6]:port"); unset means loopback
// on a port the kernel picks.
function listenAddress(endpoint) {
  if (!endpoint) return { host: '127.0.0.1', port: 0 };
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(endpoint);
  if (!m) {
    console.error(`probe: AWS_LAMBDA_HTTP_ENDPOINT = ${JSON.stringify(endpoint)}: want host:port`);
    process.exit(2);
  }
  return { host: m[1], port: Number(m[2]) };
}

module.exports = { start };
if (require.main === module) start();
