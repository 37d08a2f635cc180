// trace.mjs and attach.mjs: the phases of calls sent through a TracingAgent to an HTTPS server
// on loopback (127.0.0.1), as the SDK's NodeHttpHandler sends them: a new connection's phases,
// a pooled connection reused, retries counted, an untraced call unseen, and a connect refused
// or a handshake that never ends (outage.mjs's endpoints).
//
// The server's certificate is loopback-cert.mjs's, made for this run.

import { test } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { setImmediate as nextTurn } from "node:timers/promises";

import { attach } from "../attach.mjs";
import { attach as brokenAttach } from "../broken/brokentrace/attach.mjs";
import { outageEndpoint, outageRefused, outageStalled } from "../outage.mjs";
import { Tracer, TracingAgent, errorText, firstRoots } from "../trace.mjs";
import { heldOutage } from "./held-outage.mjs";
import { loopbackCertificate } from "./loopback-cert.mjs";

const { cert, key } = loopbackCertificate();

/** serve starts an HTTPS server on 127.0.0.1 answering "ok", on P-256 only so that the curve's
 * name is known, closed with the test; it resolves to its port and a count of its TLS
 * connections. */
async function serve(t) {
  const server = https.createServer({ key, cert, ecdhCurve: "prime256v1" }, (req, res) => {
    req.resume();
    res.end("ok");
  });
  const seen = { connections: 0 };
  server.on("secureConnection", () => seen.connections++);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  seen.port = server.address().port;
  return seen;
}

/** newAgent is the function's agent (index.mjs's newHandler), trusting the test's certificate
 * only, destroyed with the test. */
function newAgent(t) {
  const agent = new TracingAgent({ keepAlive: true, maxSockets: 50, ca: cert });
  t.after(() => agent.destroy());
  return agent;
}

/** get sends one GET through agent to 127.0.0.1:port and resolves to the answer's body. */
function get(agent, port) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve(body));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** traced runs call under attach with a new Tracer, as the handler does, and returns the
 * phases once the agent has had its turn to pool the socket; the call's error is returned in
 * error. */
async function traced(call, how = attach) {
  const tr = new Tracer();
  let error;
  try {
    await how(tr, call);
  } catch (err) {
    error = err;
  }
  tr.finish();
  await nextTurn();
  return { p: tr.phases(), error };
}

test("a new connection's phases, then the pooled connection reused", async (t) => {
  const srv = await serve(t);
  const agent = newAgent(t);
  assert.equal(firstRoots(), undefined, "no TLS connection yet");

  const first = await traced(() => get(agent, srv.port));
  assert.equal(first.error, undefined);
  const p = first.p;
  assert.equal(p.attempts, 1);
  assert.equal(p.reused, false);
  assert.equal(p.pooled, true, "a keep-alive socket goes back into the pool");
  assert.equal(p.dnsMs, 0, "no DNS for an IP literal");
  assert.ok(p.connectMs > 0, `connectMs ${p.connectMs}`);
  assert.ok(p.tlsMs > 0, `tlsMs ${p.tlsMs}`);
  assert.ok(p.ttfbMs > p.tlsMs, `ttfbMs ${p.ttfbMs}; want more than tlsMs ${p.tlsMs}`);
  assert.ok(p.totalMs >= p.ttfbMs, `totalMs ${p.totalMs}; ttfbMs ${p.ttfbMs}`);
  assert.ok(p.connectCpuMs >= 0 && p.tlsCpuMs >= 0);
  assert.equal(p.tlsVersion, "TLS 1.3");
  assert.match(p.cipherSuite, /^TLS_(AES_\d+_GCM_SHA\d+|CHACHA20_POLY1305_SHA256)$/);
  assert.equal(p.curve, "CurveP256", "OpenSSL's prime256v1, in Go's name");
  assert.equal(p.didResume, false);
  assert.equal(p.remoteAddr, `127.0.0.1:${srv.port}`);
  assert.equal(p.writeError, undefined);

  const roots = firstRoots();
  assert.equal(roots?.when, "init", "the first TLS connection, with index.mjs's phase.inInit not yet cleared");
  assert.ok(roots.ms > 0 && roots.cpuMs >= 0, JSON.stringify(roots));

  const second = await traced(() => get(agent, srv.port));
  assert.equal(second.error, undefined);
  const q = second.p;
  assert.equal(srv.connections, 1, "the second call must reuse the first's connection");
  assert.equal(q.attempts, 1);
  assert.equal(q.reused, true);
  assert.equal(q.pooled, true);
  assert.deepEqual([q.dnsMs, q.connectMs, q.tlsMs, q.connectCpuMs, q.tlsCpuMs], [0, 0, 0, 0, 0], "a reused socket has no handshake");
  assert.ok(q.ttfbMs > 0 && q.totalMs >= q.ttfbMs, `ttfbMs ${q.ttfbMs}, totalMs ${q.totalMs}`);
  // The negotiated state is read off the reused socket itself.
  assert.equal(q.tlsVersion, "TLS 1.3");
  assert.equal(q.cipherSuite, p.cipherSuite);
  assert.equal(q.curve, "CurveP256");
  assert.equal(q.remoteAddr, p.remoteAddr);
  assert.equal(firstRoots(), roots, "roots are the first connection's only");
});

test("every request of a call is an attempt; the phases are the last one's", async (t) => {
  const srv = await serve(t);
  const agent = newAgent(t);
  // Two requests in one call, as the SDK's retry makes them: the first opens the connection,
  // the second reuses it.
  const { p, error } = await traced(async () => {
    await get(agent, srv.port);
    return get(agent, srv.port);
  });
  assert.equal(error, undefined);
  assert.equal(p.attempts, 2);
  assert.equal(p.reused, true, "the last attempt's, not the first's");
  assert.equal(p.connectMs, 0);
  assert.equal(p.tlsMs, 0);
  assert.equal(srv.connections, 1);
});

test("a call run outside the tracer's context (brokentrace's attach) is not seen", async (t) => {
  const srv = await serve(t);
  const agent = newAgent(t);
  const { p, error } = await traced(() => get(agent, srv.port), brokenAttach);
  assert.equal(error, undefined);
  assert.equal(srv.connections, 1, "the request was made");
  assert.equal(p.attempts, 0);
  assert.deepEqual([p.connectMs, p.tlsMs, p.ttfbMs, p.reused, p.pooled, p.tlsVersion], [0, 0, 0, false, false, undefined]);
  assert.ok(p.totalMs > 0, "the call as a whole is still timed");
});

test("outages: a refused connect has no phases; a stalled handshake is timed to its close", async (t) => {
  const agent = newAgent(t);

  const refusedPort = Number(new URL(await outageEndpoint(outageRefused, [])).port);
  const refused = await traced(() => get(agent, refusedPort));
  assert.equal(refused.error?.code, "ECONNREFUSED");
  assert.equal(refused.p.attempts, 1);
  assert.deepEqual([refused.p.connectMs, refused.p.tlsMs, refused.p.ttfbMs, refused.p.remoteAddr], [0, 0, 0, undefined]);

  const { url } = await heldOutage(t, outageStalled);
  const giveUpMs = 200;
  const stalled = await traced(
    () =>
      new Promise((resolve, reject) => {
        const req = https.request(url, { agent }, resolve);
        // The call fails once its error is out and its socket closed (the handshake's end).
        let failed;
        let closed = false;
        req.once("socket", (socket) =>
          socket.once("close", () => {
            closed = true;
            if (failed) reject(failed);
          }),
        );
        req.on("error", (err) => {
          failed = err;
          if (closed) reject(err);
        });
        setTimeout(() => req.destroy(new Error("given up")), giveUpMs);
        req.end();
      }),
  );
  assert.equal(stalled.error?.message, "given up");
  const s = stalled.p;
  assert.equal(s.attempts, 1);
  assert.ok(s.connectMs > 0, `connectMs ${s.connectMs}`);
  assert.equal(s.remoteAddr, `127.0.0.1:${new URL(url).port}`);
  assert.ok(s.tlsMs >= giveUpMs - 50 && s.tlsMs < giveUpMs + 5000, `tlsMs ${s.tlsMs}; want about ${giveUpMs}, to the socket's close`);
  assert.equal(s.ttfbMs, 0);
  assert.equal(s.tlsVersion, undefined);
  assert.equal(s.writeError, undefined, "a handshake's failure is not the write's");
});

test("errorText is an error's name and message", () => {
  assert.equal(errorText(new TypeError("bad")), "TypeError: bad");
  const e = new Error("no answer");
  e.name = "TimeoutError";
  assert.equal(errorText(e), "TimeoutError: no answer");
  assert.equal(errorText("plain"), "plain");
});
