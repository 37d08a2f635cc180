// outage.mjs: the warm-up's outage endpoints on loopback, opened, behaving as CLAIMS_WARMUP_OUTAGE
// documents them (refused at once; accepted and never answered), and closed by the test.

import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import tls from "node:tls";
import { setTimeout as sleep } from "node:timers/promises";

import { outageEndpoint, outageRefused, outageStalled } from "../outage.mjs";
import { heldOutage } from "./held-outage.mjs";

/** portOf is the port of an endpoint's URL, which must be https on loopback's 127.0.0.1. */
function portOf(url) {
  const m = /^https:\/\/127\.0\.0\.1:(\d+)$/.exec(url);
  assert.ok(m, `URL ${url}; want https://127.0.0.1:PORT`);
  const port = Number(m[1]);
  assert.ok(port > 0 && port < 65536, `port ${port}`);
  return port;
}

/** listeners counts the process's ref'd TCP servers, those that keep it up. */
function listeners() {
  return process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;
}

test("refused: the port is bound and closed again, and a connection to it is refused", async () => {
  const held = [];
  const port = portOf(await outageEndpoint(outageRefused, held));
  assert.deepEqual(held, [], "a refused endpoint holds nothing");
  const err = await new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      reject(new Error(`connected to ${port}; want refused`));
    });
    socket.once("error", resolve);
  });
  assert.equal(err.code, "ECONNREFUSED");
});

test("stalled: the connection is accepted, the TLS handshake never answered", async (t) => {
  const before = listeners();
  const { url, held } = await heldOutage(t, outageStalled);
  const port = portOf(url);
  assert.equal(held.length, 1);
  assert.ok(held[0] instanceof net.Server && held[0].listening, "the stall's server listens");
  assert.equal(held[0].address().port, port);
  assert.equal(listeners(), before, "the stall's server is unref'd: it must not keep the process up");

  const seen = [];
  const client = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
  t.after(() => client.destroy());
  client.on("connect", () => seen.push("connect"));
  client.on("secureConnect", () => seen.push("secureConnect"));
  client.on("data", () => seen.push("data"));
  client.on("end", () => seen.push("end"));
  client.on("close", () => seen.push("close"));
  client.on("error", (err) => seen.push(`error ${err.code}`));
  await sleep(300);
  assert.deepEqual(seen, ["connect"], "the TCP connect succeeds and then nothing comes back");
  assert.equal(held.length, 2, "the accepted connection is held");
  assert.ok(held[1] instanceof net.Socket && held[1].isPaused(), "the accepted connection is held paused");
  assert.equal(held[1].remotePort, client.localPort);
});

test("an unknown outage is refused, naming the setting", async () => {
  for (const how of ["", "down", "Stalled"]) {
    await assert.rejects(outageEndpoint(how, []), (err) => {
      assert.ok(err.message.startsWith(`CLAIMS_WARMUP_OUTAGE = ${JSON.stringify(how)}; want`), err.message);
      return true;
    });
  }
});
