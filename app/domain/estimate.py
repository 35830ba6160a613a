"""The interpolated SLO read-off under a chosen interpolation; staircase means no estimate.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.domain.pareto import Interpolation, value_at
from app.domain.slo import Estimate


def estimate_tok_s_per_gpu(
    estimate: Estimate | None,
    method: Interpolation,
    y0: float | None,
    y1: float | None,
    front_xs: Sequence[float],
    front_ys: Sequence[float],
) -> float | None:
    """Throughput at the SLO crossing t between the operating point (y0) and the next load (y1).

    linear: y0 + t(y1 − y0) (metrics-and-costs §1.6(b)4, oracle O11); loglinear: y0·(y1/y0)^t;
    steffen: the sweep's monotone frontier curve at the interpolated interactivity (no
    extrapolation); staircase: None, only measured points count.
    """
    if estimate is None or method == "staircase":
        return None
    if method == "linear":
        return estimate.tok_s_per_gpu
    if method == "loglinear":
        if y0 is None or y1 is None or y0 <= 0 or y1 <= 0:
            return None
        return math.exp(math.log(y0) + estimate.t * (math.log(y1) - math.log(y0)))
    if estimate.interactivity_tok_s_user is None or not front_xs:
        return None
    return value_at(front_xs, front_ys, estimate.interactivity_tok_s_user, "steffen").y
