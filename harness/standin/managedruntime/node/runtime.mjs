// The stand-in of Lambda's managed nodejs24.x runtime, for the local platforms: what Lambda runs
// around a Node.js function's handler is AWS's runtime interface client, which this machine does
// not have, so this is a Runtime API loop in Node's standard library alone that does what AWS
// documents of the runtime and of the Runtime API (AWS's Runtime API reference, "Using the
// Lambda runtime API for custom runtimes", and the Node.js handler guide, "Define Lambda
// function handler in Node.js"):
//
//   - Init: it reads LAMBDA_TASK_ROOT and _HANDLER ("index.handler": the module, then the
//     export), imports the handler's module from the task root (MODULE.js, .mjs or .cjs, the
//     first that exists) and finds the exported function, all before its first
//     /invocation/next; a module that fails to load or throws, or no such function, is posted
//     to /runtime/init/error as {errorMessage, errorType} and the process exits non-zero;
//   - invocations, one at a time: GET /runtime/invocation/next, whose body is the event and
//     whose headers carry the request id (Lambda-Runtime-Aws-Request-Id), the deadline
//     (Lambda-Runtime-Deadline-Ms), the function's ARN, the X-Ray trace id (set as
//     _X_AMZN_TRACE_ID) and the client context and Cognito identity (JSON); the handler is
//     called with the event and a context object and its promise awaited; the value is posted
//     as JSON to /runtime/invocation/{id}/response, a throw or rejection as
//     {errorMessage, errorType, stackTrace} to /runtime/invocation/{id}/error with the
//     Lambda-Runtime-Function-Error-Type header;
//   - an error that escapes the handler's promise (uncaughtException, unhandledRejection) is
//     posted as the invocation's error, or as Init's, and the process exits non-zero, so that
//     Lambda starts a new environment.
//
// Not reproduced: callback-style handlers (the nodejs24.x runtime no longer takes them; this
// loop calls the handler with the event and context only), streaming responses, the console's
// per-line request-id prefixes and log levels, the telemetry and extensions APIs, and the
// runtime's own SDK in its NODE_PATH (a function that bundles the SDK, as functions/getitem-node
// does, never reaches it).
//
// The connection to the Runtime API is kept alive: the agent holds one socket, reused by every
// /next and answer, as the runtime interface client does.

import http from "node:http";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const api = process.env.AWS_LAMBDA_RUNTIME_API;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** call makes one Runtime API request and resolves to {status, headers, body}. */
function call(method, route, body, headers = {}) {
  const [host, port] = splitHostPort(api);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host, port, method, path: `/2018-06-01${route}`, agent, headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** splitHostPort splits AWS_LAMBDA_RUNTIME_API, host:port (an IPv6 host in brackets). */
function splitHostPort(addr) {
  const i = addr.lastIndexOf(":");
  let host = addr.slice(0, i);
  if (host.startsWith("[") && host.endsWith("]")) {
    host = host.slice(1, -1);
  }
  return [host, Number(addr.slice(i + 1))];
}

/** errorBody is an error as the Runtime API takes it. */
function errorBody(err, type) {
  const e = err instanceof Error ? err : new Error(String(err));
  return JSON.stringify({
    errorMessage: e.message,
    errorType: type ?? e.name ?? "Error",
    stackTrace: typeof e.stack === "string" ? e.stack.split("\n").slice(1).map((l) => l.trim()) : [],
  });
}

/** InitError is a failed Init, with the errorType the runtime reports it under. */
class InitError extends Error {
  constructor(type, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = type;
  }
}

/** failInit reports a failed Init to the Runtime API and ends the process. */
async function failInit(err) {
  const type = err instanceof InitError ? err.name : err?.name ?? "Error";
  console.error(`runtime: Init failed: ${type}: ${err?.message ?? err}`);
  if (err?.cause) {
    console.error(err.cause);
  }
  try {
    await call("POST", "/runtime/init/error", errorBody(err, type), { "Lambda-Runtime-Function-Error-Type": type });
  } catch (postErr) {
    console.error(`runtime: posting the Init error: ${postErr.message}`);
  }
  process.exit(1);
}

/** loadHandler is Init: the handler's module, imported from the task root, and its function. */
async function loadHandler() {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  const handlerName = process.env._HANDLER ?? "";
  if (!taskRoot) {
    throw new InitError("Runtime.InvalidEntrypoint", "LAMBDA_TASK_ROOT is not set");
  }
  const dot = handlerName.lastIndexOf(".");
  if (dot <= 0 || dot === handlerName.length - 1) {
    throw new InitError("Runtime.MalformedHandlerName", `_HANDLER = ${JSON.stringify(handlerName)}; want MODULE.FUNCTION, index.handler`);
  }
  const moduleName = handlerName.slice(0, dot);
  const exportName = handlerName.slice(dot + 1);
  const file = [".js", ".mjs", ".cjs"].map((ext) => path.resolve(taskRoot, moduleName + ext)).find((f) => existsSync(f));
  if (file === undefined) {
    throw new InitError("Runtime.ImportModuleError", `Cannot find module '${moduleName}' in ${taskRoot} (.js, .mjs or .cjs)`);
  }
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    if (err?.code === "ERR_MODULE_NOT_FOUND") {
      throw new InitError("Runtime.ImportModuleError", `Error: ${err.message}`, err);
    }
    if (err instanceof SyntaxError) {
      throw new InitError("Runtime.UserCodeSyntaxError", `${err.name}: ${err.message}`, err);
    }
    throw err;
  }
  const fn = mod[exportName] ?? mod.default?.[exportName];
  if (typeof fn !== "function") {
    throw new InitError("Runtime.HandlerNotFound", `${moduleName}.${exportName} is undefined or not exported`);
  }
  return fn;
}

/** current is the invocation under way, for an error that escapes the handler. */
let current;

/** escaped reports an error that escaped the handler's promise and ends the process. */
async function escaped(err) {
  console.error("runtime: uncaught:", err);
  if (current === undefined) {
    await failInit(err);
    return;
  }
  const id = current;
  current = undefined;
  try {
    await call("POST", `/runtime/invocation/${id}/error`, errorBody(err), { "Lambda-Runtime-Function-Error-Type": err?.name ?? "Error" });
  } catch (postErr) {
    console.error(`runtime: posting the error: ${postErr.message}`);
  }
  process.exit(1);
}

process.on("uncaughtException", escaped);
process.on("unhandledRejection", escaped);

/** parseJSONHeader reads a header holding JSON, undefined when absent or not JSON. */
function parseJSONHeader(v) {
  if (v === undefined) {
    return undefined;
  }
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/** context is the handler's context object for the invocation /next described. */
function context(headers) {
  const deadline = Number(headers["lambda-runtime-deadline-ms"]);
  const env = process.env;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: headers["lambda-runtime-invoked-function-arn"],
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: headers["lambda-runtime-aws-request-id"],
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    identity: parseJSONHeader(headers["lambda-runtime-cognito-identity"]),
    clientContext: parseJSONHeader(headers["lambda-runtime-client-context"]),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

/** loop takes invocations until the process is stopped. */
async function loop(handler) {
  for (;;) {
    const next = await call("GET", "/runtime/invocation/next");
    if (next.status !== 200) {
      throw new Error(`/runtime/invocation/next: status ${next.status}: ${next.body}`);
    }
    const id = next.headers["lambda-runtime-aws-request-id"];
    const trace = next.headers["lambda-runtime-trace-id"];
    if (trace !== undefined) {
      process.env._X_AMZN_TRACE_ID = trace;
    } else {
      delete process.env._X_AMZN_TRACE_ID;
    }
    current = id;
    let route;
    let body;
    let headers = {};
    try {
      const event = next.body === "" ? undefined : JSON.parse(next.body);
      const result = await handler(event, context(next.headers));
      route = `/runtime/invocation/${id}/response`;
      body = JSON.stringify(result === undefined ? null : result);
    } catch (err) {
      console.error(`runtime: invocation ${id} failed:`, err);
      route = `/runtime/invocation/${id}/error`;
      body = errorBody(err);
      headers = { "Lambda-Runtime-Function-Error-Type": err?.name ?? "Error" };
    }
    current = undefined;
    await call("POST", route, body, headers);
  }
}

if (!api) {
  console.error("runtime: AWS_LAMBDA_RUNTIME_API is not set; this is run by Lambda or its emulator");
  process.exit(1);
}
let handler;
try {
  handler = await loadHandler();
} catch (err) {
  await failInit(err);
}
await loop(handler);
