"""GetItem: the cold-start claims' function (T1 to T6) in Python, with boto3.

One DynamoDB GetItem per invocation with boto3, timed phase by phase on the SDK's own connection
(phases.py), and answered as JSON: the answer functions/getitem (Go) gives, which
results/family/getitem declares. It runs on Lambda's managed python3.11 runtime as
handler.handler; its bundle is this folder's modules with boto3 and what it imports vendored from
Debian's packages (harness/lambda/lambdazip/python.go).

Init is this module's top level, which the runtime runs when it imports the module, before it
asks for the first event. It has two variants, chosen by CLAIMS_VARIANT, the two functions of the
article:
  - cold: Init builds the client and nothing else, so the first invocation's GetItem pays for
    DNS, TCP and the TLS handshake;
  - warm: Init also makes one ListTables (Limit 1) through the same client, so the same
    connection pool, bounded by CLAIMS_WARMUP_TIMEOUT_MS (default 1000); its error is reported
    in every answer and on stderr, never fatal (claim T4).

Its configuration, all from the environment (settings.py):
  - CLAIMS_VARIANT: cold or warm;
  - CLAIMS_TABLE: the table to read;
  - CLAIMS_KEY: the item's key as a JSON object, a string value being a DynamoDB S and a number
    an N: {"pk":"bench","sk":"item-0"};
  - CLAIMS_CA_FILE: a PEM file of the CAs to trust instead of the default ones (botocore's
    verify); unset means botocore's default, or AWS_CA_BUNDLE, which botocore reads itself and
    the local runs set;
  - CLAIMS_WARMUP_TIMEOUT_MS: the warm-up's bound, in milliseconds;
  - CLAIMS_WARMUP_OUTAGE: refused or stalled sends the warm-up (only) to an endpoint inside the
    sandbox, on loopback, that refuses or never answers (outage.py);
  - AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL): the endpoint; unset means DynamoDB's
    regional one;
  - AWS_REGION (or AWS_DEFAULT_REGION), and the credentials botocore's default chain finds
    (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN on Lambda and in tests).

Its deliberately broken builds, chosen when the bundle is built (a module of broken/<tag>/ replaces
the one of the same name): brokentrace (attach.py: the trace is not on the SDK's call, T6),
brokenwarmup (warmup_policy.py: a failed warm-up fails Init, T4) and brokenwarmclient
(warmup_client.py: the warm-up goes through a client of its own, T3).

A setting that is missing or wrong raises SettingError, naming it, from this module's Init: the
runtime reports an Init failure (/runtime/init/error) and exits, so that Lambda (or the emulator)
reports it rather than a function that fails on every invocation.
"""

import time

# module_start is when this module's first statement ran: after the interpreter and the
# runtime's loop started, before anything of the function's. It is the start of initGoMs, the
# finer-grained second view of Init beside the process's start (/proc/self/stat).
_module_start = time.perf_counter()

# The imports come after _module_start on purpose, as initGoMs counts them: each carries
# "noqa: E402" (module level import not at top of file) for that reason alone.
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import ssl  # noqa: E402
import sys  # noqa: E402

import boto3  # noqa: E402
import botocore  # noqa: E402
import urllib3  # noqa: E402

import outage  # noqa: E402
import phases  # noqa: E402
import settings  # noqa: E402
import warmup_policy  # noqa: E402
from attach import attach  # noqa: E402
from warmup_client import warmup_client  # noqa: E402

# CLOCK_TICKS is Linux's USER_HZ, the unit of /proc/self/stat's starttime.
try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError):
    _CLOCK_TICKS = 100

# TIMED says where the phases were timed, for the answer's stack.
TIMED = (
    "hooks on boto3's own connection: its botocore URLLib3Session's HTTPS pools made of subclasses "
    "of botocore's AWSHTTPSConnectionPool and AWSHTTPSConnection (urllib3 1.26). dns: "
    "socket.getaddrinfo in urllib3's create_connection to its first socket, from the interpreter's "
    "audit events (socket.getaddrinfo, socket.__new__), 0 for an IP literal; connect: the first "
    "socket.connect audit event to create_connection's return; tls: the rest of the connection's "
    "connect(), urllib3's ssl_wrap_socket (handshake) and hostname check, less the CA file's "
    "load_verify_locations, which urllib3 repeats for every new connection and roots reports; "
    "ttfb: the pool's _get_conn to http.client's status line read; attempts: botocore's "
    "before-send events; CPU: time.process_time(). curve: left out, Python 3.11's ssl "
    "module does not expose the negotiated group"
)


class WarmupFailed(Exception):
    """The warm-up failed, in the build whose failed warm-up fails Init (brokenwarmup)."""


def _ms(seconds):
    return seconds * 1000.0


def since_process_start():
    """How long ago, in seconds, the kernel started this process: CLOCK_BOOTTIME now less
    /proc/self/stat's starttime, which counts clock ticks since boot on the same clock."""
    with open("/proc/self/stat", "rb") as f:
        stat = f.read().decode("ascii", "replace")
    return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks(stat) / _CLOCK_TICKS


def start_ticks(stat):
    """Reads field 22, starttime, from the text of /proc/PID/stat. The command name (field 2) is
    in parentheses and may hold spaces and parentheses itself, so fields are counted from the
    last ')'."""
    i = stat.rfind(")")
    if i < 0:
        raise ValueError(f"/proc/self/stat: no command name in {stat!r}")
    fields = stat[i + 1:].split()
    starttime = 22 - 3  # fields[0] is field 3, the state
    if len(fields) <= starttime:
        raise ValueError(f"/proc/self/stat: {len(fields)} fields after the command name; want more than {starttime}")
    return int(fields[starttime])


def measure_init(end):
    """The function's own measure of its Init, up to end (a perf_counter reading): initMs from
    the process's start ("proc": the kernel's starttime, in whole clock ticks of 10 ms, so up to
    10 ms too long; "python": from this module's start when /proc cannot be read) and initGoMs
    from this module's first statement."""
    module_ms = _ms(end - _module_start)
    try:
        since = since_process_start()
        return {"initMs": _ms(since - (time.perf_counter() - end)), "initFrom": "proc", "initGoMs": module_ms}
    except (OSError, ValueError):
        return {"initMs": module_ms, "initFrom": "python", "initGoMs": module_ms}


def new_client_maker(s):
    """Returns new_client(endpoint_url, share_with=None): a DynamoDB client the way a function's
    Init builds one (boto3's session, botocore's defaults, the region and endpoint of the
    settings), instrumented (phases.install). With share_with, the client sends through
    share_with's HTTP session, so its connection pools: the same pool manager, as a Go client
    made from another's options shares its HTTP client. Nothing goes on the network here."""
    session = boto3.session.Session(region_name=s.region)

    def new_client(endpoint_url, share_with=None):
        client = session.client("dynamodb", endpoint_url=endpoint_url, verify=s.ca_file or None)
        if share_with is not None:
            # botocore has no option for it: the endpoint's session is swapped for the other
            # client's before any request, and the unused one (no pool yet) dropped.
            client._endpoint.http_session = share_with._endpoint.http_session
        phases.install(client)
        return client

    return new_client


def _answer_fields(p, error=""):
    """A call's phases (Tracer.phases) as the answer's Call and Connection fields, with Go's
    omitempty: an empty string is left out."""
    out = {}
    for k in ("dnsMs", "dnsCpuMs", "connectMs", "connectCpuMs", "tlsMs", "tlsCpuMs", "ttfbMs",
              "reused", "pooled", "totalMs", "attempts", "curve"):
        out[k] = p[k]
    out["error"] = error
    for k in ("tlsVersion", "cipherSuite", "didResume", "remoteAddr", "writeError"):
        out[k] = p[k]
    return {k: v for k, v in out.items() if v != ""}


class WarmupCall:
    """The warm-up: its tracer, read when the handler answers, and its error."""

    def __init__(self, tracer, error):
        self.tracer = tracer
        self.error = error

    def result(self):
        """The warm-up as the answer's "warmup" reports it."""
        return _answer_fields(self.tracer.phases(), self.error)


def warm_up(client, timeout):
    """Makes the article's warm-up call, ListTables with Limit 1, which needs no table and leaves
    the SDK's connection in its pool for the handler. Its error is returned in the result, not
    raised: the caller must not fail Init over it (claim T4). phases.bounded keeps a dead
    endpoint from eating Init's 10 seconds: each request's timeout is the time left, and no
    retry (botocore would retry, and wait up to 60 s on a handshake that never answers)."""
    tr = phases.Tracer()
    error = ""
    try:
        with attach(tr), phases.bounded(timeout):
            client.list_tables(Limit=1)
    except Exception as e:  # the warm-up's outcome, whatever it is
        error = str(e) or type(e).__name__
    tr.finish()
    return WarmupCall(tr, error)


class Function:
    """The initialised function: what Init built, and what the handler reports."""

    def __init__(self, s, client):
        self.variant = s.variant
        self.table = s.table
        self.key = s.key
        self.client = client
        self.warmup = None  # the warm-up's outcome; None for the cold variant
        self.init = {}
        self.pid = os.getpid()
        self.calls = 0
        self.stack = None

    def handle(self, event, context):
        """The Lambda handler: one GetItem, timed. The event is ignored. A failed GetItem is
        answered, with its phases and its error in "error", rather than raised: the phases of a
        call that failed are evidence too, and a Lambda error would carry only the message."""
        entered, entered_cpu = time.perf_counter(), time.process_time()
        self.calls += 1
        tr = phases.Tracer()
        out, error = None, ""
        try:
            with attach(tr):
                out = self.client.get_item(TableName=self.table, Key=self.key)
        except Exception as e:  # answered, not raised
            error = str(e) or type(e).__name__
        tr.finish()
        r = _answer_fields(tr.phases(), error)
        r["found"] = bool(out and out.get("Item"))
        r["variant"] = self.variant
        r["invocation"] = self.calls
        r.update(self.init)
        if self.warmup is not None:
            r["warmup"] = self.warmup.result()
        r["pid"] = self.pid
        if self.stack is None:
            self.stack = stack()
        r["stack"] = self.stack
        if phases.roots is not None:
            r["roots"] = dict(phases.roots)
        r["handlerMs"] = _ms(time.perf_counter() - entered)
        r["handlerCpuMs"] = _ms(time.process_time() - entered_cpu)
        return r


# VENDORED is the bundle's record of the Debian packages it vendors (harness/lambda/lambdazip's
# PythonRecord): boto3's version as the distribution packages it.
VENDORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendored.json")


def packaged_as():
    """Names boto3's Debian package, its version and the distribution, from VENDORED."""
    try:
        with open(VENDORED) as f:
            record = json.load(f)
        return f"python3-boto3 {record['packages']['python3-boto3']} of {record['distribution']}"
    except (OSError, ValueError, KeyError) as e:
        return f"no record of its package: {e}"


def stack():
    """Names the function's stack, read after the first call was timed."""
    return {
        "language": "python",
        "languageVersion": platform.python_version(),
        "sdk": "boto3",
        "sdkVersion": (f"{boto3.__version__} ({packaged_as()}; "
                       f"botocore {botocore.__version__}, urllib3 {urllib3.__version__})"),
        "tls": "OpenSSL",
        "tlsVersion": ssl.OPENSSL_VERSION,
        "timed": TIMED,
    }


def initialize(s):
    """The function's Init: the client, and for the warm variant the warm-up."""
    new_client = new_client_maker(s)
    client = new_client(s.endpoint)
    f = Function(s, client)
    if s.variant == settings.VARIANT_WARM:
        warmup_on = client
        if s.warmup_outage:
            try:
                endpoint = outage.outage_endpoint(s.warmup_outage)
            except outage.OutageError as e:
                raise settings.SettingError(str(e)) from None
            warmup_on = new_client(endpoint, share_with=client)
        f.warmup = warm_up(warmup_client(warmup_on, new_client), s.warmup_timeout)
    return f


_function = initialize(settings.load_settings(os.environ.get))
if _function.warmup is not None and _function.warmup.error:
    if warmup_policy.FAIL_INIT_ON_WARMUP_ERROR:
        raise WarmupFailed(f"warm-up failed, failing Init (brokenwarmup): {_function.warmup.error}")
    # Reported, not fatal: a warm-up is an optimisation, and a failed Init is retried by Lambda
    # at the cost of a whole new Init (the article's point).
    print(f"getitem: warm-up failed (ignored): {_function.warmup.error}", file=sys.stderr, flush=True)
phases.end_init()
_function.init = measure_init(time.perf_counter())


def handler(event, context):
    """The function's handler, handler.handler: one GetItem, answered as results/family/getitem's
    Answer with the connection's details (Function.handle)."""
    return _function.handle(event, context)
