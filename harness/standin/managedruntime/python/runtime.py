"""Stand-in for Lambda's managed python3.11 runtime, for the local platforms.

What Lambda runs around a Python function's handler is AWS's runtime interface client
(awslambdaric, /var/runtime/bootstrap.py), which this machine does not have. This is its Runtime
API loop in the standard library only, started as `/usr/bin/python3 -I runtime.py` by
harness/standin/managedruntime (Bootstrap), with LAMBDA_TASK_ROOT, _HANDLER and
AWS_LAMBDA_RUNTIME_API in its environment. It reproduces of awslambdaric:
  - sys.path: the task root first, as Lambda's runtime has /var/task first. Debian's
    dist-packages and site-packages folders leave it, and the modules the interpreter's site
    step imported from them are forgotten: on Lambda the function sees its bundle, the standard
    library and the runtime's own folder, whose boto3 the bundle's shadows, and nothing of this
    machine's. Bytecode is not written (sys.dont_write_bytecode): Lambda's /var/task is
    read-only, so a bundle without __pycache__ is compiled again by every cold start, and the
    local task root stays as it was built;
  - Init: the handler's module (_HANDLER "module.function") is imported before the first
    invocation/next; a failure is posted to /2018-06-01/runtime/init/error as
    {errorMessage, errorType, requestId, stackTrace}, with awslambdaric's error types
    (Runtime.MalformedHandlerName, Runtime.BuiltInModuleConflict, Runtime.ImportModuleError,
    Runtime.UserCodeSyntaxError, Runtime.HandlerNotFound, or the exception's class name for any
    other exception the module's Init raised), logged on stdout as "[ERROR] type: message", and
    the process exits with status 1. An exception that is not an Exception (SystemExit) ends the
    process as it ends awslambdaric's;
  - the loop: GET /2018-06-01/runtime/invocation/next, the event unmarshalled as JSON when its
    Content-Type says so (the raw bytes otherwise), _X_AMZN_TRACE_ID set from
    Lambda-Runtime-Trace-Id, handler(event, context) with a LambdaContext of awslambdaric's
    attributes (aws_request_id, invoked_function_arn, function_name, function_version,
    memory_limit_in_mb, log_group_name, log_stream_name, identity, client_context,
    get_remaining_time_in_millis() from Lambda-Runtime-Deadline-Ms), the answer marshalled as
    JSON (bytes as they are) and posted to /invocation/{id}/response; an exception, or an answer
    that cannot be marshalled, is posted to /invocation/{id}/error with the same error document
    and the Lambda-Runtime-Function-Error-Type header;
  - stdout and stderr flushed on every write, and the root logger writing awslambdaric's text
    format ("[LEVEL]\\ttime\\trequest id\\tmessage") to stdout.
What it does not reproduce: awslambdaric's native Runtime API client (aws-lambda-cpp, over
libcurl); this loop keeps one keep-alive http.client connection to the Runtime API instead, opened
after the handler's module is imported (http.client imports ssl, which the native client does
not: importing it first would move that cost out of the function's own Init). Nor the telemetry
log framing (_LAMBDA_TELEMETRY_LOG_FD), JSON log format, SnapStart hooks, X-Ray fault documents,
or simplejson's Decimal encoding (a Decimal is written as an int or a float here).
"""

import decimal
import importlib
import json
import logging
import os
import sys
import time
import traceback

# awslambdaric's error types (its FaultException).
MALFORMED_HANDLER_NAME = "Runtime.MalformedHandlerName"
BUILT_IN_MODULE_CONFLICT = "Runtime.BuiltInModuleConflict"
IMPORT_MODULE_ERROR = "Runtime.ImportModuleError"
USER_CODE_SYNTAX_ERROR = "Runtime.UserCodeSyntaxError"
HANDLER_NOT_FOUND = "Runtime.HandlerNotFound"
MARSHAL_ERROR = "Runtime.MarshalError"
UNMARSHAL_ERROR = "Runtime.UnmarshalError"

API_PREFIX = "/2018-06-01/runtime"


class Fault(Exception):
    """A failure of the runtime's own, with awslambdaric's error type."""

    def __init__(self, error_type, message, trace=None):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace


class Unbuffered:
    """A stream flushed on every write, as awslambdaric wraps stdout and stderr."""

    def __init__(self, stream):
        self.stream = stream

    def __getattr__(self, attr):
        return getattr(self.stream, attr)

    def write(self, msg):
        n = self.stream.write(msg)
        self.stream.flush()
        return n

    def writelines(self, msgs):
        self.stream.writelines(msgs)
        self.stream.flush()


_request_id = ""


class _RequestIdFilter(logging.Filter):
    def filter(self, record):
        record.aws_request_id = _request_id
        return True


def setup_logging():
    """The root logger's handler, in awslambdaric's text format, on stdout."""
    logging.Formatter.converter = time.gmtime
    h = logging.StreamHandler(sys.stdout)
    h.terminator = ""
    h.setFormatter(logging.Formatter(
        "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n", "%Y-%m-%dT%H:%M:%S"))
    h.addFilter(_RequestIdFilter())
    logging.getLogger().addHandler(h)


def isolate(task_root):
    """sys.path as Lambda's runtime has it, for this machine: the task root, then the standard
    library; modules already imported from the folders removed are forgotten."""
    removed = [p for p in sys.path if os.path.basename(p.rstrip("/")) in ("dist-packages", "site-packages")]
    sys.path[:] = [task_root] + [p for p in sys.path if p not in removed and p != task_root]
    for name, module in list(sys.modules.items()):
        f = getattr(module, "__file__", None) or ""
        if any(f.startswith(p.rstrip("/") + "/") for p in removed):
            del sys.modules[name]
    sys.dont_write_bytecode = True


def load_handler(handler):
    """Imports the handler's module and returns its function, failing as awslambdaric does."""
    try:
        modname, fname = handler.rsplit(".", 1)
    except ValueError as e:
        raise Fault(MALFORMED_HANDLER_NAME, f"Bad handler '{handler}': {e}") from None
    if modname.split(".")[0] in sys.builtin_module_names:
        raise Fault(BUILT_IN_MODULE_CONFLICT, f"Cannot use built-in module {modname} as a handler module")
    try:
        m = importlib.import_module(modname.replace("/", "."))
    except ImportError as e:
        raise Fault(IMPORT_MODULE_ERROR, f"Unable to import module '{modname}': {e}") from None
    except SyntaxError as e:
        trace = ['  File "%s" Line %s\n    %s' % (e.filename, e.lineno, e.text)]
        raise Fault(USER_CODE_SYNTAX_ERROR, f"Syntax error in module '{modname}': {e}", trace) from None
    try:
        return getattr(m, fname)
    except AttributeError:
        raise Fault(HANDLER_NOT_FOUND, f"Handler '{fname}' missing on module '{modname}'") from None


def error_document(error_type, message, trace, request_id=""):
    """awslambdaric's error document."""
    return {"errorMessage": message or "", "errorType": error_type or "", "requestId": request_id, "stackTrace": trace or []}


def fault_document(exc, request_id=""):
    """The error document of exc, being handled: a Fault's type, or the exception's class, with
    the traceback's frames outside this file."""
    if isinstance(exc, Fault):
        return error_document(exc.error_type, exc.message, exc.trace, request_id)
    frames = traceback.extract_tb(exc.__traceback__)
    while frames and frames[0].filename == __file__:
        frames = frames[1:]
    return error_document(type(exc).__name__, str(exc), traceback.format_list(frames), request_id)


def log_error(doc):
    """Logs an error document on stdout as awslambdaric's text format does."""
    line = "[ERROR] " + doc["errorType"] + (": " + doc["errorMessage"] if doc["errorMessage"] else "")
    lines = [line]
    if doc["stackTrace"]:
        lines.append("Traceback (most recent call last):")
        for element in doc["stackTrace"]:
            lines.extend(element.splitlines())
    sys.stdout.write("\r".join(lines) + "\n")


def _decimal(obj):
    if isinstance(obj, decimal.Decimal):
        return int(obj) if obj == obj.to_integral_value() else float(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def marshal(answer):
    """The answer's body and content type, as awslambdaric's marshaller makes them."""
    if isinstance(answer, bytes):
        return answer, "application/unknown"
    try:
        return json.dumps(answer, default=_decimal).encode("utf-8"), "application/json"
    except (TypeError, ValueError) as e:
        raise Fault(MARSHAL_ERROR, f"Unable to marshal response: {e}") from None


def unmarshal(body, content_type):
    """The event, as awslambdaric's marshaller reads it."""
    if content_type != "application/json":
        return body
    try:
        return json.loads(body)
    except ValueError as e:
        raise Fault(UNMARSHAL_ERROR, f"Unable to unmarshal input: {e}") from None


class _Identity:
    __slots__ = ("cognito_identity_id", "cognito_identity_pool_id")

    def __init__(self, d):
        self.cognito_identity_id = d.get("cognitoIdentityId")
        self.cognito_identity_pool_id = d.get("cognitoIdentityPoolId")


class _Client:
    __slots__ = ("installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d.get(k))


class _ClientContext:
    __slots__ = ("custom", "env", "client")

    def __init__(self, d):
        self.custom = d.get("custom")
        self.env = d.get("env")
        self.client = _Client(d["client"]) if isinstance(d.get("client"), dict) else None


class LambdaContext:
    """The handler's context, with awslambdaric's attributes."""

    def __init__(self, request_id, deadline_ms, function_arn, client_context, identity):
        self.aws_request_id = request_id
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = function_arn
        self.client_context = _ClientContext(client_context) if client_context is not None else None
        self.identity = _Identity(identity or {})
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        """Milliseconds until the invocation's deadline, 0 once it passed."""
        delta = self._deadline_ms - int(time.time() * 1000)
        return delta if delta > 0 else 0


def _json_header(value, name):
    if not value:
        return None
    try:
        return json.loads(value)
    except ValueError as e:
        raise Fault("Runtime.LambdaContextUnmarshalError", f"Unable to parse {name} JSON: {e}") from None


class RuntimeAPI:
    """The Runtime API at address (host:port), over one keep-alive connection, opened again if
    the server closed it between requests."""

    def __init__(self, address):
        import http.client  # after the handler's module: see the module's docstring

        self._http = http.client
        self.address = address
        self.conn = None

    def _request(self, method, path, body=None, headers=None):
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = self._http.HTTPConnection(self.address)
            try:
                self.conn.request(method, API_PREFIX + path, body=body, headers=headers or {})
                resp = self.conn.getresponse()
                data = resp.read()
                return resp, data
            except (self._http.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A keep-alive connection the server closed while idle: once more, on a new one.
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise

    def next(self):
        """The next invocation: its headers and body."""
        resp, body = self._request("GET", "/invocation/next")
        if resp.status != 200:
            raise RuntimeError(f"GET {API_PREFIX}/invocation/next: {resp.status} {body[:200]!r}")
        return resp, body

    def _post(self, path, body, headers):
        resp, data = self._request("POST", path, body=body, headers=headers)
        if resp.status != 202:
            raise RuntimeError(f"POST {API_PREFIX}{path}: {resp.status} {data[:200]!r}")

    def response(self, request_id, body, content_type):
        """Posts an invocation's answer."""
        self._post(f"/invocation/{request_id}/response", body, {"Content-Type": content_type})

    def error(self, request_id, doc):
        """Posts an invocation's error."""
        self._post(f"/invocation/{request_id}/error", json.dumps(doc).encode("utf-8"),
                   {"Content-Type": "application/json", "Lambda-Runtime-Function-Error-Type": doc["errorType"]})

    def init_error(self, doc):
        """Posts the failure of Init."""
        self._post("/init/error", json.dumps(doc).encode("utf-8"),
                   {"Content-Type": "application/json", "Lambda-Runtime-Function-Error-Type": doc["errorType"]})


def handle(api, handler, resp, body):
    """Runs the handler on one invocation and posts its answer or its error."""
    global _request_id
    h = resp.headers
    request_id = h.get("Lambda-Runtime-Aws-Request-Id", "")
    _request_id = request_id
    trace_id = h.get("Lambda-Runtime-Trace-Id")
    if trace_id is not None:
        os.environ["_X_AMZN_TRACE_ID"] = trace_id
    else:
        os.environ.pop("_X_AMZN_TRACE_ID", None)
    try:
        context = LambdaContext(
            request_id, int(h.get("Lambda-Runtime-Deadline-Ms", "0") or 0),
            h.get("Lambda-Runtime-Invoked-Function-Arn"),
            _json_header(h.get("Lambda-Runtime-Client-Context"), "Client Context"),
            _json_header(h.get("Lambda-Runtime-Cognito-Identity"), "Cognito Identity"))
        event = unmarshal(body, h.get("Content-Type"))
        answer, content_type = marshal(handler(event, context))
    except Exception as e:  # the invocation's error, whatever the handler raised
        doc = fault_document(e, request_id)
        log_error(doc)
        api.error(request_id, doc)
        return
    api.response(request_id, answer, content_type)


def main():
    sys.stdout = Unbuffered(sys.stdout)
    sys.stderr = Unbuffered(sys.stderr)
    address = os.environ["AWS_LAMBDA_RUNTIME_API"]
    task_root = os.environ.get("LAMBDA_TASK_ROOT") or os.getcwd()
    isolate(task_root)
    os.chdir(task_root)
    setup_logging()
    try:
        handler = load_handler(os.environ.get("_HANDLER", ""))
    except Exception as e:  # Init failed, whatever the module raised
        doc = fault_document(e)
        log_error(doc)
        RuntimeAPI(address).init_error(doc)
        sys.exit(1)
    api = RuntimeAPI(address)
    while True:
        resp, body = api.next()
        handle(api, handler, resp, body)


if __name__ == "__main__":
    main()
