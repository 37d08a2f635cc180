"""The function's configuration, from the environment (handler.py's docstring lists it)."""

import json
import re

# The variants, the values CLAIMS_VARIANT takes.
VARIANT_COLD = "cold"
VARIANT_WARM = "warm"

# The warm-up's bound when CLAIMS_WARMUP_TIMEOUT_MS is unset: ten times the article's 75 ms
# warm-up and a tenth of Lambda's 10 s Init limit.
DEFAULT_WARMUP_TIMEOUT_MS = 1000

# The values CLAIMS_WARMUP_OUTAGE takes (outage.py).
OUTAGES = ("refused", "stalled")


class SettingError(Exception):
    """A setting is missing or wrong; the message names it. Raised during Init, it fails Init."""


class Settings:
    """The function's configuration."""

    def __init__(self):
        self.variant = ""
        self.table = ""
        # key is the GetItem's Key, in the DynamoDB JSON botocore takes: {"pk": {"S": "bench"}}.
        self.key = {}
        self.ca_file = ""
        self.warmup_timeout = DEFAULT_WARMUP_TIMEOUT_MS / 1000.0  # seconds
        # warmup_outage sends the warm-up to an endpoint in the sandbox that refuses or stalls
        # (outage.py); "" sends it to DynamoDB.
        self.warmup_outage = ""
        # endpoint is AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL), None for DynamoDB's
        # regional endpoint; region is AWS_REGION (or AWS_DEFAULT_REGION). This botocore
        # (1.29) reads neither of the first two from the environment, as later ones and the
        # other languages' SDKs do, so the function passes them.
        self.endpoint = None
        self.region = ""


def load_settings(getenv):
    """Reads and checks the configuration through getenv (os.environ.get, or a dict's get in
    tests); a bad setting raises SettingError naming it."""
    s = Settings()
    s.variant = getenv("CLAIMS_VARIANT") or ""
    s.table = getenv("CLAIMS_TABLE") or ""
    s.ca_file = getenv("CLAIMS_CA_FILE") or ""
    s.warmup_outage = getenv("CLAIMS_WARMUP_OUTAGE") or ""
    if s.variant not in (VARIANT_COLD, VARIANT_WARM):
        raise SettingError(f"CLAIMS_VARIANT = {s.variant!r}; want {VARIANT_COLD!r} or {VARIANT_WARM!r}")
    if not s.table:
        raise SettingError("CLAIMS_TABLE is not set; want the table to read")
    s.key = parse_key(getenv("CLAIMS_KEY") or "")
    v = getenv("CLAIMS_WARMUP_TIMEOUT_MS") or ""
    if v:
        if not re.fullmatch(r"\+?[0-9]+", v) or int(v) <= 0:
            raise SettingError(f"CLAIMS_WARMUP_TIMEOUT_MS = {v!r}; want a positive number of milliseconds")
        s.warmup_timeout = int(v) / 1000.0
    if s.warmup_outage and s.warmup_outage not in OUTAGES:
        raise SettingError(f"CLAIMS_WARMUP_OUTAGE = {s.warmup_outage!r}; want {OUTAGES[0]!r}, {OUTAGES[1]!r} or unset")
    if s.ca_file:
        check_ca_file(s.ca_file)
    s.endpoint = getenv("AWS_ENDPOINT_URL_DYNAMODB") or getenv("AWS_ENDPOINT_URL") or None
    s.region = getenv("AWS_REGION") or getenv("AWS_DEFAULT_REGION") or ""
    if not s.region:
        raise SettingError("no region: set AWS_REGION")
    return s


class _Number(str):
    """A JSON number as written, for an N attribute."""


def _no_constant(name):
    raise ValueError(f"{name} is not a number DynamoDB takes")


def parse_key(v):
    """Turns CLAIMS_KEY, a JSON object such as {"pk":"bench","sk":"item-0"}, into a GetItem key:
    a string is an S attribute, a number an N (kept as written, as DynamoDB wants it)."""
    if not v:
        raise SettingError('CLAIMS_KEY is not set; want the item\'s key as JSON, {"pk":"bench"}')
    try:
        raw = json.loads(v, parse_int=_Number, parse_float=_Number, parse_constant=_no_constant)
    except ValueError as e:
        raise SettingError(f'CLAIMS_KEY = {v!r}: {e}; want a JSON object, {{"pk":"bench"}}') from None
    if not isinstance(raw, dict):
        raise SettingError(f'CLAIMS_KEY = {v!r} is a JSON {type(raw).__name__}; want a JSON object, {{"pk":"bench"}}')
    if not raw:
        raise SettingError(f"CLAIMS_KEY = {v!r}; want at least one attribute")
    key = {}
    for name, val in raw.items():
        if isinstance(val, _Number):
            key[name] = {"N": str(val)}
        elif isinstance(val, str):
            key[name] = {"S": val}
        else:
            raise SettingError(
                f"CLAIMS_KEY = {v!r}: attribute {name!r} is {type(val).__name__}; want a string or a number")
    return key


def check_ca_file(path):
    """Checks that CLAIMS_CA_FILE is a PEM file of certificates. botocore only reads it when a
    connection is made (urllib3 loads it into the SSL context then), so Init checks it."""
    try:
        with open(path, "rb") as f:
            pem = f.read()
    except OSError as e:
        raise SettingError(f"CLAIMS_CA_FILE: {e}") from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise SettingError(f"CLAIMS_CA_FILE = {path!r}: no PEM certificate in it")
