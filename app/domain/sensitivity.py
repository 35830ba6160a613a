"""SLO sensitivity: goodput as one latency limit tightens, with the other limits held.

Pure math: imports only the standard library, polars and app.domain.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics, Stat
from app.domain.request_goodput import request_tpot_expr
from app.domain.slo import percentile_readoff, request_readoff
from app.domain.verdict import Percentile, SamplePercentiles, Slo, check_limit

MAX_STEPS = 60


@dataclass(frozen=True)
class SensitivityStep:
    limit_ms: float
    goodput_tok_s_per_gpu: float | None
    concurrency: float | None
    request_rate: float | None


def percentile_limits(
    sweeps: Sequence[Sequence[PointMetrics]],
    metric: Metric,
    percentile: Percentile,
    samples: Mapping[int, SamplePercentiles] | None = None,
) -> list[float]:
    """Every value of the metric at the percentile (stored, else from request samples): goodput
    can only change there."""
    given = samples or {}
    values = {
        v
        for points in sweeps
        for p in points
        if (v := check_limit(p, metric, percentile, 0.0, given.get(p.point_id)).value_ms)
        is not None
    }
    return _thin(sorted(values))


def request_limits(samples: pl.DataFrame, metric: Metric, steps: int = 40) -> list[float]:
    """Evenly spaced quantiles of the per-request metric (TPOT per request by the vLLM rule)."""
    if samples.is_empty():
        return []
    value = request_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
    column = samples.filter(pl.col("ok")).select(value.alias("v")).drop_nulls()["v"]
    if column.is_empty():
        return []
    quantiles = {float(column.quantile(i / (steps - 1), "linear") or 0) for i in range(steps)}
    return sorted(quantiles)


def sensitivity(
    points: Sequence[PointMetrics],
    base: Slo,
    metric: Metric,
    limits_ms: Sequence[float],
    basis: Basis = "output",
    x_stat: Stat = "p50",
    samples: pl.DataFrame | None = None,
    sample_stats: Mapping[int, SamplePercentiles] | None = None,
) -> list[SensitivityStep]:
    """Goodput at each limit of `metric` (others as in `base`); per-request when samples given,
    else percentile mode (with `sample_stats` answering percentiles the files did not store)."""
    steps = []
    for limit in limits_ms:
        slo = with_limit(base, metric, limit)
        if samples is None:
            readoff = percentile_readoff(
                points, slo, basis, x_stat, interpolate=False, samples=sample_stats
            )
        else:
            readoff = request_readoff(samples, points, slo, basis, x_stat)
        op = readoff.operating_point
        steps.append(
            SensitivityStep(
                limit,
                readoff.goodput_tok_s_per_gpu,
                op.concurrency if op else None,
                op.request_rate if op else None,
            )
        )
    return steps


def with_limit(base: Slo, metric: Metric, limit_ms: float) -> Slo:
    """The same SLO with one limit changed."""
    if metric == "ttft":
        return dataclasses.replace(base, ttft_ms=limit_ms)
    if metric == "tpot":
        return dataclasses.replace(base, tpot_ms=limit_ms)
    return dataclasses.replace(base, e2el_ms=limit_ms)


def _thin(values: list[float]) -> list[float]:
    """At most MAX_STEPS values, keeping both ends."""
    if len(values) <= MAX_STEPS:
        return values
    stride = len(values) / (MAX_STEPS - 1)
    picked = [values[min(len(values) - 1, round(i * stride))] for i in range(MAX_STEPS - 1)]
    return sorted({*picked, values[-1]})
