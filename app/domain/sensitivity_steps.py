"""The steps of an SLO sensitivity: goodput and the operating point's load at each limit, as
the percentile and the per-request sensitivity both return them.

Pure math: imports only the standard library.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final, NamedTuple

SMALL: Final = "in-memory"  # polars' engine for the queries of one page


class SensitivityStep(NamedTuple):
    """Goodput at one limit and the operating point's load there. A named tuple: every step of
    every sweep is built again on each new SLO, and a frozen dataclass costs ~4× more to make."""

    limit_ms: float
    goodput_tok_s_per_gpu: float | None
    concurrency: float | None
    request_rate: float | None


def as_given(limits_ms: Sequence[float], by_step: list[Best]) -> list[SensitivityStep]:
    """Steps computed over the ascending limits, returned in the order the limits were given."""
    if all(a <= b for a, b in itertools.pairwise(limits_ms)):  # as percentile_limits gives them
        return [
            SensitivityStep(limit, *best) for limit, best in zip(limits_ms, by_step, strict=True)
        ]
    order = sorted(range(len(limits_ms)), key=lambda i: limits_ms[i])
    steps: list[SensitivityStep | None] = [None] * len(limits_ms)
    for k, i in enumerate(order):
        goodput, concurrency, rate = by_step[k]
        steps[i] = SensitivityStep(limits_ms[i], goodput, concurrency, rate)
    return [s for s in steps if s is not None]


# A step before its limit is known: goodput at it, and the operating point's concurrency and
# request rate (None, None, None when nothing passes). Tuples, not SensitivitySteps: made for
# every step of every sweep on each new SLO, and the step is built once, with its limit.
Best = tuple[float | None, float | None, float | None]
NOTHING: Best = (None, None, None)
