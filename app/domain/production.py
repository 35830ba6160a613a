"""A production window beside a benchmark frontier: efficiency, SLO attainment and cost.

Pure: standard library only. Efficiency is the window's tok/s per GPU over the frontier's at
the window's interactivity, read with the read-off's interpolation rule (app.domain.pareto's
value_at) and never extrapolated: outside the frontier's measured range it is unknown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.numbers import fmt_number
from app.domain.pareto import Interpolation, value_at
from app.domain.prom_histogram import (
    Attainment,
    HistogramError,
    Verdict,
    attainment,
    joint_bounds,
    verdict,
)
from app.domain.prom_names import Measure
from app.domain.prom_window import WindowPoint


@dataclass(frozen=True)
class Efficiency:
    """Window tok/s per GPU ÷ the frontier's. `value` only where the data fix one number (an
    exact mean TPOT, or a frontier flat across the TPOT's bucket); otherwise the interval
    [lower, upper] the bucket's edges allow (a side None: outside the frontier's range)."""

    value: float | None
    frontier_tok_s_per_gpu: float | None
    interactivity_tok_s_user: float | None
    reason: str | None = None
    lower: float | None = None
    upper: float | None = None
    # The interactivity the TPOT's bucket allows, [low, high) tok/s/user (high None: no end).
    interactivity_range: tuple[float, float | None] | None = None


@dataclass(frozen=True)
class TpotRead:
    """The window's TPOT at the frontier's statistic: a percentile read off the buckets (the
    bucket it truly lies in) or the exact mean (_sum ÷ _count, no bucket)."""

    value_ms: float | None
    bucket_ms: tuple[float, float] | None
    reason: str | None = None


@dataclass(frozen=True)
class SloResult:
    """Per-limit attainment bounds, the bounds on meeting every limit, and the verdict."""

    parts: dict[Measure, Attainment]
    lower: float
    upper: float
    verdict: Verdict
    reason: str | None = None


def tpot_read(window: WindowPoint, stat: str) -> TpotRead:
    """The window's TPOT at `stat` ("mean", or "p50" … "p99.9")."""
    if stat == "mean":
        value, reason = window.mean("tpot")
        return TpotRead(value, None, reason)
    found = window.percentile("tpot", float(stat[1:]) / 100)
    return TpotRead(found.value_ms, found.bucket_ms, found.reason)


def interactivity(tpot: TpotRead) -> tuple[float | None, str | None]:
    """1000 / the window's TPOT, in tok/s/user (the frontier's x)."""
    if tpot.value_ms is None:
        return None, tpot.reason
    if tpot.value_ms <= 0:
        return None, "TPOT reads 0 ms: no interactivity"
    return 1000.0 / tpot.value_ms, None


def efficiency(
    tok_s_per_gpu: float | None,
    tpot: TpotRead,
    front_xs: Sequence[float],
    front_ys: Sequence[float],
    method: Interpolation,
) -> Efficiency:
    """tok/s per GPU ÷ the frontier's at the window's interactivity; unknown with the reason.

    A percentile read off buckets lies somewhere in its bucket (lower, upper] ms, so the
    interactivity lies in [1000/upper, 1000/lower): efficiency is read at every frontier value
    over that range (its edges and the frontier points inside), giving an interval. One value
    only when the range fixes it; interpolating inside the bucket would invent it."""
    x, x_reason = interactivity(tpot)
    if tok_s_per_gpu is None:
        return Efficiency(None, None, x, "no tok/s per GPU (GPU count unknown)")
    if x is None:
        return Efficiency(None, None, None, f"no interactivity: {x_reason or 'TPOT unknown'}")
    if tpot.bucket_ms is None:  # the exact mean
        read = value_at(front_xs, front_ys, x, method)
        if read.y is None:
            return Efficiency(None, None, x, f"frontier: {read.reason}")
        if read.y <= 0:
            return Efficiency(None, read.y, x, "the frontier reads 0 tok/s/GPU there")
        value = tok_s_per_gpu / read.y
        return Efficiency(value, read.y, x, lower=value, upper=value, interactivity_range=(x, x))
    return _bucket_efficiency(tok_s_per_gpu, x, tpot.bucket_ms, front_xs, front_ys, method)


def _bucket_efficiency(
    tok_s_per_gpu: float,
    x: float,
    bucket_ms: tuple[float, float],
    front_xs: Sequence[float],
    front_ys: Sequence[float],
    method: Interpolation,
) -> Efficiency:
    """efficiency of a TPOT known only to lie in (lower, upper] ms: an interval, open on a side
    whose edge is outside the frontier's range."""
    lower_ms, upper_ms = bucket_ms
    x_low = 1000.0 / upper_ms if 0 < upper_ms < math.inf else 0.0
    x_high = 1000.0 / lower_ms if lower_ms > 0 else math.inf
    span = (x_low, None if math.isinf(x_high) else x_high)
    ends = [value_at(front_xs, front_ys, e, method) for e in (x_low, x_high)]
    inside = [y for fx, y in zip(front_xs, front_ys, strict=True) if x_low < fx < x_high]
    if all(e.y is None for e in ends) and not inside:
        reason = value_at(front_xs, front_ys, x, method).reason or ends[0].reason
        return Efficiency(None, None, x, f"frontier: {reason}", interactivity_range=span)
    known = [e.y for e in ends if e.y is not None] + inside
    if min(known) <= 0:
        return Efficiency(None, None, x, "the frontier reads 0 tok/s/GPU there")
    # The frontier's highest value gives the lowest efficiency; a side whose edge is outside
    # the frontier's range is open (the frontier may be anything there).
    top = None if ends[0].y is None else max(known)
    bottom = None if ends[1].y is None else min(known)
    lower = None if top is None else tok_s_per_gpu / top
    upper = None if bottom is None else tok_s_per_gpu / bottom
    if lower is not None and lower == upper:
        return Efficiency(lower, top, x, None, lower, upper, span)
    reason = _bucket_reason(bucket_ms, (x_low, x_high), front_xs, lower, upper)
    return Efficiency(None, None, x, reason, lower, upper, span)


def _bucket_reason(
    bucket_ms: tuple[float, float],
    x_range: tuple[float, float],
    front_xs: Sequence[float],
    lower: float | None,
    upper: float | None,
) -> str:
    """What the bucket lets one say of the efficiency, and why no single value."""
    lower_ms, upper_ms = bucket_ms
    x_low, x_high = x_range
    shown = f"{fmt_number(lower_ms)}–{'∞' if math.isinf(upper_ms) else fmt_number(upper_ms)} ms"
    xs_shown = f"{fmt_number(x_low)}–{'∞' if math.isinf(x_high) else fmt_number(x_high)}"
    measured = f"[{fmt_number(front_xs[0])}, {fmt_number(front_xs[-1])}] tok/s/user"
    if lower is not None and upper is not None:
        said = f"efficiency is between {_pct(lower)} and {_pct(upper)}"
    elif upper is not None:
        said = f"efficiency is at most {_pct(upper)} (the frontier is measured over {measured})"
    elif lower is not None:
        said = f"efficiency is at least {_pct(lower)} (the frontier is measured over {measured})"
    else:
        said = f"the frontier covers only {measured} of that range: efficiency unknown"
    return (
        f"TPOT lies in the {shown} bucket, so interactivity is {xs_shown} tok/s/user and "
        f"{said}; the buckets cannot say where inside"
    )


def _pct(value: float) -> str:
    return f"{fmt_number(value * 100)} %"


def slo_result(window: WindowPoint, limits_ms: Mapping[Measure, float], target: float) -> SloResult:
    """Attainment at every limit from the buckets; a window passes when the share meeting all
    limits is surely ≥ target, fails when it surely is not, else unknown (borderline)."""
    parts: dict[Measure, Attainment] = {}
    for measure, limit in limits_ms.items():
        hist = window.histograms.get(measure)
        if hist is None:
            return SloResult({}, 0.0, 1.0, "unknown", f"no {measure.upper()} histogram")
        try:
            parts[measure] = attainment(hist, limit)
        except HistogramError as exc:
            return SloResult({}, 0.0, 1.0, "unknown", str(exc))
    lower, upper = joint_bounds(list(parts.values()))
    found = verdict(lower, upper, target)
    reason = None
    if found == "unknown":
        reason = (
            f"attainment is between {fmt_number(lower * 100)} % and {fmt_number(upper * 100)} %, "
            f"around the {fmt_number(target * 100)} % target"
        )
        if len(parts) > 1 and all(p.exact for p in parts.values()):
            reason += " (separate histograms do not say which requests missed which limit)"
    return SloResult(parts, lower, upper, found, reason)
