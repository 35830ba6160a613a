"""The interpolated SLO read-off: where a limit is crossed between two loads, and its value
under a chosen interpolation (staircase means no estimate).

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.metrics import Basis, interactivity_tok_s_user
from app.domain.pareto import Interpolation, value_at
from app.domain.point import PointMetrics, Stat
from app.domain.verdict import Slo, Verdict

ESTIMATE_LABEL = "interpolated"


@dataclass(frozen=True)
class Estimate:
    """Interpolated goodput between the operating point and the next heavier (failing) point."""

    tok_s_per_gpu: float
    load: float | None
    t: float
    between: tuple[int, int]
    interactivity_tok_s_user: float | None = None
    label: str = ESTIMATE_LABEL


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


def load_order(points: Sequence[PointMetrics]) -> list[int]:
    """Indices of points by load: concurrency if every point has it, else request rate if all do."""
    for attr in ("concurrency", "request_rate"):
        loads = [getattr(p, attr) for p in points]
        if all(v is not None and not math.isnan(v) for v in loads):
            return sorted(range(len(points)), key=lambda i: (loads[i], i))
    return []


def interpolated_estimate(
    points: Sequence[PointMetrics],
    verdicts: Sequence[Verdict],
    i0: int,
    slo: Slo,
    basis: Basis,
    x_stat: Stat,
    order: Sequence[int] | None = None,
) -> Estimate | None:
    """Throughput where the first limit is crossed between op and the next heavier point;
    `order` is the points' `load_order` when the caller keeps it (points never change)."""
    order = load_order(points) if order is None else order
    if i0 not in order or order.index(i0) + 1 >= len(order):
        return None
    i1 = order[order.index(i0) + 1]
    p0, p1 = points[i0], points[i1]
    y0, y1 = p0.tok_s_per_gpu(basis), p1.tok_s_per_gpu(basis)
    if verdicts[i1].status != "fail" or y0 is None or y1 is None:
        return None
    t = _crossing(verdicts[i0], verdicts[i1])
    if t is None:
        return None
    y = y0 + t * (y1 - y0)
    if not y > y0:
        return None
    return _estimate_at(p0, p1, t, y, x_stat)


def _crossing(v0: Verdict, v1: Verdict) -> float | None:
    """Where, between two points' verdicts (0 … 1), the first limit is crossed; None when a
    metric is unmeasured or the heavier point fails on no latency."""
    pairs: list[tuple[float, float, float]] = []
    # Each limit at its own percentile, from the same values the verdicts used.
    for c0, c1 in zip(v0.checks, v1.checks, strict=True):
        if c0.value_ms is None or c1.value_ms is None:
            return None  # cannot show the unmeasured metric stays within its limit
        pairs.append((c0.value_ms, c1.value_ms, c0.limit_ms))
    if not pairs:
        return None
    crossed = [(lim - m0) / (m1 - m0) for m0, m1, lim in pairs if m1 > lim]
    if not crossed:
        return None  # the next point fails on no latency (its runs disagree, or failures)
    t = min(crossed)
    # The crossing metric equals its limit at t up to rounding; allow 1e-9 relative slack.
    if any(m0 + t * (m1 - m0) > lim * (1 + 1e-9) + 1e-12 for m0, m1, lim in pairs):
        return None
    return t


def _estimate_at(p0: PointMetrics, p1: PointMetrics, t: float, y: float, x_stat: Stat) -> Estimate:
    """The estimate at `t` between the two points: its load and interactivity interpolated."""
    l0, l1 = p0.load(), p1.load()
    load = l0 + t * (l1 - l0) if l0 is not None and l1 is not None else None
    tpot0, tpot1 = p0.tpot_ms.get(x_stat), p1.tpot_ms.get(x_stat)
    x = None
    if tpot0 is not None and tpot1 is not None:
        x = interactivity_tok_s_user(tpot0 + t * (tpot1 - tpot0))
    return Estimate(
        tok_s_per_gpu=y,
        load=load if load is not None and math.isfinite(load) else None,
        t=t,
        between=(p0.point_id, p1.point_id),
        interactivity_tok_s_user=x,
    )
