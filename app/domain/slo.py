"""SLO read-off: verdict per measured point and goodput at an SLO, percentile and per-request modes.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from app.domain.estimate import Estimate, interpolated_estimate, load_order
from app.domain.metrics import Basis, format_number, frechet_bounds
from app.domain.point import (
    LatencyStats,
    PointMetrics,
    Stat,
    int_or_none,
)
from app.domain.request_goodput import RequestStats, request_goodput_frame, request_stats
from app.domain.verdict import (
    Check,
    Slo,
    Verdict,
    point_verdict,
)

__all__ = [
    "Check",
    "Estimate",
    "LatencyStats",
    "OperatingPoint",
    "PointMetrics",
    "Readoff",
    "RequestStats",
    "Slo",
    "Verdict",
    "percentile_readoff",
    "point_verdict",
    "request_readoff",
]

Mode = Literal["percentile", "per_request"]
PERCENTILE_MODE_NOTE = (
    "Percentile mode is a marginal check: each limited metric's percentile is compared with its "
    "limit separately. The share of requests meeting all limits at once is only bounded "
    "(Fréchet): with P90 on two metrics, between 80 % and 90 %."
)
PER_REQUEST_MODE_NOTE = (
    "Per-request mode counts a request as good only if it succeeded and met every limit; "
    "attainment = good ÷ issued, so failed requests count as misses."
)


@dataclass(frozen=True)
class OperatingPoint:
    """The measured point that delivers the goodput, located by load and interactivity."""

    point_id: int
    concurrency: float | None
    request_rate: float | None
    interactivity_tok_s_user: float | None
    tok_s_per_gpu: float


@dataclass(frozen=True)
class Readoff:
    """Goodput of one sweep at an SLO; if nothing passes, meets_slo is False and reason says why."""

    mode: Mode
    basis: Basis
    meets_slo: bool
    reason: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_requests_per_s: float | None
    operating_point: OperatingPoint | None
    estimate: Estimate | None
    verdicts: tuple[Verdict, ...]
    joint_attainment_bounds: tuple[float, float] | None = None
    note: str = PERCENTILE_MODE_NOTE


def percentile_readoff(
    points: Sequence[PointMetrics],
    slo: Slo,
    basis: Basis = "output",
    x_stat: Stat = "p50",
    interpolate: bool = True,
) -> Readoff:
    """Goodput = highest tok/s/GPU among measured points meeting the SLO, plus an optional estimate.

    The estimate interpolates between the operating point and the next point by load when that
    point is a known fail (metrics-and-costs §1.6(b)4), reported only if it beats the goodput.
    """
    verdicts = tuple(point_verdict(p, slo) for p in points)
    q = int(slo.percentile[1:]) / 100
    bounds = frechet_bounds([q] * len(slo.limits())) if slo.limits() else None
    best = _best_passing(points, verdicts, basis, x_stat)
    if best is None:
        return _no_goodput("percentile", basis, points, verdicts, bounds, PERCENTILE_MODE_NOTE)
    op_index, op = best
    estimate = None
    if interpolate:
        estimate = interpolated_estimate(points, verdicts, op_index, slo, basis, x_stat)
    return Readoff(
        mode="percentile",
        basis=basis,
        meets_slo=True,
        reason=None,
        goodput_tok_s_per_gpu=op.tok_s_per_gpu,
        goodput_requests_per_s=points[op_index].requests_per_s,
        operating_point=op,
        estimate=estimate,
        verdicts=verdicts,
        joint_attainment_bounds=bounds,
    )


def request_readoff(
    samples: pl.DataFrame,
    points: Sequence[PointMetrics],
    slo: Slo,
    basis: Basis = "output",
    x_stat: Stat = "p50",
) -> Readoff:
    """Per-request goodput: points with attainment ≥ target qualify; goodput = best token goodput.

    Token goodput = tokens of good requests (basis) ÷ duration_s ÷ GPUs; request goodput =
    good ÷ duration_s. A point without samples, duration or GPU count is unknown.
    """
    rows = {
        int(r["point_id"]): r
        for r in request_goodput_frame(samples, slo.limits()).iter_rows(named=True)
    }
    return request_readoff_from_rows(rows, points, slo, basis, x_stat)


def request_readoff_from_rows(
    rows: Mapping[int, Mapping[str, object]],
    points: Sequence[PointMetrics],
    slo: Slo,
    basis: Basis = "output",
    x_stat: Stat = "p50",
) -> Readoff:
    """request_readoff from counts already aggregated by point id (see request_goodput_frame)."""
    verdicts = tuple(_request_verdict(p, rows.get(p.point_id), slo, basis) for p in points)
    best = _best_passing(points, verdicts, basis, x_stat)
    if best is None:
        return _no_goodput("per_request", basis, points, verdicts, None, PER_REQUEST_MODE_NOTE)
    op_index, op = best
    stats = verdicts[op_index].requests
    return Readoff(
        mode="per_request",
        basis=basis,
        meets_slo=True,
        reason=None,
        goodput_tok_s_per_gpu=op.tok_s_per_gpu,
        goodput_requests_per_s=stats.goodput_requests_per_s if stats else None,
        operating_point=op,
        estimate=None,
        verdicts=verdicts,
        note=PER_REQUEST_MODE_NOTE,
    )


def _request_verdict(
    point: PointMetrics, row: Mapping[str, object] | None, slo: Slo, basis: Basis
) -> Verdict:
    """Attainment verdict of one point from its aggregated sample row."""
    if row is None or not int_or_none(row.get("issued")):
        return Verdict(point.point_id, "unknown", note="no request samples")
    if point.duration_s is None or not point.duration_s > 0:
        return Verdict(point.point_id, "unknown", note="benchmark duration not recorded")
    if point.num_gpus <= 0:
        return Verdict(point.point_id, "unknown", note="GPU count not recorded")
    stats = request_stats(row, point.duration_s, point.num_gpus, basis)
    passed = stats.attainment >= slo.attainment
    reason = (
        f"attainment {format_number(stats.attainment * 100, 1)} % {'≥' if passed else '<'} "
        f"{format_number(slo.attainment * 100, 1)} % ({stats.good} of {stats.issued} requests good)"
    )
    return Verdict(point.point_id, "pass" if passed else "fail", requests=stats, note=reason)


def _point_goodput(point: PointMetrics, verdict: Verdict, basis: Basis) -> float | None:
    """Throughput credited to a passing point: token goodput per request mode, else measured."""
    if verdict.requests is not None:
        return verdict.requests.goodput_tok_s_per_gpu
    return point.tok_s_per_gpu(basis)


def _best_passing(
    points: Sequence[PointMetrics], verdicts: Sequence[Verdict], basis: Basis, x_stat: Stat
) -> tuple[int, OperatingPoint] | None:
    """Index and summary of the passing point with the highest throughput (ties: higher x)."""
    best: tuple[float, float, int] | None = None
    for i, (point, verdict) in enumerate(zip(points, verdicts, strict=True)):
        y = _point_goodput(point, verdict, basis) if verdict.status == "pass" else None
        if y is None:
            continue
        x = point.interactivity_tok_s_user(x_stat)
        key = (y, x if x is not None else -math.inf)
        if best is None or key > best[:2]:
            best = (key[0], key[1], i)
    if best is None:
        return None
    point = points[best[2]]
    op = OperatingPoint(
        point_id=point.point_id,
        concurrency=point.concurrency,
        request_rate=point.request_rate,
        interactivity_tok_s_user=point.interactivity_tok_s_user(x_stat),
        tok_s_per_gpu=best[0],
    )
    return best[2], op


def _no_goodput(
    mode: Mode,
    basis: Basis,
    points: Sequence[PointMetrics],
    verdicts: tuple[Verdict, ...],
    bounds: tuple[float, float] | None,
    note: str,
) -> Readoff:
    """Readoff without goodput, with the reason nothing qualifies."""
    return Readoff(
        mode=mode,
        basis=basis,
        meets_slo=False,
        reason=_no_pass_reason(points, verdicts, basis),
        goodput_tok_s_per_gpu=None,
        goodput_requests_per_s=None,
        operating_point=None,
        estimate=None,
        verdicts=verdicts,
        joint_attainment_bounds=bounds,
        note=note,
    )


def _no_pass_reason(
    points: Sequence[PointMetrics], verdicts: Sequence[Verdict], basis: Basis
) -> str:
    """Why no point gives a goodput: lightest failing load, unknown points, missing throughput."""
    if not points:
        return "no measured points"
    order = load_order(points) or list(range(len(points)))
    ordered = [verdicts[i] for i in order]
    parts: list[str] = []
    fails = [v for v in ordered if v.status == "fail"]
    if fails:
        lead = "lightest load" if ordered[0] is fails[0] else "lightest checked load"
        parts.append(f"no point meets the SLO: {lead} fails {fails[0].reason}")
    unknowns = [v for v in ordered if v.status == "unknown"]
    if unknowns:
        reasons = "; ".join(dict.fromkeys(v.reason for v in unknowns))
        noun = "point" if len(unknowns) == 1 else "points"
        parts.append(f"{len(unknowns)} {noun} unknown: {reasons}")
    if not parts:
        parts.append(f"points meeting the SLO have no {basis} throughput or GPU count")
    return "; ".join(parts)
