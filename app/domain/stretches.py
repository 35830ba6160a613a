"""Where is A really better than B: the ratio of two frontier bands at each interactivity of a
shared grid, split into stretches where A is significantly above, below, or not
distinguishable; and one-number summaries (the area under a frontier) with intervals.

Pure math: imports only the standard library, numpy, polars and app.domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl

from app.domain.frontier_band import Band, area
from app.domain.intervals import Interval, none, percentile_interval, ratio_interval
from app.domain.numbers import fmt_number

Side = Literal["above", "below", "same", "unknown"]
NO_AREA_RUNS = "area interval: per-request bands only (a few runs give no percentile interval)"


@dataclass(frozen=True)
class Stretch:
    """Neighbouring grid interactivities with one answer; `low`/`high` the lowest low end and
    highest high end of their ratio intervals (None for "unknown")."""

    side: Side
    x_from: float
    x_to: float
    low: float | None
    high: float | None


def band_interval(b: Band, k: int) -> Interval:
    """Grid point k of a band as an Interval (a per-request band keeps its resamples there, so
    two of them pair their resamples in a ratio)."""
    y, low, high = b.y[k], b.low[k], b.high[k]
    if y is None or low is None or high is None:
        return none(y, b.level, "no band here")
    if b.method == "bootstrap-requests":
        reps = b.values[:, k]
        return Interval(y, low, high, b.level, "bootstrap", None, b.resamples, "requests",
                        None if np.isnan(reps).any() else pl.Series(reps))  # fmt: skip
    return Interval(y, low, high, b.level, "t", None, None, "runs")


def ratios(a: Band, b: Band) -> list[Interval]:
    """A ÷ B's interval at each point of their shared grid (`ratio_interval`)."""
    if a.x != b.x:
        raise ValueError("the two bands must be read at the same grid")
    return [ratio_interval(band_interval(a, k), band_interval(b, k)) for k in range(len(a.x))]


def side_of(iv: Interval) -> Side:
    if iv.low is None or iv.high is None:
        return "unknown"
    if iv.low > 1:
        return "above"
    if iv.high < 1:
        return "below"
    return "same"


def stretches(xs: Sequence[float], intervals: Sequence[Interval]) -> list[Stretch]:
    """Runs of neighbouring grid points with the same side, in x order."""
    out: list[Stretch] = []
    for x, iv in zip(xs, intervals, strict=True):
        side = side_of(iv)
        if out and out[-1].side == side:
            last = out[-1]
            low = None if last.low is None or iv.low is None else min(last.low, iv.low)
            high = None if last.high is None or iv.high is None else max(last.high, iv.high)
            out[-1] = Stretch(side, last.x_from, x, low, high)
        else:
            out.append(Stretch(side, x, x, iv.low, iv.high))
    return out


def headline(found: Sequence[Stretch], a_name: str = "A", b_name: str = "B") -> str:
    """E.g. "A is 1.4–1.9× B from 40 to 90 tok/s/user; not distinguishable beyond 90"."""
    parts = []
    last = len(found) - 1
    for i, s in enumerate(found):
        span = _span(s, i == 0, i == last)
        if s.side in ("above", "below"):
            parts.append(f"{a_name} is {fmt_number(s.low)}–{fmt_number(s.high)}× {b_name} {span}")
        elif s.side == "same":
            parts.append(f"not distinguishable {span}")
        else:
            parts.append(f"no interval {span}")
    if not parts:
        return "no shared interactivity range"
    text = "; ".join(parts)
    return text[0].upper() + text[1:] if not text.startswith(a_name) else text


def _span(s: Stretch, first: bool, last: bool) -> str:
    lo, hi = fmt_number(s.x_from), fmt_number(s.x_to)
    if s.x_from == s.x_to:
        return f"at {lo} tok/s/user"
    if last and not first:
        return f"beyond {lo}"
    if first:
        return f"from {lo} to {hi} tok/s/user"
    return f"from {lo} to {hi}"


@dataclass(frozen=True)
class AreaSummary:
    """The area under each frontier over [lo, hi] (tok/s per GPU × tok/s/user) and A ÷ B;
    `stated` when the user gave the range (else the shared one), `reason` when it is unknown."""

    lo: float
    hi: float
    a: Interval
    b: Interval
    ratio: Interval
    stated: bool = False
    reason: str | None = None


def area_interval(b: Band, lo: float, hi: float) -> Interval:
    value, reps = area(b, lo, hi)
    if value is None:
        return none(None, b.level, "the frontier does not cover the whole range")
    if b.method != "bootstrap-requests":
        return none(value, b.level, NO_AREA_RUNS)
    return percentile_interval(value, pl.Series(reps), b.level, b.resamples, "requests")


def area_summary(a: Band, b: Band, lo: float, hi: float) -> AreaSummary:
    ia, ib = area_interval(a, lo, hi), area_interval(b, lo, hi)
    return AreaSummary(lo, hi, ia, ib, ratio_interval(ia, ib))


def unknown_area(lo: float, hi: float, level: float, reason: str) -> AreaSummary:
    """A stated range's area that cannot be given, and why (never a zero)."""
    return AreaSummary(
        lo, hi, none(None, level, reason), none(None, level, reason), none(None, level, reason),
        stated=True, reason=reason,
    )  # fmt: skip
