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
    value: float | None
    frontier_tok_s_per_gpu: float | None
    interactivity_tok_s_user: float | None
    reason: str | None = None


@dataclass(frozen=True)
class SloResult:
    """Per-limit attainment bounds, the bounds on meeting every limit, and the verdict."""

    parts: dict[Measure, Attainment]
    lower: float
    upper: float
    verdict: Verdict
    reason: str | None = None


def interactivity(window: WindowPoint, q: float) -> tuple[float | None, str | None]:
    """1000 / the window's TPOT at quantile q, in tok/s/user (the frontier's x)."""
    tpot = window.percentile("tpot", q)
    if tpot.value_ms is None:
        return None, tpot.reason
    if tpot.value_ms <= 0:
        return None, "TPOT reads 0 ms: no interactivity"
    return 1000.0 / tpot.value_ms, None


def efficiency(
    tok_s_per_gpu: float | None,
    x_tok_s_user: float | None,
    front_xs: Sequence[float],
    front_ys: Sequence[float],
    method: Interpolation,
    x_reason: str | None = None,
) -> Efficiency:
    """tok/s per GPU ÷ the frontier's at the same interactivity; unknown with the reason."""
    if tok_s_per_gpu is None:
        return Efficiency(None, None, x_tok_s_user, "no tok/s per GPU (GPU count unknown)")
    if x_tok_s_user is None:
        return Efficiency(None, None, None, f"no interactivity: {x_reason or 'TPOT unknown'}")
    read = value_at(front_xs, front_ys, x_tok_s_user, method)
    if read.y is None:
        return Efficiency(None, None, x_tok_s_user, f"frontier: {read.reason}")
    if read.y <= 0:
        return Efficiency(None, read.y, x_tok_s_user, "the frontier reads 0 tok/s/GPU there")
    return Efficiency(tok_s_per_gpu / read.y, read.y, x_tok_s_user)


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


def efficiency_bounds(
    tok_s_per_gpu: float | None,
    tpot_bucket_ms: tuple[float, float] | None,
    front_xs: Sequence[float],
    front_ys: Sequence[float],
    method: Interpolation,
) -> tuple[float | None, float | None]:
    """Efficiency wherever in its bucket the window's TPOT truly lies: the frontier falls as
    interactivity rises, so the bucket's upper TPOT (lowest interactivity, highest frontier)
    gives the lower bound and its lower TPOT the upper one. A bound whose interactivity is
    outside the frontier's measured range (or infinite, for a bucket starting at 0) is None."""
    if tok_s_per_gpu is None or tpot_bucket_ms is None:
        return (None, None)

    def at(tpot_ms: float) -> float | None:
        if not 0 < tpot_ms < math.inf:
            return None
        y = value_at(front_xs, front_ys, 1000.0 / tpot_ms, method).y
        return None if y is None or y <= 0 else tok_s_per_gpu / y

    lower_ms, upper_ms = tpot_bucket_ms
    return (at(upper_ms), at(lower_ms))
