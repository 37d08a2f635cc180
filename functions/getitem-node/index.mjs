// The cold-start claims' GetItem function (T1 to T6) in Node.js 24 with the AWS SDK for
// JavaScript v3, for Lambda's managed nodejs24.x runtime (handler index.handler): one DynamoDB
// GetItem per invocation, timed phase by phase on the SDK's own connection (trace.mjs), and
// answered as JSON, the answer of functions/getitem (results/family/getitem). README.md lists
// its settings, its variants and its broken builds.
//
// Init is this module's top level, which the runtime evaluates before its first /next: the
// settings, the client, and for the warm variant the warm-up. A missing or wrong setting
// throws here, so that the runtime reports an Init failure naming it (/runtime/init/error)
// rather than a function that fails on every invocation.

import { setImmediate as nextTurn } from "node:timers/promises";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import tls from "node:tls";

import { DynamoDBClient, GetItemCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { NodeHttpHandler } from "@smithy/node-http-handler";

import { attach } from "./attach.mjs";
import { measureInit } from "./init-measure.mjs";
import { outageEndpoint } from "./outage.mjs";
import { loadSettings, pemCertificates, variantWarm } from "./settings.mjs";
import { Tracer, TracingAgent, cpuMs, errorText, firstRoots, nowMs, phase } from "./trace.mjs";
import { warmupClient } from "./warmup-client.mjs";
import { failInitOnWarmupError } from "./warmup-policy.mjs";

// The function's first code: imports are evaluated before a module's body, so this is after
// every imported module (the SDK among them) was loaded and run, as functions/getitem's goStart
// is after every imported package's init.
const jsStart = nowMs();

/** maxSockets is the SDK's own default for the agent it makes when given none. */
const maxSockets = 50;

/** sdkPackage is the SDK's DynamoDB client's package, whose version the stack names. */
const sdkPackage = "@aws-sdk/client-dynamodb";

/** newHandler is the HTTP handler the SDK sends through: its own NodeHttpHandler, given a
 * keep-alive agent with the SDK's defaults that traces (trace.mjs) and, with CLAIMS_CA_FILE,
 * trusts only those CAs, so that the stand-in's certificate must verify against them alone.
 * throwOnRequestTimeout makes a requestTimeout (the warm-up's alone) an error rather than a
 * warning. */
function newHandler(s) {
  const options = { keepAlive: true, maxSockets };
  if (s.ca !== undefined) {
    options.ca = s.ca;
  }
  return new NodeHttpHandler({ httpsAgent: new TracingAgent(options), throwOnRequestTimeout: true });
}

/** newClient is a DynamoDB client with the SDK's defaults (region, credentials and
 * AWS_ENDPOINT_URL_DYNAMODB from the environment) sending through requestHandler, pointed at
 * endpoint when one is given. Nothing goes on the network here. */
function newClient(requestHandler, endpoint) {
  const config = { requestHandler };
  if (endpoint !== undefined) {
    config.endpoint = endpoint;
  }
  return new DynamoDBClient(config);
}

/** initialize is the function's Init: the client, and for the warm variant the warm-up. */
async function initialize(s) {
  const handler = newHandler(s);
  const client = newClient(handler);
  try {
    await client.config.region();
  } catch (err) {
    throw new Error(`no region: set AWS_REGION (${errorText(err)})`);
  }
  let warmup;
  if (s.variant === variantWarm) {
    let warmupOn = client;
    let endpoint;
    if (s.warmupOutage !== "") {
      endpoint = await outageEndpoint(s.warmupOutage);
      // The same handler, and so the same agent and pool: only the endpoint differs.
      warmupOn = newClient(handler, endpoint);
    }
    const another = () => newClient(newHandler(s), endpoint);
    warmup = await warmUp(warmupClient(warmupOn, another), s.warmupTimeoutMs);
  }
  return { client, warmup };
}

/** warmUp makes the article's warm-up call, ListTables with Limit 1, which needs no table and
 * leaves the SDK's connection in its agent's pool for the handler. Its error is returned, not
 * thrown: the caller must not fail Init over it (claim T4). The bound keeps a dead endpoint from
 * eating Init's 10 seconds: the call's abortSignal ends the request in flight and any retry,
 * requestTimeout ends a request that got no answer, and the race returns at the bound even
 * while the SDK sleeps between retries. */
async function warmUp(client, timeoutMs) {
  const tr = new Tracer();
  const ac = new AbortController();
  let timer;
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`no answer within CLAIMS_WARMUP_TIMEOUT_MS = ${timeoutMs}`);
      err.name = "TimeoutError";
      ac.abort(err);
      reject(err);
    }, timeoutMs);
  });
  const call = attach(tr, () =>
    client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: ac.signal, requestTimeout: timeoutMs }),
  );
  // Whichever loses the race settles later, unheard.
  call.catch(() => {});
  bound.catch(() => {});
  let err;
  try {
    await Promise.race([call, bound]);
  } catch (e) {
    err = errorText(e);
  } finally {
    clearTimeout(timer);
    tr.finish();
  }
  return { tr, err };
}

/** warmupResult is the warm-up as the handler reports it, read when the handler answers so that
 * an event that came late (the socket's return to the pool) is still seen; undefined for no
 * warm-up. */
function warmupResult(w) {
  if (w === undefined) {
    return undefined;
  }
  const p = w.tr.phases();
  p.error = w.err;
  return p;
}

const settings = loadSettings(process.env);
const fn = await initialize(settings);
if (fn.warmup?.err !== undefined) {
  if (failInitOnWarmupError) {
    throw new Error(`warm-up failed, failing Init (broken build brokenwarmup): ${fn.warmup.err}`);
  }
  // Reported, not fatal: a warm-up is an optimisation, and a failed Init is retried by Lambda at
  // the cost of a whole new Init (the article's point).
  console.error(`getitem: warm-up failed (ignored): ${fn.warmup.err}`);
}
const init = measureInit(jsStart);
phase.inInit = false;

let invocations = 0;

/**
 * handler is the Lambda handler: one GetItem, timed. It reads neither the event nor the
 * context. A failed GetItem is answered, with its phases and its error in "error", rather than
 * thrown: the phases of a call that failed are evidence too, and a Lambda error would carry
 * only the message.
 */
export async function handler() {
  const entered = nowMs();
  const enteredCpu = cpuMs();
  const n = ++invocations;
  const tr = new Tracer();
  let out;
  let err;
  try {
    out = await attach(tr, () => fn.client.send(new GetItemCommand({ TableName: settings.table, Key: settings.key })));
  } catch (e) {
    err = e;
  }
  tr.finish();
  // The agent learns the socket is free on a process.nextTick after the response's end, which
  // may follow the SDK's answer: one turn of the event loop lets it land.
  await nextTurn();
  const r = {
    ...tr.phases(),
    found: false,
    variant: settings.variant,
    invocation: n,
    initMs: init.ms,
    initFrom: init.from,
    initGoMs: init.jsMs,
    warmup: warmupResult(fn.warmup),
    pid: process.pid,
  };
  if (err !== undefined) {
    r.error = errorText(err);
  } else {
    r.found = out.Item !== undefined && Object.keys(out.Item).length > 0;
  }
  r.handlerMs = nowMs() - entered;
  r.handlerCpuMs = cpuMs() - enteredCpu;
  r.stack = stack();
  r.roots = rootsAnswer();
  return r;
}

let stackRead;

/** stack names the function's stack, read once, after the first call was timed. */
function stack() {
  if (stackRead === undefined) {
    let sdkVersion = "unknown";
    try {
      sdkVersion = createRequire(import.meta.url)(`${sdkPackage}/package.json`).version;
    } catch {
      // Named "unknown", as functions/getitem does without build information.
    }
    stackRead = {
      language: "node",
      languageVersion: process.version,
      sdk: sdkPackage,
      sdkVersion,
      tls: "OpenSSL",
      tlsVersion: process.versions.openssl,
      timed:
        "hooks of the https.Agent the SDK's NodeHttpHandler sends through, on the SDK's own requests and sockets: " +
        "addRequest (attempts, the TTFB's start), the new socket's 'lookup', 'connect' and 'secureConnect' events, " +
        "the socket's first 'data' (the TTFB's end), req.reusedSocket, the agent's 'free' and freeSockets (pooled); " +
        "CPU is process.cpuUsage(); the first connection's SecureContext (the root store's loading) is timed apart, as roots",
    };
  }
  return stackRead;
}

let rootsCount;

/** rootsAnswer is the first TLS connection's loading of the CAs, with how many there are:
 * CLAIMS_CA_FILE's, or Node's bundled roots and NODE_EXTRA_CA_CERTS's; undefined before any
 * TLS connection. Counted after the timing, once. */
function rootsAnswer() {
  const roots = firstRoots();
  if (roots === undefined) {
    return undefined;
  }
  if (rootsCount === undefined) {
    if (settings.ca !== undefined) {
      rootsCount = pemCertificates(settings.ca);
    } else {
      rootsCount = tls.rootCertificates.length;
      const extra = process.env.NODE_EXTRA_CA_CERTS;
      if (extra) {
        try {
          rootsCount += pemCertificates(readFileSync(extra, "utf8"));
        } catch {
          // Node warns and goes on without them; so does the count.
        }
      }
    }
  }
  return { ...roots, count: rootsCount };
}
