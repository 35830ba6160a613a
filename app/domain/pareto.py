"""Pareto frontier of throughput per GPU vs interactivity, and reading a value off it at x*.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.numbers import fmt_number

Interpolation = Literal["staircase", "linear", "loglinear", "steffen"]
INTERPOLATIONS: tuple[Interpolation, ...] = ("staircase", "linear", "loglinear", "steffen")
NO_FRONTIER = "no frontier"


@dataclass(frozen=True)
class ValueAt:
    """Throughput read off a frontier at x*; y is None with a reason when there is no value.

    `index` is the frontier point used (staircase, or an exact x match); `bracket` the two
    frontier points interpolated between. Every method but staircase is an estimate.
    """

    y: float | None
    reason: str | None
    estimate: bool
    method: Interpolation
    index: int | None = None
    bracket: tuple[int, int] | None = None


def pareto_frontier(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[int]:
    """Indices of non-dominated points sorted by x ascending (x strictly up, y strictly down).

    Points with x ≤ 0 or a missing/non-finite x or y are excluded. Equal x keeps the highest y;
    an exact duplicate keeps the first index. O(n log n), as InferenceX's paretoFrontUpperLeft.
    """
    if len(xs) != len(ys):
        raise ValueError(f"xs and ys differ in length ({len(xs)} vs {len(ys)})")
    valid: list[tuple[float, float, int]] = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if x is None or y is None or not math.isfinite(x) or not math.isfinite(y) or x <= 0:
            continue
        valid.append((x, y, i))
    valid.sort(key=lambda p: (p[0], -p[1], p[2]))
    stack: list[tuple[float, float, int]] = []
    previous_x: float | None = None
    for x, y, i in valid:
        if x == previous_x:
            continue  # same x, y no higher than the one already considered
        previous_x = x
        while stack and y >= stack[-1][1]:
            stack.pop()
        stack.append((x, y, i))
    return [i for _, _, i in stack]


def steffen_slopes(xs: Sequence[float], ys: Sequence[float]) -> list[float]:
    """Steffen / d3.curveMonotoneX tangents at each point; xs strictly increasing, ≥ 2 points.

    Interior m_i = (sgn s_{i−1} + sgn s_i)·min(|s_{i−1}|, |s_i|, ½|p_i|); endpoints
    m_0 = (3s_0 − m_1)/2 and m_{n−1} = (3s_{n−2} − m_{n−2})/2; two points give the secant.
    """
    n = len(xs)
    if n < 2 or len(ys) != n:
        raise ValueError("need at least two points with matching xs and ys")
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    s = [(ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]
    if n == 2:
        return [s[0], s[0]]
    m = [0.0] * n
    for i in range(1, n - 1):
        p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i])
        m[i] = (_sign(s[i - 1]) + _sign(s[i])) * min(abs(s[i - 1]), abs(s[i]), 0.5 * abs(p))
    m[0] = (3 * s[0] - m[1]) / 2
    m[n - 1] = (3 * s[n - 2] - m[n - 2]) / 2
    return m


def value_at(
    front_xs: Sequence[float],
    front_ys: Sequence[float],
    x_star: float | None,
    method: Interpolation = "staircase",
    *,
    x_unit: str = "tok/s/user",
) -> ValueAt:
    """Frontier y at x* by `method`; never extrapolates outside [min x, max x] (y None + reason).

    Staircase (guaranteed) = y of the frontier point with the smallest x ≥ x*. A single-point
    frontier matches only its exact x. Steffen results are clamped to ≥ 0.
    """
    if method not in INTERPOLATIONS:
        raise ValueError(f"unknown interpolation {method!r}; expected one of {INTERPOLATIONS}")
    if len(front_xs) != len(front_ys):
        raise ValueError("front_xs and front_ys differ in length")
    if any(b <= a for a, b in zip(front_xs, front_xs[1:], strict=False)):
        raise ValueError("frontier xs must be strictly increasing (use pareto_frontier)")
    estimate = method != "staircase"

    def none(reason: str) -> ValueAt:
        return ValueAt(y=None, reason=reason, estimate=estimate, method=method)

    if not front_xs:
        return none(NO_FRONTIER)
    if x_star is None or not math.isfinite(x_star):
        return none("no target interactivity")
    lo, hi = front_xs[0], front_xs[-1]
    if x_star < lo or x_star > hi:
        return none(f"outside the measured range [{fmt_number(lo)}, {fmt_number(hi)}] {x_unit}")
    k = bisect_left(front_xs, x_star)
    if method == "staircase" or front_xs[k] == x_star:
        return ValueAt(y=front_ys[k], reason=None, estimate=estimate, method=method, index=k)

    x0, x1, y0, y1 = front_xs[k - 1], front_xs[k], front_ys[k - 1], front_ys[k]
    t = (x_star - x0) / (x1 - x0)
    if method == "linear":
        y = y0 + t * (y1 - y0)
    elif method == "loglinear":
        if y0 <= 0 or y1 <= 0:
            return none("log-linear interpolation needs positive throughput")
        y = math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    else:
        slopes = steffen_slopes(front_xs, front_ys)
        y = max(0.0, _hermite(y0, y1, slopes[k - 1], slopes[k], x1 - x0, t))
    return ValueAt(y=y, reason=None, estimate=True, method=method, bracket=(k - 1, k))


def _hermite(y0: float, y1: float, m0: float, m1: float, h: float, t: float) -> float:
    """Cubic Hermite segment at fraction t of width h with end tangents m0, m1."""
    t2, t3 = t * t, t * t * t
    return (
        (2 * t3 - 3 * t2 + 1) * y0
        + (t3 - 2 * t2 + t) * h * m0
        + (-2 * t3 + 3 * t2) * y1
        + (t3 - t2) * h * m1
    )


def _sign(value: float) -> int:
    """-1, 0 or 1 (Math.sign for finite numbers)."""
    return (value > 0) - (value < 0)
