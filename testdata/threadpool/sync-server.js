'use strict';
// The sync-server of claim P10 ("a ...Sync call at start-up is harmless; the same call on the
// request path stalls every request"): an HTTP/1.1 server that reads one data file with
// fs.readFileSync either once before it listens or on every request. No npm dependencies; runs on
// Node 20 and 24. It binds AWS_LAMBDA_HTTP_ENDPOINT (host:port) when set, else 127.0.0.1:0, and
// prints one line `READY {json}` when it listens, as the probes do (harness/workload/protocol).
//
//   LAB_SYNC_AT=startup     readFileSync(LAB_FILE) once before listening; /work answers the
//                           cached length
//   LAB_SYNC_AT=request     every /work calls readFileSync(LAB_FILE) on the request path and
//                           answers its length
//   LAB_FILE=/abs/path      the data file
//   LAB_BROKEN=async-read   request mode reads with async fs.readFile instead: the broken variant
//                           the claim test must catch (the loop stays free between chunks)
//
//   GET /ping   answers at once
//   GET /work   answers {bytes, readMs} after the read (request mode) or from the cache (startup)
//
// Every JSON answer carries envId, pid, receivedAt and finishedAt, the last two in milliseconds
// on this process's monotonic clock (performance.now()), so two answers of one process compare.
// A setting that makes no sense prints a message on stderr and exits 2.
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const envId = crypto.randomBytes(8).toString('hex');

// fatal reports a bad setting and exits 2.
function fatal(msg) {
  process.stderr.write(`sync-server: ${msg}\n`);
  process.exit(2);
}

// settings reads and checks the environment.
function settings(env) {
  const syncAt = env.LAB_SYNC_AT;
  if (syncAt !== 'startup' && syncAt !== 'request') {
    fatal(`LAB_SYNC_AT = ${JSON.stringify(syncAt ?? null)}: want startup or request`);
  }
  const file = env.LAB_FILE;
  if (!file || !path.isAbsolute(file)) {
    fatal(`LAB_FILE = ${JSON.stringify(file ?? null)}: want the absolute path of a data file`);
  }
  const broken = env.LAB_BROKEN || '';
  if (broken !== '' && broken !== 'async-read') {
    fatal(`LAB_BROKEN = ${JSON.stringify(broken)}: want async-read or nothing`);
  }
  if (broken && syncAt !== 'request') {
    fatal(`LAB_BROKEN = ${JSON.stringify(broken)} changes only LAB_SYNC_AT=request`);
  }
  return { syncAt, file, broken };
}

// listenAddress splits AWS_LAMBDA_HTTP_ENDPOINT ("host:port", "[v6]:port"); unset means loopback
// on a port the kernel picks.
function listenAddress(endpoint) {
  if (!endpoint) return { host: '127.0.0.1', port: 0 };
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(endpoint);
  if (!m) fatal(`AWS_LAMBDA_HTTP_ENDPOINT = ${JSON.stringify(endpoint)}: want host:port`);
  return { host: m[1], port: Number(m[2]) };
}

function answer(res, status, body, receivedAt) {
  const json = JSON.stringify({
    ...body, envId, pid: process.pid, receivedAt, finishedAt: performance.now(),
  });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(json + '\n');
}

function main() {
  const { syncAt, file, broken } = settings(process.env);
  const mode = broken ? `request-${broken}` : syncAt;

  // startup: the one Sync call, before the server exists; no request can wait for it.
  let cached = null;
  let startupReadMs = null;
  if (syncAt === 'startup') {
    const t0 = performance.now();
    try {
      cached = fs.readFileSync(file).length;
    } catch (err) {
      fatal(`LAB_FILE = ${JSON.stringify(file)}: ${err.message}`);
    }
    startupReadMs = performance.now() - t0;
  } else {
    try {
      fs.accessSync(file, fs.constants.R_OK);
    } catch (err) {
      fatal(`LAB_FILE = ${JSON.stringify(file)}: ${err.message}`);
    }
  }

  // work answers the file's length: cached, read with the Sync call on the request path, or (the
  // broken variant) read with async fs.readFile.
  async function work() {
    if (syncAt === 'startup') return cached;
    if (!broken) return fs.readFileSync(file).length;
    const data = await fs.promises.readFile(file);
    return data.length;
  }

  const server = http.createServer(async (req, res) => {
    const receivedAt = performance.now();
    const url = new URL(req.url, 'http://sync-server');
    try {
      if (req.method !== 'GET') {
        return answer(res, 405, { error: `method ${req.method} is not allowed: the server serves GET` }, receivedAt);
      }
      if (url.pathname !== '/ping' && url.pathname !== '/work') {
        return answer(res, 404, { error: `no route for ${url.pathname}: the server serves GET /ping and GET /work` }, receivedAt);
      }
      if (url.search !== '') {
        return answer(res, 400, { error: `${url.pathname} takes no query; got ${url.search}` }, receivedAt);
      }
      if (url.pathname === '/ping') return answer(res, 200, { path: '/ping', mode }, receivedAt);
      const bytes = await work();
      return answer(res, 200, { path: '/work', mode, bytes, readMs: performance.now() - receivedAt }, receivedAt);
    } catch (err) {
      console.error(`sync-server: ${req.url}: ${err.stack || err}`);
      return answer(res, 500, { error: String(err.message || err) }, receivedAt);
    }
  });
  // A request that is not even HTTP gets a JSON 400 too, and the server stays up.
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
      syncAt, mode, broken: broken || null, startupBytes: cached, startupReadMs,
    }));
  });
  return server;
}

if (require.main === module) main();
