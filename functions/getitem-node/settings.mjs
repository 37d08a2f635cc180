// The function's configuration, from the environment (README.md lists every setting; they are
// functions/getitem's, read the same way).

import { readFileSync } from "node:fs";
import { outageRefused, outageStalled } from "./outage.mjs";

/** The variants, the values CLAIMS_VARIANT takes. */
export const variantCold = "cold";
export const variantWarm = "warm";

/** defaultWarmupTimeoutMs bounds the warm-up when CLAIMS_WARMUP_TIMEOUT_MS is unset: ten times
 * the article's warm-up and a tenth of Lambda's Init limit, as in functions/getitem. */
export const defaultWarmupTimeoutMs = 1000;

/** loadSettings reads and checks the configuration from env (process.env, or an object in
 * tests); a missing or wrong setting throws an error naming it. */
export function loadSettings(env) {
  const s = {
    variant: env.CLAIMS_VARIANT ?? "",
    table: env.CLAIMS_TABLE ?? "",
    caFile: env.CLAIMS_CA_FILE ?? "",
    ca: undefined,
    warmupTimeoutMs: defaultWarmupTimeoutMs,
    warmupOutage: env.CLAIMS_WARMUP_OUTAGE ?? "",
  };
  if (s.variant !== variantCold && s.variant !== variantWarm) {
    throw new Error(`CLAIMS_VARIANT = ${JSON.stringify(s.variant)}; want "${variantCold}" or "${variantWarm}"`);
  }
  if (s.table === "") {
    throw new Error("CLAIMS_TABLE is not set; want the table to read");
  }
  s.key = parseKey(env.CLAIMS_KEY ?? "");
  const timeout = env.CLAIMS_WARMUP_TIMEOUT_MS ?? "";
  if (timeout !== "") {
    const n = /^[+-]?\d+$/.test(timeout) ? Number(timeout) : NaN;
    if (!(n > 0) || !Number.isSafeInteger(n)) {
      throw new Error(`CLAIMS_WARMUP_TIMEOUT_MS = ${JSON.stringify(timeout)}; want a positive number of milliseconds`);
    }
    s.warmupTimeoutMs = n;
  }
  const o = s.warmupOutage;
  if (o !== "" && o !== outageRefused && o !== outageStalled) {
    throw new Error(`CLAIMS_WARMUP_OUTAGE = ${JSON.stringify(o)}; want "${outageRefused}", "${outageStalled}" or unset`);
  }
  if (s.caFile !== "") {
    s.ca = loadCAs(s.caFile);
  }
  return s;
}

/** parseKey turns CLAIMS_KEY, a JSON object such as {"pk":"bench","sk":"item-0"}, into a
 * GetItem key: a string is an S attribute, a number an N, kept as written (the reviver's source
 * text), as DynamoDB wants it and as functions/getitem keeps it. */
export function parseKey(v) {
  if (v === "") {
    throw new Error('CLAIMS_KEY is not set; want the item\'s key as JSON, {"pk":"bench"}');
  }
  let raw;
  try {
    raw = JSON.parse(v, (name, value, context) => {
      if (typeof value === "number") {
        return new NumberText(context?.source ?? String(value));
      }
      return value;
    });
  } catch (err) {
    throw new Error(`CLAIMS_KEY = ${JSON.stringify(v)}: ${err.message}; want a JSON object, {"pk":"bench"}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`CLAIMS_KEY = ${JSON.stringify(v)}; want a JSON object, {"pk":"bench"}`);
  }
  const names = Object.keys(raw);
  if (names.length === 0) {
    throw new Error(`CLAIMS_KEY = ${JSON.stringify(v)}; want at least one attribute`);
  }
  const key = {};
  for (const name of names) {
    const val = raw[name];
    if (typeof val === "string") {
      key[name] = { S: val };
    } else if (val instanceof NumberText) {
      key[name] = { N: val.text };
    } else {
      throw new Error(`CLAIMS_KEY = ${JSON.stringify(v)}: attribute ${JSON.stringify(name)} is ${val === null ? "null" : Array.isArray(val) ? "an array" : typeof val}; want a string or a number`);
    }
  }
  return key;
}

/** NumberText is a JSON number as written in CLAIMS_KEY. */
class NumberText {
  constructor(text) {
    this.text = text;
  }
}

/** pemCertificates counts the certificates in PEM text. */
export function pemCertificates(pem) {
  return (pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
}

/** loadCAs reads CLAIMS_CA_FILE, a PEM file of the CAs to trust instead of the roots. */
function loadCAs(path) {
  let pem;
  try {
    pem = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`CLAIMS_CA_FILE: ${err.message}`);
  }
  if (pemCertificates(pem) === 0) {
    throw new Error(`CLAIMS_CA_FILE = ${JSON.stringify(path)}: no PEM certificate in it`);
  }
  return pem;
}
