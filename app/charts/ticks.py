"""Tick labels on log axes, written by the tables' number formatter (app/domain/numbers).

Plotly labels a log axis spanning less than a few decades with its leading digit only ("5" at
50, "3" at 3,000), and its own number formats cannot express the app's rule. A log axis here
gets explicit ticks instead: the 1-2-5 sequence within the range, each labelled by `fmt_number`
(or `fmt_usd` for money). Linear axes keep Plotly's ticks, which static/js/charts.js writes with
thousands separators and no SI suffixes: at Plotly's round tick values that is the same text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from app.domain.numbers import fmt_number, fmt_usd

Formatter = Callable[[float], str]
STEPS = (1.0, 2.0, 5.0)
FINE_STEPS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)  # when 1-2-5 leaves fewer than three ticks
POWERS_ONLY_FROM = 4.0  # decades: from here on, 1-2-5 crowds the axis; powers of ten only


def number(value: float) -> str:
    return fmt_number(value)


def money(value: float) -> str:
    return fmt_usd(value)


def log_tick_values(lo: float, hi: float) -> list[float]:
    """Tick values from `lo` to `hi` (data values, both > 0) on a log axis."""
    if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
        return []
    lo, hi = min(lo, hi), max(lo, hi)
    decades = math.log10(hi / lo)
    steps = (1.0,) if decades >= POWERS_ONLY_FROM else STEPS
    values = _sequence(lo, hi, steps)
    if len(values) < 3:
        values = _sequence(lo, hi, FINE_STEPS)
    return values


def _sequence(lo: float, hi: float, steps: Iterable[float]) -> list[float]:
    out = []
    for exponent in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for step in steps:
            # round() keeps 0.1 × 2 from printing as 0.20000000000000004.
            value = round(step * 10.0**exponent, 12 - exponent if exponent < 0 else 12)
            if lo * (1 - 1e-9) <= value <= hi * (1 + 1e-9):
                out.append(value)
    return out


def log_ticks(
    axis: dict[str, Any], lo: float, hi: float, formatter: Formatter = number
) -> dict[str, Any]:
    """Set explicit ticks on a log `axis` dict covering `lo` … `hi` (data values); returns it."""
    values = log_tick_values(lo, hi)
    if values:
        axis.update(tickmode="array", tickvals=values, ticktext=[formatter(v) for v in values])
    return axis


def positive(values: Iterable[Any]) -> list[float]:
    """The finite, positive numbers among `values` (what a log axis can show)."""
    return [
        float(v)
        for v in values
        if isinstance(v, int | float) and not isinstance(v, bool) and 0 < v < math.inf
    ]
