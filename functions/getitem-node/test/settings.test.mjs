// settings.mjs: every setting read from the environment and checked; a missing or wrong one
// throws an error that names it, as Init must report it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { defaultWarmupTimeoutMs, loadSettings, parseKey, pemCertificates } from "../settings.mjs";
import { loopbackCertificate } from "./loopback-cert.mjs";

/** certFile is a PEM file of one certificate (loopback-cert.mjs's). */
const { certFile } = loopbackCertificate();

/** good is a complete, valid environment; each case below changes one setting of it. */
const good = { CLAIMS_VARIANT: "cold", CLAIMS_TABLE: "bench", CLAIMS_KEY: '{"pk":"bench","sk":"item-0"}' };

test("every setting is read, with its default when unset", () => {
  assert.deepEqual(loadSettings(good), {
    variant: "cold",
    table: "bench",
    caFile: "",
    ca: undefined,
    warmupTimeoutMs: defaultWarmupTimeoutMs,
    warmupOutage: "",
    key: { pk: { S: "bench" }, sk: { S: "item-0" } },
  });
  assert.equal(defaultWarmupTimeoutMs, 1000);

  const s = loadSettings({
    ...good,
    CLAIMS_VARIANT: "warm",
    CLAIMS_WARMUP_TIMEOUT_MS: "250",
    CLAIMS_WARMUP_OUTAGE: "stalled",
    CLAIMS_CA_FILE: certFile,
  });
  assert.equal(s.variant, "warm");
  assert.equal(s.warmupTimeoutMs, 250);
  assert.equal(s.warmupOutage, "stalled");
  assert.equal(s.caFile, certFile);
  assert.match(s.ca, /^-----BEGIN CERTIFICATE-----\n/);
  assert.equal(pemCertificates(s.ca), 1);
  assert.equal(loadSettings({ ...good, CLAIMS_WARMUP_OUTAGE: "refused" }).warmupOutage, "refused");
  assert.equal(loadSettings({ ...good, CLAIMS_WARMUP_TIMEOUT_MS: "+7" }).warmupTimeoutMs, 7);
});

test("CLAIMS_KEY: a string is an S, a number an N kept as written", () => {
  assert.deepEqual(parseKey('{"pk":"bench","n":1.50,"big":12345678901234567890,"e":-1e3,"s":"7"}'), {
    pk: { S: "bench" },
    n: { N: "1.50" },
    big: { N: "12345678901234567890" },
    e: { N: "-1e3" },
    s: { S: "7" },
  });
  assert.deepEqual(loadSettings({ ...good, CLAIMS_KEY: '{"id":42}' }).key, { id: { N: "42" } });
});

test("a missing or wrong setting throws, naming it", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "getitem-node-settings-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const notPem = join(dir, "not.pem");
  writeFileSync(notPem, "no certificate here\n");

  // [setting, value (undefined: unset), what the message must also say]
  const cases = [
    ["CLAIMS_VARIANT", undefined, /want "cold" or "warm"/],
    ["CLAIMS_VARIANT", "Cold", /"Cold"/],
    ["CLAIMS_VARIANT", "", /want "cold" or "warm"/],
    ["CLAIMS_TABLE", undefined, /not set/],
    ["CLAIMS_TABLE", "", /not set/],
    ["CLAIMS_KEY", undefined, /not set/],
    ["CLAIMS_KEY", "pk=bench", /want a JSON object/],
    ["CLAIMS_KEY", '["bench"]', /want a JSON object/],
    ["CLAIMS_KEY", "null", /want a JSON object/],
    ["CLAIMS_KEY", '"bench"', /want a JSON object/],
    ["CLAIMS_KEY", "{}", /at least one attribute/],
    ["CLAIMS_KEY", '{"pk":true}', /"pk" is boolean/],
    ["CLAIMS_KEY", '{"pk":null}', /"pk" is null/],
    ["CLAIMS_KEY", '{"pk":["a"]}', /"pk" is an array/],
    ["CLAIMS_KEY", '{"pk":{"S":"a"}}', /"pk" is object/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "0", /positive number of milliseconds/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "-5", /"-5"/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "1.5", /"1.5"/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "1e3", /"1e3"/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "1s", /"1s"/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", " 100", /" 100"/],
    ["CLAIMS_WARMUP_TIMEOUT_MS", "9007199254740993", /positive number of milliseconds/],
    ["CLAIMS_WARMUP_OUTAGE", "down", /want "refused", "stalled" or unset/],
    ["CLAIMS_WARMUP_OUTAGE", "Refused", /"Refused"/],
    ["CLAIMS_CA_FILE", join(dir, "missing.pem"), /ENOENT/],
    ["CLAIMS_CA_FILE", notPem, /no PEM certificate/],
  ];
  for (const [name, value, also] of cases) {
    const env = { ...good };
    if (value === undefined) {
      delete env[name];
    } else {
      env[name] = value;
    }
    assert.throws(
      () => loadSettings(env),
      (err) => {
        assert.ok(err instanceof Error);
        assert.ok(err.message.startsWith(name), `${name} = ${JSON.stringify(value)}: message ${JSON.stringify(err.message)} does not start with the setting's name`);
        assert.match(err.message, also, `${name} = ${JSON.stringify(value)}`);
        return true;
      },
      `${name} = ${JSON.stringify(value)}: want an error`,
    );
  }
});

test("pemCertificates counts the certificates in PEM text", () => {
  const one = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  assert.equal(pemCertificates(""), 0);
  assert.equal(pemCertificates("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"), 0);
  assert.equal(pemCertificates(one), 1);
  assert.equal(pemCertificates(one + one + one), 3);
});
