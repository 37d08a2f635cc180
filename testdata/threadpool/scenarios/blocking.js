'use strict';
// blocking: the same work done the Sync way and the async way (or, for JSON.parse, which has no
// async form, the one way), each timed from call to result ("work", and the CPU it cost) while a timer-drift sampler
// measures the longest time the loop could not run ("blocked"; see lib.loopSampler).
//
//   op pbkdf2: crypto.pbkdf2Sync against crypto.pbkdf2, `iterations` each (P1)
//   op gzip:   zlib.gzipSync against zlib.gzip, on `bytes` of log-like text (P9)
//   op json:   JSON.parse of a generated document of `bytes` (P8)
//
// LAB_BROKEN=sync-off-loop runs the "sync" work in a worker thread instead: a stand-in for a
// runtime where those calls did not block, which the claim tests must catch.
const zlib = require('zlib');
const { Worker } = require('worker_threads');
const { BadParam, intParam, now, pbkdf2, pbkdf2Sync, loopSampler, sleep, logText, PBKDF2 } = require('../lib');

// settleMs lets the sampler tick before and after the work, so the gap around it is seen whole.
const settleMs = 20;

// cpuMs is the CPU time the whole process was charged (every thread: the loop's and the pool's),
// which another process on the machine cannot inflate the way it can the time from call to result.
async function measure(work) {
  const sampler = loopSampler(1);
  await sleep(settleMs);
  const t = now();
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  const workMs = now() - t;
  await sleep(settleMs);
  return { workMs, cpuMs: (used.user + used.system) / 1000, ...sampler.stop() };
}

// jsonDocument is a JSON text of about `bytes`: an array of small records, like an API response.
function jsonDocument(bytes) {
  const records = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const r = JSON.stringify({ id: i, name: `item-${i}`, tags: ['a', 'b', `t${i % 97}`], price: (i * 7.31) % 1000, active: i % 3 === 0, owner: { id: i % 1000, region: 'ap-northeast-1' } });
    records.push(r);
    size += r.length + 1;
  }
  return `[${records.join(',')}]`;
}

// offLoop runs fn(arg) in a worker thread (the broken mode).
function offLoop(source, arg) {
  return new Promise((resolve, reject) => {
    const w = new Worker(`const { parentPort, workerData } = require('worker_threads'); parentPort.postMessage((${source})(workerData));`, { eval: true, workerData: arg });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

const broken = process.env.LAB_BROKEN === 'sync-off-loop';

module.exports = async function (params) {
  const reps = intParam(params, 'reps', 1, 1000, 1);
  const out = { op: params.op, reps, broken: broken ? 'sync-off-loop' : undefined, runs: [] };
  const prepared = prepare(params, out);
  for (let i = 0; i < reps; i++) out.runs.push(await prepared());
  return out;
};

// prepare checks the parameters, makes the input once, and returns one measurement's function.
function prepare(params, out) {
  const op = params.op;
  switch (op) {
    case 'pbkdf2': {
      const iterations = intParam(params, 'iterations', 1000, 10_000_000);
      out.iterations = iterations;
      return async () => ({
        sync: await measure(async () => {
          if (broken) {
            return offLoop(`(a) => { require('crypto').pbkdf2Sync(a.password, a.salt, a.iterations, a.keylen, a.digest); return 0; }`, { ...PBKDF2, iterations });
          }
          pbkdf2Sync(iterations);
        }),
        async: await measure(() => pbkdf2(iterations)),
      });
    }
    case 'gzip': {
      const bytes = intParam(params, 'bytes', 1024, 256 << 20);
      const input = logText(bytes);
      out.bytes = bytes;
      return async () => {
        const sizes = {};
        const sync = await measure(async () => {
          if (broken) {
            sizes.sync = await offLoop(`(b) => require('zlib').gzipSync(b).length`, input);
            return;
          }
          sizes.sync = zlib.gzipSync(input).length;
        });
        const async = await measure(() => new Promise((resolve, reject) =>
          zlib.gzip(input, (err, z) => (err ? reject(err) : resolve((sizes.async = z.length))))));
        return { sync, async, compressedBytes: sizes };
      };
    }
    case 'json': {
      const bytes = intParam(params, 'bytes', 1024, 256 << 20);
      const doc = jsonDocument(bytes);
      out.bytes = Buffer.byteLength(doc);
      return async () => {
        let records = 0;
        const sync = await measure(async () => {
          if (broken) {
            records = await offLoop(`(s) => JSON.parse(s).length`, doc);
            return;
          }
          records = JSON.parse(doc).length;
        });
        return { sync, records };
      };
    }
    default:
      throw new BadParam(`op = ${JSON.stringify(op)}: want pbkdf2, gzip or json`);
  }
}
