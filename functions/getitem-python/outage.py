"""Where the warm-up goes instead of DynamoDB when CLAIMS_WARMUP_OUTAGE is set.

Claim T4 is tried on Lambda, where nobody can take DynamoDB away, by sending the warm-up (only) to
an endpoint inside the function's own sandbox, on loopback, that refuses or never answers; the
handler's GetItem still goes to DynamoDB.
"""

import socket
import threading

# The values CLAIMS_WARMUP_OUTAGE takes.
REFUSED = "refused"  # nothing listens: the connection is refused at once
STALLED = "stalled"  # a listener that accepts and never answers: the handshake hangs


class OutageError(Exception):
    """The outage endpoint could not be opened."""


def outage_endpoint(how):
    """Opens the sandbox's endpoint for how and returns its URL. A stall's listener stays open
    for the life of the process, in a daemon thread, holding what it accepts."""
    ln = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        ln.bind(("127.0.0.1", 0))
        ln.listen()
    except OSError as e:
        ln.close()
        raise OutageError(f"CLAIMS_WARMUP_OUTAGE = {how!r}: {e}") from e
    url = "https://%s:%d" % ln.getsockname()
    if how == REFUSED:
        ln.close()
        return url
    if how == STALLED:
        threading.Thread(target=_hold, args=(ln,), name="claims-stalled-endpoint", daemon=True).start()
        return url
    ln.close()
    raise OutageError(f"CLAIMS_WARMUP_OUTAGE = {how!r}; want {REFUSED!r}, {STALLED!r} or unset")


def _hold(ln):
    # What it accepts is never read nor answered, and held until the listener is shut down,
    # which the function never does (the tests do, to stop the thread): then it is closed.
    held = []
    try:
        while True:
            try:
                conn, _ = ln.accept()
            except OSError:
                return
            held.append(conn)
    finally:
        for conn in held:
            conn.close()
