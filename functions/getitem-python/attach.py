"""attach: the tracer goes on the SDK's call (replaced by broken/brokentrace/attach.py)."""

import contextlib

import phases


@contextlib.contextmanager
def attach(tracer):
    """Makes tracer the one the SDK's connections report to for the calls made inside the
    block, so that its hooks see the SDK's own connection."""
    previous = phases.set_current(tracer)
    try:
        yield tracer
    finally:
        phases.set_current(previous)
