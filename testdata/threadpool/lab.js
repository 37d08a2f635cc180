'use strict';
// The threadpool lab: one measurement per run, chosen by the first argument, with its parameters
// as a JSON object in the second. It prints one line, `RESULT {...}`, and exits 0; a parameter
// that makes no sense exits 2 with a message naming it. No npm dependencies.
//
//   node lab.js calibrate '{"jobMs":150}'
//   node lab.js slots '{"maxJobs":9,"holdMs":200}'
//
// The Go tests in experiments/threadpool start it with UV_THREADPOOL_SIZE set in its
// environment (except the tests about setting it from inside, which use entry-set-inside.*).

// The scenarios, by the file that holds them (loaded only when chosen) and, where it holds
// several, the name it exports each by.
const scenarios = {
  calibrate: ['./scenarios/calibrate'],
  slots: ['./scenarios/pool', 'slots'],
  poolThreads: ['./scenarios/pool', 'poolThreads'],
  waves: ['./scenarios/pool', 'waves'],
  apiTable: ['./scenarios/api-table'],
  interference: ['./scenarios/interference'],
  blocking: ['./scenarios/blocking'],
};

const { BadParam } = require('./lib');

// main runs the scenario named by argv[0] with the JSON parameters in argv[1].
async function main(argv) {
  const [name, raw = '{}'] = argv;
  if (!Object.hasOwn(scenarios, name)) {
    throw new BadParam(`scenario ${JSON.stringify(name)}: want one of ${Object.keys(scenarios).join(', ')}`);
  }
  let params;
  try {
    params = JSON.parse(raw);
  } catch (err) {
    throw new BadParam(`parameters ${JSON.stringify(raw)}: not JSON (${err.message})`);
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new BadParam(`parameters ${JSON.stringify(raw)}: want a JSON object`);
  }
  const [file, exported] = scenarios[name];
  const mod = require(file);
  const result = await (exported ? mod[exported] : mod)(params);
  process.stdout.write(`RESULT ${JSON.stringify({ scenario: name, ...result })}\n`);
}

// exit reports err and ends the process: 2 for bad parameters, 1 for anything else.
function exit(err) {
  process.stderr.write(`lab: ${err instanceof BadParam ? err.message : (err && err.stack) || err}\n`);
  process.exit(err instanceof BadParam ? 2 : 1);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(() => process.exit(0), exit);
}

module.exports = { main, exit };
