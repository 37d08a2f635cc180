"""What the tests share: a hermetic environment, a certificate for 127.0.0.1, a DynamoDB stand-in
on loopback over TLS, and the capture of outage.py's stalled endpoints so that a test can stop
them. Everything started here is stopped by the test's cleanups."""

import contextlib
import http.server
import json
import os
import socket
import ssl
import subprocess
import tempfile
import threading
from unittest import mock

import boto3

import outage

REGION = "eu-west-1"
# Fixed test credentials: the requests are signed with them and go to loopback only.
ACCESS_KEY = "AKIDTESTTESTTESTTEST"
SECRET_KEY = "test-secret-key"
TABLE = "bench-table"
ITEM = {"pk": {"S": "bench"}, "n": {"N": "7"}, "payload": {"S": "x" * 64}}


def environ(**values):
    """The process's environment without its AWS_ and proxy settings, with botocore kept off
    the network (no instance metadata, no config or credentials files, no proxy for loopback),
    fixed credentials, and values."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and "proxy" not in k.lower()}
    env.update({
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": REGION,
        "NO_PROXY": "127.0.0.1,localhost",
    })
    env.update(values)
    return env


def use_environ(test, **values):
    """Puts environ(**values) in os.environ for the test, restored by its cleanup."""
    patcher = mock.patch.dict(os.environ, environ(**values), clear=True)
    patcher.start()
    test.addCleanup(patcher.stop)


def settings_env(**values):
    """A valid configuration of the function (settings.py) as a dict, with values."""
    env = {"CLAIMS_VARIANT": "cold", "CLAIMS_TABLE": TABLE, "CLAIMS_KEY": '{"pk":"bench","n":7}',
           "AWS_REGION": REGION}
    env.update(values)
    return {k: v for k, v in env.items() if v is not None}


def make_certificate(test_class):
    """A self-signed certificate for IP 127.0.0.1 and its key, made by openssl in a temporary
    folder that the class's cleanup removes: (certfile, keyfile)."""
    tmp = tempfile.TemporaryDirectory(prefix="getitem-python-tests-")
    test_class.addClassCleanup(tmp.cleanup)
    cert, key = os.path.join(tmp.name, "cert.pem"), os.path.join(tmp.name, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"],
        check=True, capture_output=True)
    return cert, key


class _Server(http.server.ThreadingHTTPServer):
    # One thread per connection, joined by server_close.
    daemon_threads = False
    block_on_close = True

    def __init__(self, ctx, fake):
        self.ctx = ctx
        self.fake = fake
        self.conns = []  # the accepted connections, in order
        self.errors = []  # what the connections' threads raised (a client going away, mostly)
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self):
        sock, addr = super().get_request()
        sock.settimeout(10)
        # The answer's headers and body are two writes: without it, Nagle's algorithm holds the
        # body until the client's delayed ACK, 40 ms later.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The handshake is the connection's thread's (_Handler.setup), not the accept loop's.
        tls = self.ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        self.conns.append(tls)
        return tls, addr

    def handle_error(self, request, client_address):
        self.errors.append(client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDK's connection can be reused

    def setup(self):
        self.request.do_handshake()
        super().setup()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
        fake = self.server.fake
        fake.requests.append((operation, json.loads(body or b"{}"), self.server.conns.index(self.request)))
        status, answer = fake.answers.get(operation, (400, error("UnknownOperationException", operation)))
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


def error(code, message):
    """A DynamoDB error's body."""
    return {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}


class FakeDynamoDB:
    """DynamoDB's JSON protocol at url, https://127.0.0.1:<port>, with the certificate given:
    answers maps an operation to (status, body); requests are (operation, body, connection
    number) in order of arrival."""

    def __init__(self, test, certfile, keyfile):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certfile, keyfile)
        self.answers = {"GetItem": (200, {"Item": ITEM}), "ListTables": (200, {"TableNames": [TABLE]})}
        self.requests = []
        self._server = _Server(ctx, self)
        self.url = "https://127.0.0.1:%d" % self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-dynamodb")
        self._thread.start()
        test.addCleanup(self._stop)

    @property
    def connections(self):
        """How many connections were accepted."""
        return len(self._server.conns)

    def _stop(self):
        self._server.shutdown()
        for conn in self._server.conns:
            with contextlib.suppress(OSError):
                socket.socket.shutdown(conn, socket.SHUT_RDWR)  # ends a keep-alive's wait
        self._server.server_close()  # joins the connections' threads
        self._thread.join()


@contextlib.contextmanager
def capture_stalls(test):
    """Within the block, outage.py's stalled endpoints are recorded, and the test's cleanup
    stops each: its listener shut down (which ends the holding thread, closing what it held),
    the thread joined, the listener closed."""
    started = []

    class _Threading:
        @staticmethod
        def Thread(*args, **kwargs):
            t = threading.Thread(*args, **kwargs)
            started.append((t, kwargs["args"][0]))
            return t

    def stop():
        for t, ln in started:
            with contextlib.suppress(OSError):
                ln.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the holding thread
            t.join(5)
            ln.close()
            test.assertFalse(t.is_alive(), "the stalled endpoint's thread did not end")

    test.addCleanup(stop)
    with mock.patch.object(outage, "threading", _Threading):
        yield started


def new_client(endpoint_url, certfile):
    """A DynamoDB client as handler.py's Init makes one, to endpoint_url, trusting certfile; the
    test's cleanup must close it (client.close)."""
    session = boto3.session.Session(region_name=REGION, aws_access_key_id=ACCESS_KEY,
                                    aws_secret_access_key=SECRET_KEY)
    return session.client("dynamodb", endpoint_url=endpoint_url, verify=certfile)
