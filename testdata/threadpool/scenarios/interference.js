'use strict';
// interference: one fs.readFile's latency alone and while unrelated work is in flight: async
// zlib.gzip jobs (P6), dns.lookup calls, and the same number of dns.resolve4 calls, which the
// docs say do not use the pool (P7). Each trial runs the four conditions in turn, so drift on the
// machine hits them alike. For each, the lab records the read's latency and how many of the
// load's calls had completed when the read did: the order of callbacks on the one loop thread.
//
// The test makes names slow to resolve, as a resolver some way off would: dns.lookup's
// getaddrinfo sleeps in the pool thread (LD_PRELOAD slowdns/slowgai.so, SLOWGAI_MS), and the
// test's DNS server holds its answers to dns.resolve4 as long.
const dns = require('dns');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { BadParam, intParam, now, sleep, logText } = require('../lib');

function readFile(file) {
  const t = now();
  return new Promise((resolve, reject) => fs.readFile(file, (err) => (err ? reject(err) : resolve({ t, done: now() }))));
}

// gzipOnce compresses input as zlib.gzip does (one stream, ended with all its input) and, once the
// stream has ended, resolves with when its compression job handed its output back to the loop:
// from then its slot is free. The stream ends one pool job later (Z_FINISH on no input), a job
// queued behind the read; since Node 26.8.0, an fs.readFile of a small file is itself one pool job
// (open, fstat, read and close together) and completes before that last job, where the four jobs
// it took before did not.
function gzipOnce(input, options) {
  return new Promise((resolve, reject) => {
    const gz = zlib.createGzip(options);
    let outputAt;
    gz.on('data', () => {
      outputAt ??= now();
    });
    gz.on('error', reject);
    gz.on('end', () => resolve(outputAt ?? now()));
    gz.end(input);
  });
}

// underLoad starts `count` calls of load, lets them settle into the pool for settleMs, then
// reads; it resolves when everything has completed. Each load resolves with when it gave its
// slot back (a gzip: its output; a name: its callback), which loadDoneBeforeRead counts against
// the read's end: both on the loop, in the order their callbacks ran.
async function underLoad(file, count, load, settleMs) {
  const loads = Array.from({ length: count }, () => load());
  if (count > 0) await sleep(settleMs);
  const read = await readFile(file);
  const ends = await Promise.all(loads);
  return {
    readMs: read.done - read.t,
    loadDoneBeforeRead: ends.filter((e) => e <= read.done).length,
    loadCalls: count,
  };
}

function checkDir(params) {
  if (typeof params.dir !== 'string' || !path.isAbsolute(params.dir)) {
    throw new BadParam(`dir = ${JSON.stringify(params.dir)}: want an absolute folder path`);
  }
  if (typeof params.dnsServer !== 'string' || !/^127\.\d+\.\d+\.\d+:\d+$/.test(params.dnsServer)) {
    throw new BadParam(`dnsServer = ${JSON.stringify(params.dnsServer)}: want a loopback host:port`);
  }
}

module.exports = async function (params) {
  const trials = intParam(params, 'trials', 1, 1000);
  const gzipJobs = intParam(params, 'gzipJobs', 1, 1024);
  const gzipBytes = intParam(params, 'gzipBytes', 1024, 64 << 20);
  // 0 keeps zlib's default 16 KiB output chunks, each its own pool job; a chunk as large as the
  // output makes each gzip one pool job that holds its slot from start to end.
  const gzipChunkBytes = intParam(params, 'gzipChunkBytes', 0, 128 << 20, 0);
  const gzipOptions = gzipChunkBytes > 0 ? { chunkSize: gzipChunkBytes } : {};
  const names = intParam(params, 'names', 1, 10000);
  const settleMs = intParam(params, 'settleMs', 0, 1000);
  checkDir(params);
  const file = path.join(params.dir, 'read-me.txt');
  fs.writeFileSync(file, 'x'.repeat(64 << 10));
  const input = logText(gzipBytes);
  const resolver = new dns.Resolver({ timeout: 10000, tries: 1 });
  resolver.setServers([params.dnsServer]);
  const done = (resolve, reject) => (err) => (err ? reject(err) : resolve(now()));

  const conditions = {
    alone: () => underLoad(file, 0, null, settleMs),
    gzip: () => underLoad(file, gzipJobs, () => gzipOnce(input, gzipOptions), settleMs),
    lookup: () => underLoad(file, names, () => new Promise((ok, no) => dns.lookup('localhost', { family: 4 }, done(ok, no))), settleMs),
    resolve4: () => underLoad(file, names, () => new Promise((ok, no) => resolver.resolve4('svc.test', done(ok, no))), settleMs),
  };
  await readFile(file); // create the pool and warm the path before the first trial
  const t = now();
  await new Promise((ok, no) => dns.lookup('localhost', { family: 4 }, done(ok, no)));
  const lookupMs = now() - t;
  const out = [];
  for (let i = 0; i < trials; i++) {
    const trial = {};
    for (const [name, run] of Object.entries(conditions)) trial[name] = await run();
    out.push(trial);
  }
  return { gzipJobs, gzipBytes, gzipChunkBytes, names, settleMs, oneLookupMs: lookupMs, trials: out };
};
