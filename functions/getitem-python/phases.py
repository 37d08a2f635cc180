"""The phases of one SDK call, timed on the SDK's own connection (claim T6).

boto3's DynamoDB client sends through botocore's URLLib3Session, a urllib3 (1.26) PoolManager
whose HTTPS pools are botocore's AWSHTTPSConnectionPool, making AWSHTTPSConnection objects.
install() puts subclasses of both into the client's own session, so that the connections the SDK
opens, pools and reuses are instrumented ones; nothing else of urllib3 or botocore is changed.
Each hook reports to the Tracer that attach.py made current on this thread for the call: a
connection's events outside a traced call are dropped, as net/http's are without a trace.

Where each phase is timed (the "timed" of the answer's stack says it too):
  - dns: socket.getaddrinfo, as urllib3.util.connection.create_connection calls it, to the first
    socket it makes, seen through the interpreter's audit events "socket.getaddrinfo" and
    "socket.__new__" (sys.addaudithook; only events inside an instrumented connection's
    _new_conn on this thread count). An IP literal is no lookup: 0;
  - connect: the first "socket.connect" audit event to create_connection's return (urllib3
    tries the addresses in turn; the time to a usable socket is what the request waited);
  - tls: the rest of the connection's connect(), that is urllib3's ssl_wrap_socket (the
    handshake, do_handshake_on_connect) and its hostname check, less the CA file's loading,
    which urllib3 1.26 does inside ssl_wrap_socket for every new connection
    (SSLContext.load_verify_locations) and which Roots reports apart;
  - ttfb: the pool's _get_conn (the request asks for a connection, as net/http's GetConn) to the
    response's status line read (http.client's _read_status, the first bytes of the answer);
  - reused: the connection had answered a request before this one went out on it;
  - pooled: urllib3 put the connection, still open, back in the pool (_put_conn);
  - attempts: botocore's before-send events, one per HTTP request the call sends;
  - CPU: time.process_time(), the process's CPU time, all threads, over each span.

The warm-up's bound (bounded()) is applied here too, because the pool is where a request's
timeout is chosen: while it is active, each request's urllib3 Timeout is the time left, and the
client retries nothing (needs-retry), as a client configured with connect_timeout, read_timeout
and one attempt would do, but on the handler's own client and pool.
"""

import http.client
import socket
import sys
import threading
import time

import botocore.awsrequest
from botocore.exceptions import ClientError
from urllib3.util.timeout import Timeout

# Per-thread state: the tracer of the call in progress ("tracer"), the audit events of the socket
# being opened ("opening"), the connection doing its TLS set-up ("connecting", for the CA file's
# loading) and the warm-up's deadline ("deadline").
_local = threading.local()


def current():
    """The tracer of the call in progress on this thread, or None."""
    return getattr(_local, "tracer", None)


def set_current(tracer):
    """Makes tracer (or None) the one this thread's SDK calls report to; returns the previous."""
    previous = current()
    _local.tracer = tracer
    return previous


def _now():
    return time.perf_counter(), time.process_time()


def _ms(seconds):
    return seconds * 1000.0


class Tracer:
    """Collects the phases of one SDK call. When the SDK retries, the phases are those of the
    last attempt and attempts counts them all; a phase that did not happen is 0."""

    def __init__(self):
        self.start = time.perf_counter()
        self.end = None
        self.attempts = 0
        self._new_attempt()

    def _new_attempt(self):
        self.get_conn = None  # when the attempt asked the pool for a connection
        self.conn = None  # the attempt's connection
        self.p = {
            "dnsMs": 0.0, "dnsCpuMs": 0.0, "connectMs": 0.0, "connectCpuMs": 0.0,
            "tlsMs": 0.0, "tlsCpuMs": 0.0, "ttfbMs": 0.0, "reused": False, "pooled": False,
            "curve": "", "tlsVersion": "", "cipherSuite": "", "didResume": False,
            "remoteAddr": "", "writeError": "",
        }

    def attempt(self):
        """A new HTTP request of the call: forget the last one's phases."""
        self.attempts += 1
        self._new_attempt()

    def finish(self):
        """Marks the call's end; call it as soon as the SDK returns."""
        self.end = time.perf_counter()

    def phases(self):
        """What was seen, with totalMs from the tracer's making to finish, as the answer's
        Call and Connection fields."""
        p = dict(self.p)
        p["attempts"] = self.attempts
        p["totalMs"] = _ms(self.end - self.start) if self.end is not None else 0.0
        return p

    def set_tls(self, sock):
        """Records what sock (an ssl.SSLSocket) negotiated. Python 3.11's ssl module does not
        say which group the key exchange used: curve stays ""."""
        try:
            self.p["tlsVersion"] = sock.version() or ""
            cipher = sock.cipher()
            self.p["cipherSuite"] = cipher[0] if cipher else ""
            self.p["didResume"] = bool(sock.session_reused)
        except (AttributeError, OSError, ValueError):
            pass


# Roots: the first loading of the CA file into the SSL context, which urllib3 1.26 repeats for
# every new connection; None until a connection has loaded it.
roots = None


def _is_ip_literal(host):
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host.strip("[]"))
            return True
        except (OSError, ValueError):
            pass
    return False


class _Opening:
    """The audit events of one connection's create_connection, on this thread."""

    __slots__ = ("dns_start", "dns_end", "connect_start")

    def __init__(self):
        self.dns_start = self.dns_end = self.connect_start = None


def _audit(event, args):
    # Called for every audited event of the process (imports, opens, ...): it does nothing
    # unless an instrumented connection is being opened on this thread.
    opening = getattr(_local, "opening", None)
    if opening is None:
        return
    if event == "socket.getaddrinfo":
        if opening.dns_start is None:
            opening.dns_start = _now()
    elif event == "socket.__new__":
        if opening.dns_end is None:
            opening.dns_end = _now()
    elif event == "socket.connect":
        if opening.connect_start is None:
            opening.connect_start = _now()


sys.addaudithook(_audit)


class TracedResponse(http.client.HTTPResponse):
    """http.client's response, noting when its status line, the answer's first bytes, arrived."""

    def _read_status(self):
        status = super()._read_status()
        tr = current()
        if tr is not None and tr.get_conn is not None:
            tr.p["ttfbMs"] = _ms(time.perf_counter() - tr.get_conn)
        return status


class TracedConnection(botocore.awsrequest.AWSHTTPSConnection):
    """botocore's HTTPS connection, reporting its set-up, its reuse and its TLS state."""

    response_class = TracedResponse

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Requests this connection has answered on its current socket.
        self.claims_served = 0
        self._claims_tcp_end = None
        self._claims_roots = None

    def _new_conn(self):
        # urllib3's HTTPConnection._new_conn: create_connection, that is DNS and TCP.
        opening = _Opening()
        _local.opening = opening
        tr = current()
        try:
            sock = super()._new_conn()
        finally:
            _local.opening = None
            end = _now()
            # The lookup is reported whether or not a connection followed; one that failed
            # ends with create_connection.
            if tr is not None and opening.dns_start is not None and not _is_ip_literal(self._dns_host):
                dns_end = opening.dns_end or end
                tr.p["dnsMs"] = _ms(dns_end[0] - opening.dns_start[0])
                tr.p["dnsCpuMs"] = _ms(dns_end[1] - opening.dns_start[1])
        # The connection is reported once it succeeded, as net/http's ConnectDone without error.
        self._claims_tcp_end = end
        if tr is not None and opening.connect_start is not None:
            tr.p["connectMs"] = _ms(end[0] - opening.connect_start[0])
            tr.p["connectCpuMs"] = _ms(end[1] - opening.connect_start[1])
        return sock

    def connect(self):
        # urllib3's HTTPSConnection.connect: _new_conn, then ssl_wrap_socket (the CA file's
        # loading, the handshake) and the hostname check.
        self.claims_served = 0
        self._claims_tcp_end = None
        self._claims_roots = None
        tr = current()
        _local.connecting = self
        try:
            super().connect()
        finally:
            _local.connecting = None
            end = _now()
            if tr is not None and self._claims_tcp_end is not None:
                wall = end[0] - self._claims_tcp_end[0]
                cpu = end[1] - self._claims_tcp_end[1]
                if self._claims_roots is not None:
                    wall -= self._claims_roots[0]
                    cpu -= self._claims_roots[1]
                tr.p["tlsMs"] = _ms(max(wall, 0.0))
                tr.p["tlsCpuMs"] = _ms(max(cpu, 0.0))
        if tr is not None:
            tr.set_tls(self.sock)

    def request(self, method, url, body=None, headers=None, **kwargs):
        # urllib3 2 (Debian 13's) passes keywords of its own (chunked, preload_content...);
        # urllib3 1.26 (Debian 12's) none: they go through as they came.
        tr = current()
        if tr is not None:
            tr.conn = self
            tr.p["reused"] = self.claims_served > 0
            if self.sock is not None:
                try:
                    tr.p["remoteAddr"] = _addr(self.sock.getpeername())
                except OSError:
                    pass
                tr.set_tls(self.sock)
        try:
            return super().request(method, url, body=body, headers=headers, **kwargs)
        except OSError as e:
            # urllib3 swallows a broken pipe here and reads the answer anyway, as net/http
            # does with its WroteRequest error: say so.
            if tr is not None:
                tr.p["writeError"] = str(e) or type(e).__name__
            raise

    def getresponse(self, *args, **kwargs):
        response = super().getresponse(*args, **kwargs)
        self.claims_served += 1
        return response


def _addr(peer):
    host, port = peer[0], peer[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class TracedPool(botocore.awsrequest.AWSHTTPSConnectionPool):
    """botocore's HTTPS pool, making TracedConnections, noting the request's start and the
    connection's return, and bounding the warm-up's requests."""

    ConnectionCls = TracedConnection

    def urlopen(self, method, url, *args, **kwargs):
        deadline = getattr(_local, "deadline", None)
        if deadline is not None:
            # botocore passes no timeout: the pool's own would apply. The time left bounds the
            # connection, the handshake and the answer together.
            kwargs["timeout"] = Timeout(total=max(deadline - time.monotonic(), 0.001))
        return super().urlopen(method, url, *args, **kwargs)

    def _get_conn(self, timeout=None):
        tr = current()
        if tr is not None:
            tr.get_conn = time.perf_counter()
        return super()._get_conn(timeout=timeout)

    def _put_conn(self, conn):
        super()._put_conn(conn)
        tr = current()
        if tr is not None and conn is not None and conn is tr.conn:
            tr.p["pooled"] = getattr(conn, "sock", None) is not None


def _timed_roots(load, ctx):
    """Wraps ctx.load_verify_locations, which urllib3 calls on each new connection, to time it."""

    def load_verify_locations(*args, **kwargs):
        global roots
        start = _now()
        try:
            return load(*args, **kwargs)
        finally:
            end = _now()
            spent = (end[0] - start[0], end[1] - start[1])
            conn = getattr(_local, "connecting", None)
            if conn is not None:
                conn._claims_roots = spent
            if roots is None:
                try:
                    count = ctx.cert_store_stats().get("x509_ca", 0)
                except (AttributeError, ValueError):
                    count = 0
                roots = {"when": _when(), "count": count, "ms": _ms(spent[0]), "cpuMs": _ms(spent[1])}

    return load_verify_locations


# "init" until the handler's module has finished its Init (end_init), then "first call".
_initializing = True


def end_init():
    """Marks the end of Init: a CA file loaded from now on was loaded by a call."""
    global _initializing
    _initializing = False


def _when():
    return "init" if _initializing else "first call"


def install(client):
    """Instruments client: its session's HTTPS pools become TracedPools (every client sharing
    the session gets them), and its events count the attempts and keep the warm-up to one."""
    session = client._endpoint.http_session
    if not getattr(session, "claims_traced", False):
        session.claims_traced = True
        # URLLib3Session keeps its pool classes in private attributes: the PoolManager's (direct
        # connections) and its own (for proxy managers it makes later).
        classes = dict(session._pool_classes_by_scheme)
        classes["https"] = TracedPool
        session._pool_classes_by_scheme = classes
        session._manager.pool_classes_by_scheme = classes
        ctx = session._manager.connection_pool_kw.get("ssl_context")
        if ctx is not None:
            ctx.load_verify_locations = _timed_roots(ctx.load_verify_locations, ctx)
    client.meta.events.register("before-send", _before_send)
    client.meta.events.register_first("needs-retry", _no_retry_when_bounded)


def _before_send(request=None, **kwargs):
    tr = current()
    if tr is not None:
        tr.attempt()
    # None: botocore sends the request itself.
    return None


def _no_retry_when_bounded(response=None, caught_exception=None, operation=None, **kwargs):
    # Within the warm-up's bound a failed attempt is the warm-up's outcome: raising it here,
    # before botocore's retry handler can sleep and retry, is what one attempt would give.
    if getattr(_local, "deadline", None) is None:
        return None
    if caught_exception is not None:
        raise caught_exception
    if response is not None and response[0].status_code >= 300:
        raise ClientError(response[1], operation.name if operation is not None else "")
    return None


class bounded:
    """A context in which this thread's requests end by timeout seconds from now and botocore
    retries nothing: the warm-up's bound."""

    def __init__(self, timeout):
        self.timeout = timeout

    def __enter__(self):
        _local.deadline = time.monotonic() + self.timeout
        return self

    def __exit__(self, *exc):
        _local.deadline = None
        return False
