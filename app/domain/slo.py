"""SLO read-off: verdict per measured point and goodput at an SLO, percentile and per-request modes.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import polars as pl

from app.domain.estimate import Estimate, interpolated_estimate
from app.domain.failures import successful_requests_per_s
from app.domain.intervals import DEFAULT_LEVEL
from app.domain.metrics import Basis, frechet_bounds
from app.domain.numbers import fmt_count
from app.domain.point import (
    LatencyStats,
    PointMetrics,
    Stat,
)
from app.domain.readoff_reasons import no_pass_reason
from app.domain.request_goodput import (
    Counted,
    RequestStats,
    request_counts,
)
from app.domain.run_agreement import settle_runs
from app.domain.verdict import (
    Check,
    Columns,
    SamplePercentiles,
    ShownStatus,
    Slo,
    Status,
    Verdict,
    attainment_verdict,
    column_verdicts,
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
    "(Fréchet, max(0, Σq − (K−1)) to min q): with P90 on two metrics, between 80 % and 90 %; "
    "with P99 TTFT and P50 TPOT, between 49 % and 50 %."
)
PER_REQUEST_MODE_NOTE = (
    "Per-request mode counts a request as good only if it succeeded and met every limit; "
    "attainment = good ÷ issued, so failed requests count as misses. A one-token request has "
    "no TPOT: it cannot fail a TPOT limit and is judged on its other limits."
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
    """Goodput of one sweep at an SLO, with a status of pass, fail or unknown.

    pass: some measured point meets the SLO; fail: every point was checked and fails; unknown:
    none passes and at least one could not be checked. `reason` says why there is no goodput.
    """

    mode: Mode
    basis: Basis
    status: Status
    reason: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_requests_per_s: float | None
    operating_point: OperatingPoint | None
    estimate: Estimate | None
    verdicts: tuple[Verdict, ...]
    joint_attainment_bounds: tuple[float, float] | None = None
    note: str = PERCENTILE_MODE_NOTE

    @property
    def meets_slo(self) -> bool | None:
        """True on pass, False on fail, None when unknown (never a fail for unmeasured data)."""
        return None if self.status == "unknown" else self.status == "pass"

    @property
    def shown_status(self) -> ShownStatus:
        """The status a table shows: "borderline" when the operating point's attainment interval
        straddles the target, or when nothing passes but some point's interval reaches it."""
        if self.status == "pass":
            op = self.operating_verdict
            return "borderline" if op is not None and op.borderline else "pass"
        if self.status == "fail" and any(v.borderline for v in self.verdicts):
            return "borderline"
        return self.status

    @property
    def operating_verdict(self) -> Verdict | None:
        """The verdict of the operating point: how it met each limit (and from what data)."""
        op = self.operating_point
        if op is None:
            return None
        return next((v for v in self.verdicts if v.point_id == op.point_id), None)


def percentile_readoff(  # noqa: PLR0913 (optional evidence and kept columns, by keyword)
    points: Sequence[PointMetrics],
    slo: Slo,
    basis: Basis = "output",
    x_stat: Stat = "p50",
    interpolate: bool = True,
    samples: Mapping[int, SamplePercentiles] | None = None,
    columns: Columns | None = None,
    axes: tuple[Sequence[float | None], Sequence[float | None]] | None = None,
    order: Sequence[int] | None = None,
) -> Readoff:
    """Goodput = highest tok/s/GPU among measured points meeting the SLO, plus an optional estimate.

    Each limit is checked at its own percentile: the stored statistic, else the percentile of the
    point's request samples (`samples`, by point id, from `sample_percentiles`), else unknown.
    The estimate interpolates between the operating point and the next point by load when that
    point is a known fail (metrics-and-costs §1.6(b)4), reported only if it beats the goodput.

    A caller that keeps what the points never change may hand in the `columns` of values the
    checks compare (without `samples`), the points' `axes`: x (interactivity at `x_stat`)
    and y (tok/s per GPU on `basis`), and their `load_order`.
    """
    given = samples or {}
    if columns is not None and not given:
        verdicts = column_verdicts(points, slo, columns)
    else:
        verdicts = tuple(point_verdict(p, slo, given.get(p.point_id)) for p in points)
    # A load is only as good as its runs: where repeated runs disagree, none of them passes.
    verdicts = settle_runs(points, verdicts)
    # Fréchet bounds hold for any mix of percentiles: each limit has its own share q_k.
    bounds = frechet_bounds(slo.quantiles()) if slo.limits() else None
    best = _best_passing(points, verdicts, basis, x_stat, axes)
    if best is None:
        return _no_goodput("percentile", basis, points, verdicts, bounds, PERCENTILE_MODE_NOTE)
    op_index, op = best
    estimate = None
    if interpolate:
        estimate = interpolated_estimate(points, verdicts, op_index, slo, basis, x_stat, order)
    return Readoff(
        mode="percentile",
        basis=basis,
        status="pass",
        reason=None,
        goodput_tok_s_per_gpu=op.tok_s_per_gpu,
        goodput_requests_per_s=successful_requests_per_s(points[op_index]),
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
    ci_level: float = DEFAULT_LEVEL,
) -> Readoff:
    """Per-request goodput: points with attainment ≥ target qualify; goodput = best token goodput.

    Token goodput = tokens of good requests (basis) ÷ duration_s ÷ GPUs; request goodput =
    good ÷ duration_s. A point without samples, duration or GPU count is unknown.
    """
    counts = request_counts(samples, slo.limits(), basis, ci_level)
    return request_readoff_from_counts(counts, points, slo, basis, x_stat)


def request_readoff_from_counts(
    counts: Mapping[int, Counted],
    points: Sequence[PointMetrics],
    slo: Slo,
    basis: Basis = "output",
    x_stat: Stat = "p50",
) -> Readoff:
    """request_readoff from counts already made for these points (see request_counts, whose
    `basis` and level these are).

    Each point's attainment has its Wilson interval; one that straddles the target makes the
    point borderline (it still qualifies for goodput by its measured attainment)."""
    target = slo.attainment
    verdicts = settle_runs(
        points,
        tuple(_request_verdict(p, counts.get(p.point_id), slo, target, basis) for p in points),
    )
    best = _best_passing(points, verdicts, basis, x_stat)
    if best is None:
        return _no_goodput("per_request", basis, points, verdicts, None, PER_REQUEST_MODE_NOTE)
    op_index, op = best
    stats = verdicts[op_index].requests
    return Readoff(
        mode="per_request",
        basis=basis,
        status="pass",
        reason=None,
        goodput_tok_s_per_gpu=op.tok_s_per_gpu,
        goodput_requests_per_s=stats.goodput_requests_per_s if stats else None,
        operating_point=op,
        estimate=None,
        verdicts=verdicts,
        note=PER_REQUEST_MODE_NOTE,
    )


def at_load(
    readoff: Readoff, points: Sequence[PointMetrics], load: float, x_stat: Stat = "p50"
) -> Readoff | None:
    """The read-off with its operating point moved to the best passing point (run) at `load`,
    its goodput that point's; None when nothing at that load meets the SLO. `readoff` was read
    from `points` (its verdicts in their order). No estimate: it is a measured point."""
    at = [i for i, p in enumerate(points) if p.load() == load]
    best = _best_passing(
        [points[i] for i in at], [readoff.verdicts[i] for i in at], readoff.basis, x_stat
    )
    if best is None:
        return None
    j, op = best
    stats = readoff.verdicts[at[j]].requests
    return replace(
        readoff,
        goodput_tok_s_per_gpu=op.tok_s_per_gpu,
        goodput_requests_per_s=(
            stats.goodput_requests_per_s if stats else successful_requests_per_s(points[at[j]])
        ),
        operating_point=op,
        estimate=None,
    )


def _request_verdict(
    point: PointMetrics, counted: Counted | None, slo: Slo, target: float, basis: Basis
) -> Verdict:
    """Attainment verdict of one point from its counts (`target` is slo.attainment)."""
    if counted is None:  # request_counts leaves out points without an issued request
        return Verdict(point.point_id, "unknown", note="no request samples")
    if basis != "output" and counted.missing_input:
        # Counting their input tokens as 0 would understate the goodput, not measure it.
        return Verdict(
            point.point_id,
            "unknown",
            note=(
                f"{fmt_count(counted.missing_input, 'good request')} without an input token "
                f"count: no {basis} goodput (the output basis has one)"
            ),
        )
    duration_s = point.duration_s
    if duration_s is None or not duration_s > 0:
        return Verdict(point.point_id, "unknown", note="benchmark duration not recorded")
    if point.num_gpus <= 0:
        return Verdict(point.point_id, "unknown", note="GPU count not recorded")
    stats = counted.stats(duration_s, point.num_gpus)
    low, high = counted.ci_low, counted.ci_high
    status: Status = "pass" if stats.attainment >= target else "fail"
    return attainment_verdict(point.point_id, status, stats, slo, (low, high), low < target <= high)


def _point_goodput(point: PointMetrics, verdict: Verdict, basis: Basis) -> float | None:
    """Throughput credited to a passing point: token goodput per request mode, else measured."""
    if verdict.requests is not None:
        return verdict.requests.goodput_tok_s_per_gpu
    return point.tok_s_per_gpu(basis)


def _best_passing(
    points: Sequence[PointMetrics],
    verdicts: Sequence[Verdict],
    basis: Basis,
    x_stat: Stat,
    axes: tuple[Sequence[float | None], Sequence[float | None]] | None = None,
) -> tuple[int, OperatingPoint] | None:
    """Index and summary of the passing point with the highest throughput (ties: higher x);
    `axes` are the points' x and y when the caller has them (see percentile_readoff).

    Ranked by the deployment's throughput (y × the point's divisor): per total GPU, as the
    docs choose the operating point. A sweep counted per decode or prefill GPU, whose points
    each have their own split, would otherwise pick another point in each accounting mode."""
    best: tuple[float, float, float, int] | None = None
    for i, (point, verdict) in enumerate(zip(points, verdicts, strict=True)):
        if verdict.status != "pass":
            continue
        if axes is not None and verdict.requests is None:
            x, y = axes[0][i], axes[1][i]
        else:
            x, y = point.interactivity_tok_s_user(x_stat), _point_goodput(point, verdict, basis)
        if y is None:
            continue
        key = (y * point.num_gpus, y, x if x is not None else -math.inf)
        if best is None or key > best[:3]:
            best = (*key, i)
    if best is None:
        return None
    point = points[best[3]]
    op = OperatingPoint(
        point_id=point.point_id,
        concurrency=point.concurrency,
        request_rate=point.request_rate,
        interactivity_tok_s_user=point.interactivity_tok_s_user(x_stat),
        tok_s_per_gpu=best[1],
    )
    return best[3], op


def _no_goodput(
    mode: Mode,
    basis: Basis,
    points: Sequence[PointMetrics],
    verdicts: tuple[Verdict, ...],
    bounds: tuple[float, float] | None,
    note: str,
) -> Readoff:
    """Readoff without goodput, with the reason nothing qualifies."""
    # A passing point without throughput is as unknown as an unchecked one: not a fail.
    status: Status = "fail" if all(v.status == "fail" for v in verdicts) else "unknown"
    return Readoff(
        mode=mode,
        basis=basis,
        status=status if points else "unknown",
        reason=no_pass_reason(points, verdicts, basis),
        goodput_tok_s_per_gpu=None,
        goodput_requests_per_s=None,
        operating_point=None,
        estimate=None,
        verdicts=verdicts,
        joint_attainment_bounds=bounds,
        note=note,
    )
