"""attach, in the deliberately broken build (brokentrace): the tracer is left off the SDK's call.

The function then reports phases of no connection at all (zeros, no attempts), which the T6 claim
test must catch (experiments/coldstart's sensitivity test).
"""

import contextlib


@contextlib.contextmanager
def attach(tracer):
    """Leaves tracer off the calls made inside the block."""
    yield tracer
