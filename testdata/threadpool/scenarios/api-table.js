'use strict';
// apiTable: for each API in Node's documented threadpool list, and for controls the docs say
// do not use the pool, saturate the pool with `heavyJobs` pbkdf2 jobs (one per slot), call the
// API once, and record whether it completed before the first pbkdf2 did. An API that needs a
// pool slot cannot complete until a pbkdf2 frees one; one that does not completes at once. The
// decision is the order of two callbacks on the one loop thread: no clock is compared.
const crypto = require('crypto');
const dns = require('dns');
const fs = require('fs');
const net = require('net');
const path = require('path');
const zlib = require('zlib');
const { BadParam, intParam, now, pbkdf2 } = require('../lib');

// cb turns a Node callback API into a promise of its completion time.
function cb(start) {
  return new Promise((resolve, reject) => start((err) => (err ? reject(err) : resolve(now()))));
}

// rows returns the APIs to check, each with what Node's docs (the UV_THREADPOOL_SIZE section of
// the CLI docs, and the dns docs for resolve*) say about it.
async function rows({ dir, dnsServer }) {
  const file = path.join(dir, 'data.txt');
  fs.writeFileSync(file, 'threadpool lab\n'.repeat(1000));
  const fd = fs.openSync(file, 'r');
  const resolver = new dns.Resolver({ timeout: 5000, tries: 1 });
  resolver.setServers([dnsServer]);

  // A connected loopback socket pair, made before the pool is saturated (IP literals: no lookup).
  const server = net.createServer();
  const accepted = new Promise((resolve) => server.once('connection', resolve));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect(server.address().port, '127.0.0.1');
  const peer = await accepted;

  // A watcher on the lab's folder: inotify, which the docs list as not using the pool.
  const watched = path.join(dir, 'watched');
  fs.mkdirSync(watched, { recursive: true });
  const watcher = fs.watch(watched);
  let touches = 0;

  const pool = 'uses the pool';
  const notPool = 'does not use the pool';
  const table = [
    { api: 'fs.stat', docs: pool, call: () => cb((k) => fs.stat(file, k)) },
    { api: 'fs.readFile', docs: pool, call: () => cb((k) => fs.readFile(file, k)) },
    { api: 'fs.read', docs: pool, call: () => cb((k) => fs.read(fd, Buffer.alloc(64), 0, 64, 0, k)) },
    { api: 'fs.readdir', docs: pool, call: () => cb((k) => fs.readdir(dir, k)) },
    { api: 'fs.promises.readFile', docs: pool, call: () => fs.promises.readFile(file).then(now) },
    { api: 'crypto.pbkdf2', docs: pool, call: () => cb((k) => crypto.pbkdf2('p', 's', 1, 32, 'sha256', k)) },
    { api: 'crypto.scrypt', docs: pool, call: () => cb((k) => crypto.scrypt('p', 's', 32, { N: 1024 }, k)) },
    { api: 'crypto.randomBytes', docs: pool, call: () => cb((k) => crypto.randomBytes(32, k)) },
    { api: 'crypto.randomFill', docs: pool, call: () => cb((k) => crypto.randomFill(Buffer.alloc(32), k)) },
    { api: 'crypto.generateKeyPair', docs: pool, call: () => cb((k) => crypto.generateKeyPair('ec', { namedCurve: 'P-256' }, k)) },
    { api: 'dns.lookup', docs: pool, call: () => cb((k) => dns.lookup('localhost', k)) },
    { api: 'zlib.gzip', docs: pool, call: () => cb((k) => zlib.gzip(Buffer.alloc(1024, 1), k)) },
    { api: 'zlib.inflate', docs: pool, call: () => cb((k) => zlib.inflate(zlib.deflateSync(Buffer.alloc(1024, 1)), k)) },
    { api: 'dns.resolve4', docs: notPool, call: () => cb((k) => resolver.resolve4('svc.test', k)) },
    {
      api: 'socket read', docs: notPool, call: () => new Promise((resolve) => {
        peer.once('data', () => resolve(now()));
        client.write('x');
      }),
    },
    { api: 'setTimeout', docs: notPool, call: () => new Promise((resolve) => setTimeout(() => resolve(now()), 5)) },
    {
      api: 'fs.watch event', docs: notPool, call: () => new Promise((resolve) => {
        watcher.once('change', () => resolve(now()));
        fs.writeFileSync(path.join(watched, `touch-${touches++}`), 'x');
      }),
    },
    { api: 'fs.readFileSync', docs: notPool, call: async () => { fs.readFileSync(file); return now(); } },
  ];
  const close = () => {
    watcher.close();
    client.destroy();
    peer.destroy();
    server.close();
    fs.closeSync(fd);
  };
  return { table, close };
}

module.exports = async function (params) {
  const heavyJobs = intParam(params, 'heavyJobs', 1, 1024);
  const iterations = intParam(params, 'iterations', 1000, 10_000_000);
  if (typeof params.dir !== 'string' || !path.isAbsolute(params.dir)) {
    throw new BadParam(`dir = ${JSON.stringify(params.dir)}: want an absolute folder path`);
  }
  if (typeof params.dnsServer !== 'string' || !/^127\.\d+\.\d+\.\d+:\d+$/.test(params.dnsServer)) {
    throw new BadParam(`dnsServer = ${JSON.stringify(params.dnsServer)}: want a loopback host:port`);
  }
  const { table, close } = await rows(params);
  const out = [];
  try {
    for (const row of table) {
      const heavy = Array.from({ length: heavyJobs }, () => pbkdf2(iterations));
      const t = now();
      const done = await row.call();
      const ends = await Promise.all(heavy);
      out.push({
        api: row.api,
        docs: row.docs,
        completedMs: done - t,
        heavyDoneBefore: ends.filter((e) => e <= done).length,
        waitedForSlot: Math.min(...ends) <= done,
      });
    }
  } finally {
    close();
  }
  return { heavyJobs, iterations, rows: out };
};
