"""warmup_policy, in the deliberately broken build (brokenwarmup): a failed warm-up fails Init.

That is what claim T4 warns against, and what its test must catch.
"""

# FAIL_INIT_ON_WARMUP_ERROR is True: a failed warm-up fails Init.
FAIL_INIT_ON_WARMUP_ERROR = True
