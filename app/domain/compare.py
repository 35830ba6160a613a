"""Comparing two systems across interactivity: throughput and cost ratios where both were measured.

Pure math: imports only the standard library and app.domain (no web, database or settings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.domain.intervals import Interval, Separation, separation
from app.domain.numbers import fmt_number, fmt_percent
from app.domain.pareto import Interpolation, value_at

# Interactivities (tok/s/user) people quote: InferenceX reads DeepSeek at ~35, chat at 25–50, etc.
HEADLINE_POINTS: tuple[float, ...] = (10, 20, 35, 50, 75, 100, 150, 200, 300)


@dataclass(frozen=True)
class Frontier:
    """A sweep's frontier: x strictly increasing (tok/s/user), y tok/s per GPU."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]

    @property
    def x_range(self) -> tuple[float, float] | None:
        return (self.xs[0], self.xs[-1]) if self.xs else None


@dataclass(frozen=True)
class RatioPoint:
    x_tok_s_user: float
    a_tok_s_per_gpu: float
    b_tok_s_per_gpu: float

    @property
    def throughput_ratio(self) -> float:
        """A ÷ B of tok/s per GPU: > 1 means A serves more per GPU at this interactivity."""
        return self.a_tok_s_per_gpu / self.b_tok_s_per_gpu

    def cost_ratio(self, a_usd_per_gpu_hour: float, b_usd_per_gpu_hour: float) -> float:
        """A ÷ B of $/Mtok with each system's own hourly price per useful GPU-hour."""
        return (a_usd_per_gpu_hour / self.a_tok_s_per_gpu) / (
            b_usd_per_gpu_hour / self.b_tok_s_per_gpu
        )


@dataclass(frozen=True)
class RatioCurve:
    points: tuple[RatioPoint, ...]
    shared_range: tuple[float, float] | None
    reason: str | None  # why there is no curve


def shared_range(a: Frontier, b: Frontier) -> tuple[float, float] | None:
    """The interactivities both frontiers cover, or None when they do not overlap."""
    ra, rb = a.x_range, b.x_range
    if ra is None or rb is None:
        return None
    lo, hi = max(ra[0], rb[0]), min(ra[1], rb[1])
    return (lo, hi) if lo <= hi else None


def no_overlap_reason(a: Frontier, b: Frontier, a_name: str = "A", b_name: str = "B") -> str:
    ra, rb = a.x_range, b.x_range
    if ra is None or rb is None:
        missing = a_name if ra is None else b_name
        return f"{missing} has no frontier (no point with both TPOT and throughput)"
    return (
        f"no shared interactivity range: {a_name} covers {_span(ra)}, {b_name} covers {_span(rb)}"
        " tok/s/user"
    )


def ratio_curve(
    a: Frontier, b: Frontier, method: Interpolation = "staircase", samples: int = 40
) -> RatioCurve:
    """A ÷ B at the frontier x of either sweep inside the shared range, plus an even grid.

    Each value is `value_at` of that sweep's frontier with `method`, so a ratio is exactly the
    quotient of the two read-offs at that interactivity; nothing is extrapolated.
    """
    span = shared_range(a, b)
    if span is None:
        return RatioCurve((), None, no_overlap_reason(a, b))
    lo, hi = span
    grid = {x for x in (*a.xs, *b.xs) if lo <= x <= hi}
    if samples > 1 and hi > lo:
        grid |= {lo + (hi - lo) * i / (samples - 1) for i in range(samples)}
    grid.add(lo)
    points = []
    for x in sorted(grid):
        pair = values_at(a, b, x, method)
        if pair is not None:
            points.append(RatioPoint(x, *pair))
    reason = None if points else "no interactivity where both have a positive throughput"
    return RatioCurve(tuple(points), span, reason)


def values_at(
    a: Frontier, b: Frontier, x: float, method: Interpolation = "staircase"
) -> tuple[float, float] | None:
    """Both frontiers' tok/s per GPU at x, or None when either has no positive value there."""
    ya = value_at(a.xs, a.ys, x, method).y
    yb = value_at(b.xs, b.ys, x, method).y
    if ya is None or yb is None or not ya > 0 or not yb > 0:
        return None
    return ya, yb


def headline_points(span: tuple[float, float] | None) -> list[float]:
    """Interactivities to state 'A is N× B' at: the quoted ones strictly inside the shared range.

    A range end is where one system's measurements stop (its lightest or heaviest load), so a
    ratio read there compares one system's extreme with the other's middle; it is never a
    headline. Without a quoted value inside, the middle of the range; a one-point range gives
    that point, which `range_ends_at` then marks.
    """
    if span is None:
        return []
    lo, hi = span
    inside = [x for x in HEADLINE_POINTS if lo < x < hi]
    if inside:
        return inside
    return [(lo + hi) / 2] if hi > lo else [lo]


def range_ends_at(
    a: Frontier, b: Frontier, x: float, a_name: str = "A", b_name: str = "B"
) -> tuple[str, ...]:
    """The systems whose measured interactivity range ends at x (equal within 1e-9 relative)."""
    out = []
    for name, frontier in ((a_name, a), (b_name, b)):
        span = frontier.x_range
        if span is not None and any(math.isclose(x, end, rel_tol=1e-9) for end in span):
            out.append(name)
    return tuple(out)


def _span(r: tuple[float, float]) -> str:
    return f"[{fmt_number(r[0])}, {fmt_number(r[1])}]"


@dataclass(frozen=True)
class Distinction:
    """Whether a ratio's interval separates A from B ("is A really faster?"), in words.

    `distinguishable` is None when there is no interval; `separation` says how many more
    requests or runs each side would need when the interval spans 1×.
    """

    ratio: Interval
    distinguishable: bool | None
    text: str
    separation: Separation | None = None


NOT_DISTINGUISHABLE = "not distinguishable with this data"


def distinguish(
    ratio: Interval, a: Interval, b: Interval, a_name: str = "A", b_name: str = "B"
) -> Distinction:
    """Does A ÷ B's interval exclude 1×? If not, a power estimate of the data that would."""
    if ratio.low is None or ratio.high is None:
        return Distinction(ratio, None, ratio.reason or "no interval")
    span = (
        f"the {fmt_percent(ratio.level)} interval "
        f"{fmt_number(ratio.low)}×–{fmt_number(ratio.high)}×"
    )
    if not ratio.contains(1.0):
        side = "more" if ratio.low > 1 else "less"
        return Distinction(
            ratio, True, f"distinguishable: {span} excludes 1× ({a_name} delivers {side})"
        )
    sep = separation(a, b)
    if sep.more_a is None or sep.more_b is None:
        how = (
            "the two values are equal, so no amount of data would separate them"
            if a.value is not None and a.value == b.value
            else "no power estimate without both intervals"
        )
    else:
        how = (
            f"about {sep.more_a:,} more {sep.unit_a} of {a_name} and {sep.more_b:,} more "
            f"{sep.unit_b} of {b_name} would separate them "
            f"({fmt_percent(sep.power)} power)"
        )
    return Distinction(ratio, False, f"{NOT_DISTINGUISHABLE}: {span} spans 1×; {how}", sep)
