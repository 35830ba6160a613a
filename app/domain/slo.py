"""SLO read-off: verdict per measured point and goodput at an SLO, percentile and per-request modes.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import polars as pl

from app.domain.estimate import Estimate, interpolated_estimate, load_order
from app.domain.metrics import Basis, format_number, frechet_bounds, interactivity_tok_s_user
from app.domain.point import (
    METRIC_LABELS,
    METRICS,
    LatencyStats,
    Metric,
    PointMetrics,
    Stat,
    int_or_none,
)
from app.domain.request_goodput import RequestStats, request_goodput_frame, request_stats

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

Percentile = Literal["p50", "p90", "p95", "p99"]
Status = Literal["pass", "fail", "unknown"]
Mode = Literal["percentile", "per_request"]
PERCENTILE_VALUES: tuple[Percentile, ...] = ("p50", "p90", "p95", "p99")
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
class Slo:
    """Latency limits in ms (None = not checked), their percentile, and an attainment target."""

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    percentile: Percentile = "p90"
    attainment: float = 0.9

    def __post_init__(self) -> None:
        for metric, limit in self.limits():
            if math.isnan(limit) or limit < 0:
                raise ValueError(f"{METRIC_LABELS[metric]} limit must be ≥ 0 ms, got {limit}")
        if self.percentile not in PERCENTILE_VALUES:
            raise ValueError(f"percentile must be one of {PERCENTILE_VALUES}")
        if not 0.0 < self.attainment <= 1.0:
            raise ValueError(f"attainment target must be in (0, 1], got {self.attainment}")

    @classmethod
    def from_min_tok_s_user(
        cls,
        min_tok_s_user: float,
        *,
        ttft_ms: float | None = None,
        e2el_ms: float | None = None,
        percentile: Percentile = "p90",
        attainment: float = 0.9,
    ) -> Slo:
        """SLO whose TPOT limit is 1000 / min tok/s/user ms; the minimum must be > 0."""
        if not min_tok_s_user > 0:
            raise ValueError("minimum tok/s/user must be > 0")
        return cls(ttft_ms, 1000.0 / min_tok_s_user, e2el_ms, percentile, attainment)

    @property
    def min_tok_s_user(self) -> float | None:
        """Interactivity implied by the TPOT limit, 1000 / TPOT in tok/s/user; None if unlimited."""
        return interactivity_tok_s_user(self.tpot_ms)

    def limits(self) -> tuple[tuple[Metric, float], ...]:
        """The set limits as (metric, ms) pairs in TTFT, TPOT, E2EL order."""
        return self._limits

    @cached_property
    def _limits(self) -> tuple[tuple[Metric, float], ...]:
        # Read once per point of every read-off: computed once per SLO.
        values = (self.ttft_ms, self.tpot_ms, self.e2el_ms)
        return tuple((m, v) for m, v in zip(METRICS, values, strict=True) if v is not None)

    def describe(self) -> str:
        """Human summary, e.g. 'p90 TTFT ≤ 200 ms, p90 TPOT ≤ 50 ms'; 'no limits' if none set."""
        parts = [
            f"{self.percentile} {METRIC_LABELS[m]} ≤ {format_number(v)} ms"
            for m, v in self.limits()
        ]
        return ", ".join(parts) if parts else "no limits"


@dataclass(frozen=True)
class Check:
    """One limit checked at one point: value and limit in ms, pass/fail/unknown."""

    metric: Metric
    stat: Percentile
    value_ms: float | None
    limit_ms: float
    status: Status

    def describe(self) -> str:
        """E.g. 'p90 TTFT 260 ms > 200 ms' or 'p90 TPOT not measured'."""
        name = f"{self.stat} {METRIC_LABELS[self.metric]}"
        if self.value_ms is None:
            return f"{name} not measured"
        op = "≤" if self.status == "pass" else ">"
        return f"{name} {format_number(self.value_ms)} ms {op} {format_number(self.limit_ms)} ms"


@dataclass(frozen=True)
class Verdict:
    """Whether one point meets the SLO; `reason` names metric, value and limit.

    The checks and the reason are built on demand from the point and the SLO: read-offs over
    thousands of points only explain the few anyone shows.
    """

    point_id: int
    status: Status
    requests: RequestStats | None = None
    note: str | None = None  # a reason that is not a list of checks (per-request, unknown)
    point: PointMetrics | None = field(default=None, repr=False, compare=False)
    slo: Slo | None = field(default=None, repr=False, compare=False)

    @property
    def checks(self) -> tuple[Check, ...]:
        if self.point is None or self.slo is None:
            return ()
        return tuple(_check(self.point, self.slo, m, limit) for m, limit in self.slo.limits())

    @property
    def reason(self) -> str:
        if self.note is not None:
            return self.note
        if self.status == "pass":
            return "; ".join(c.describe() for c in self.checks) or "no limits set"
        fails = [c.describe() for c in self.checks if c.status == "fail"]
        unknowns = [c.describe() for c in self.checks if c.status == "unknown"]
        return "; ".join(fails + unknowns)

    @property
    def attainment(self) -> float | None:
        """Share of issued requests that were good (per-request mode only)."""
        return self.requests.attainment if self.requests else None


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


def point_verdict(point: PointMetrics, slo: Slo) -> Verdict:
    """Check each limit at the SLO percentile (equality passes); missing = unknown, never pass."""
    failed = unknown = False
    for metric, limit in slo.limits():
        value = point.latency(metric).get(slo.percentile)
        if value is None:
            unknown = True
        elif value > limit:
            failed = True
    overall: Status = "fail" if failed else "unknown" if unknown else "pass"
    return Verdict(point.point_id, overall, point=point, slo=slo)


def _check(point: PointMetrics, slo: Slo, metric: Metric, limit: float) -> Check:
    value = point.latency(metric).get(slo.percentile)
    status: Status = "unknown" if value is None else "pass" if value <= limit else "fail"
    return Check(metric, slo.percentile, value, limit, status)


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
