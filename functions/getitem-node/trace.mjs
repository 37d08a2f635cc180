// The phases of one SDK call, timed on the SDK's own connection (claim T6): the https.Agent
// that the SDK's NodeHttpHandler sends every request through is a TracingAgent, whose hooks see
// each request the SDK makes and each socket it opens. functions/getitem (Go) times the same
// phases with net/http/httptrace; this is the Node.js counterpart, and the answer it gives is
// the same (results/family/getitem's Call and Connection).
//
// A call is traced when it runs inside attach (attach.mjs): the tracer rides the call's async
// context (AsyncLocalStorage), as Go's rides the request's context.Context, so the agent knows
// whose request it is handling without a global "current call". When the SDK retries, the
// phases are those of the last attempt and attempts counts them all. A phase that did not
// happen is 0: no DNS for an IP literal, no connect or TLS on a reused socket.

import https from "node:https";
import { AsyncLocalStorage } from "node:async_hooks";

/** calls carries the Tracer of the SDK call running in the current async context. */
export const calls = new AsyncLocalStorage();

/** cpuMs is the CPU time the kernel has charged this process so far, user and system, in ms. */
export function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** nowMs is a monotonic clock in milliseconds, with the fraction. */
export function nowMs() {
  return performance.now();
}

/** emptyPhases is a call of no connection: every field of results/family/getitem's Call and
 * Connection at its zero, curve, cipher suite, remote address and write error left out. */
function emptyPhases() {
  return {
    dnsMs: 0, dnsCpuMs: 0, connectMs: 0, connectCpuMs: 0, tlsMs: 0, tlsCpuMs: 0, ttfbMs: 0,
    reused: false, pooled: false, totalMs: 0, attempts: 0,
    tlsVersion: undefined, cipherSuite: undefined, didResume: false, remoteAddr: undefined,
    writeError: undefined, curve: undefined,
  };
}

/** Tracer collects the phases of one SDK call. */
export class Tracer {
  constructor() {
    this.start = nowMs();
    this.end = undefined;
    this.attempts = 0;
    this.p = emptyPhases();
  }

  /** finish marks the call's end; call it as soon as the SDK returns. */
  finish() {
    this.end = nowMs();
  }

  /** phases is a copy of what was seen, with totalMs from the tracer's creation to finish. */
  phases() {
    const p = { ...this.p, attempts: this.attempts };
    if (this.end !== undefined) {
      p.totalMs = this.end - this.start;
    }
    return p;
  }

  /** current says whether attempt is still the call's last: a late event of an earlier
   * attempt (a retry has begun) must not mix into the phases of the next. */
  current(attempt) {
    return attempt === this.attempts;
  }

  /** begin starts an attempt: req is the request the SDK just handed to the agent. Like Go's
   * GetConn hook, it forgets the last attempt's phases, so that they describe one request. */
  begin(req) {
    this.attempts++;
    const attempt = this.attempts;
    this.p = emptyPhases();
    const started = nowMs();
    // ready: the request has a connection to be written on; written: it was all written.
    let ready = false;
    let written = false;
    req.once("finish", () => {
      written = true;
    });
    req.on("error", (err) => {
      // An error after the connection was ready and before the request was all written is
      // the write's, as Go's WroteRequest reports it (a failed connect or handshake is not);
      // the call fails with it too, and the SDK may retry.
      if (ready && !written && this.current(attempt) && this.p.writeError === undefined) {
        this.p.writeError = errorText(err);
      }
    });
    req.once("socket", (socket) => {
      if (!this.current(attempt)) {
        return;
      }
      owners.set(socket, { tracer: this, attempt });
      // reusedSocket is set by the agent when it hands the request a kept-alive socket.
      this.p.reused = req.reusedSocket === true;
      if (this.p.reused) {
        // A reused socket has no handshake to report, but its TLS state is still the one
        // that was negotiated: read it from the socket itself, as Go's GotConn does.
        ready = true;
        this.connected(socket);
        this.secured(socket);
      } else {
        socket.once("secureConnect", () => {
          ready = true;
        });
      }
      // The first byte of the answer: the first data the socket gives this request. http's
      // own parser reads the socket through its 'data' events too.
      const onData = () => {
        socket.removeListener("data", onData);
        if (this.current(attempt) && this.p.ttfbMs === 0) {
          this.p.ttfbMs = nowMs() - started;
        }
      };
      socket.prependListener("data", onData);
      req.once("close", () => socket.removeListener("data", onData));
    });
  }

  /** newSocket times a socket the agent opened for the current attempt: DNS from the end of
   * tls.connect's synchronous part to 'lookup' (a host name only), TCP from there to
   * 'connect', TLS from 'connect' to 'secureConnect' (or to 'close', for a handshake that
   * failed). `at` and `atCpu` are that synchronous part's end. */
  newSocket(socket, at, atCpu) {
    const attempt = this.attempts;
    let mark = at;
    let markCpu = atCpu;
    let handshaking = false;
    socket.once("lookup", (err) => {
      const t = nowMs();
      const c = cpuMs();
      if (!err && this.current(attempt)) {
        this.p.dnsMs = t - mark;
        this.p.dnsCpuMs = c - markCpu;
      }
      mark = t;
      markCpu = c;
    });
    // Prepended: tls.connect's own 'connect' listener starts the handshake (the ClientHello,
    // with its key shares, is made right there), and that belongs to TLS, not to TCP.
    socket.prependOnceListener("connect", () => {
      const t = nowMs();
      const c = cpuMs();
      if (this.current(attempt)) {
        this.p.connectMs = t - mark;
        this.p.connectCpuMs = c - markCpu;
        this.connected(socket);
      }
      mark = t;
      markCpu = c;
      handshaking = true;
    });
    socket.once("secureConnect", () => {
      const t = nowMs();
      const c = cpuMs();
      handshaking = false;
      if (this.current(attempt)) {
        this.p.tlsMs = t - mark;
        this.p.tlsCpuMs = c - markCpu;
        this.secured(socket);
      }
    });
    // A handshake that fails or is given up ends when its socket closes: timed to there, as
    // Go's TLSHandshakeDone reports a failed handshake's time too.
    socket.once("close", () => {
      if (handshaking && this.current(attempt)) {
        this.p.tlsMs = nowMs() - mark;
        this.p.tlsCpuMs = cpuMs() - markCpu;
      }
      handshaking = false;
    });
  }

  /** connected records where the socket went. */
  connected(socket) {
    const addr = socket.remoteAddress;
    if (addr) {
      this.p.remoteAddr = addr.includes(":") ? `[${addr}]:${socket.remotePort}` : `${addr}:${socket.remotePort}`;
    }
  }

  /** secured records what the socket's handshake negotiated, in Go's crypto/tls names where
   * they differ from OpenSSL's, so that every function's answer names them alike. */
  secured(socket) {
    if (typeof socket.getProtocol !== "function") {
      return;
    }
    const version = socket.getProtocol();
    if (!version) {
      return;
    }
    this.p.tlsVersion = tlsVersionNames[version] ?? version;
    this.p.cipherSuite = socket.getCipher()?.standardName;
    const curve = socket.getEphemeralKeyInfo()?.name;
    if (curve) {
      this.p.curve = curveNames[curve] ?? curve;
    }
    this.p.didResume = socket.isSessionReused();
  }
}

/** tlsVersionNames maps OpenSSL's protocol names to Go's tls.VersionName. */
const tlsVersionNames = { "TLSv1.3": "TLS 1.3", "TLSv1.2": "TLS 1.2", "TLSv1.1": "TLS 1.1", TLSv1: "TLS 1.0" };

/** curveNames maps OpenSSL's group names to Go's tls.CurveID names; X25519 and the hybrid
 * groups are spelled alike. */
const curveNames = { prime256v1: "CurveP256", secp384r1: "CurveP384", secp521r1: "CurveP521" };

/** owners maps a socket to the tracer and attempt of the request it last served, for the
 * agent's 'free' event, which names the socket only. */
const owners = new WeakMap();

/** roots is the first TLS connection's loading of the certificate authorities; see
 * TracingAgent.createConnection. */
let roots;

/** firstRoots says when and at what cost the process loaded the CAs it trusts, or undefined
 * before any TLS connection. count is filled in by the caller (index.mjs), after the timing. */
export function firstRoots() {
  return roots;
}

/** inInit says whether the process is still in Init; index.mjs clears it at Init's end, so that
 * the roots' loading is said to be Init's or the first call's. */
export const phase = { inInit: true };

/**
 * TracingAgent is an https.Agent, keep-alive as the SDK's own default agent is, whose hooks
 * time the requests of traced calls:
 *   - addRequest, which http.ClientRequest calls for every request that goes through an agent
 *     (its Agent-like interface): an attempt starts, the TTFB clock with it;
 *   - createConnection, for a new socket: the socket's 'lookup', 'connect' and
 *     'secureConnect' events;
 *   - the agent's 'free' event: whether the socket then went into freeSockets (pooled).
 */
export class TracingAgent extends https.Agent {
  constructor(options) {
    super(options);
    // Registered after the Agent's own 'free' listener, which pools or destroys the socket:
    // by now the socket is in freeSockets or it is not.
    this.on("free", (socket, options) => {
      const owner = owners.get(socket);
      if (!owner || !owner.tracer.current(owner.attempt)) {
        return;
      }
      const free = this.freeSockets[this.getName(options)] ?? [];
      owner.tracer.p.pooled = free.includes(socket);
    });
  }

  addRequest(req, options) {
    calls.getStore()?.begin(req);
    return super.addRequest(req, options);
  }

  createConnection(...args) {
    // tls.connect's synchronous part builds the connection's SecureContext, and the process's
    // first one loads the root store (Node's bundled roots and NODE_EXTRA_CA_CERTS, or the
    // agent's ca): apart from the handshake, before the TCP connect is even started. It is
    // timed on its own for the first connection (roots), and left out of the phases.
    const t0 = nowMs();
    const c0 = cpuMs();
    const socket = super.createConnection(...args);
    const t1 = nowMs();
    const c1 = cpuMs();
    if (roots === undefined) {
      roots = { when: phase.inInit ? "init" : "first call", count: 0, ms: t1 - t0, cpuMs: c1 - c0 };
    }
    calls.getStore()?.newSocket(socket, t1, c1);
    return socket;
  }
}

/** errorText is an error as an answer reports it: its name and message. */
export function errorText(err) {
  if (err instanceof Error) {
    return `${err.name}: ${err.message}`;
  }
  return String(err);
}
