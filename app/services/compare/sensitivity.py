"""SLO sensitivity glue: goodput (and $/Mtok) of each analysed sweep as one limit tightens,
others held."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import polars as pl

from app.domain.accounting import per_total_gpu
from app.domain.cost import usd_per_mtok
from app.domain.numbers import fmt_load
from app.domain.point import METRIC_LABELS, METRICS, Metric
from app.domain.sensitivity import (
    SensitivityStep,
    percentile_limits,
    point_values,
    request_buckets,
    request_limits,
    request_sensitivity,
    sensitivity,
    with_limit,
)
from app.domain.verdict import Percentile
from app.services.analysis import Params, SweepAnalysis
from app.services.readoff.price_columns import PriceColumn
from app.services.sweeps import point_splits
from app.services.sweeps.memo import check_values, keep, recall, remember


@dataclass(frozen=True)
class SensitivitySeries:
    result: SweepAnalysis
    steps: tuple[SensitivityStep, ...]
    costs: tuple[float | None, ...]  # $/Mtok per step under the first applicable price


Mode = Literal["percentile", "requests"]


def sensitivity_series(
    results: list[SweepAnalysis],
    params: Params,
    metric: Metric,
    group: PriceColumn | None,
    samples: pl.DataFrame | None,
) -> list[SensitivitySeries]:
    """Goodput (and $/Mtok) of each sweep as the `metric` limit tightens, others held."""
    if params.mode == "requests" and samples is not None:
        limits = _request_limits(results, samples, metric)
    else:
        limits = _percentile_limits(results, metric, params.slo.stat(metric))
    by_request = None
    if params.mode == "requests" and samples is not None:
        by_request = _request_steps(results, params, metric, limits, samples)
    out = []
    for i, result in enumerate(results):

        def steps_of(result: SweepAnalysis = result) -> list[SensitivityStep]:
            return sensitivity(
                result.points,
                params.slo,
                metric,
                limits,
                params.basis,
                params.stat,
                sample_stats=result.sample_stats,
                axes=(result.xs, result.ys),
                columns=partial(value_column, result),
            )

        if by_request is not None:
            steps = by_request[i]
        elif not result.sample_stats:
            # Stored points alone: the same limits read the same steps (kept per sweep).
            steps = remember(result.derived, _steps_key(result, params, metric, limits), steps_of)
        else:
            steps = steps_of()
        price = group.for_hardware(str(result.meta.hardware)) if group else None
        costs = tuple(
            None
            if price is None
            else usd_per_mtok(
                price.usd_per_gpu_hour,
                per_total_gpu(
                    s.goodput_tok_s_per_gpu,
                    result.meta.num_gpus,
                    point_splits.at_load(result.units, result.points, s.concurrency, s.request_rate)
                    if result.point_splits
                    else result.units,
                ),
                price.utilization,
            )
            for s in steps
        )
        out.append(SensitivitySeries(result, tuple(steps), costs))
    return out


def _percentile_limits(
    results: list[SweepAnalysis], metric: Metric, stat: Percentile
) -> list[float]:
    """The limits to step through: every value of the metric at its percentile in the selected
    sweeps. From stored statistics alone they depend on those sweeps only: kept with the first
    for the next SLO asked (a set of every point's value, 40k for 20 sweeps × 2,048)."""

    def limits() -> list[float]:
        columns = [value_column(r, metric, stat) for r in results]
        return percentile_limits([r.points for r in results], metric, stat, columns=columns)

    if not results or any(r.sample_stats for r in results):
        return limits()
    chosen = tuple((r.meta.id, r.meta.content_hash) for r in results)
    return remember(results[0].derived, ("percentile limits", metric, stat, chosen), limits)


def _request_limits(
    results: list[SweepAnalysis], samples: pl.DataFrame, metric: Metric
) -> list[float]:
    """The limits to step through: quantiles of the selected sweeps' requests (`samples`), which
    depend on those sweeps alone, so they are kept with the first for the next SLO asked (a
    sort of every request, ~0.1 s at 2M)."""
    if not results:
        return request_limits(samples, metric)
    chosen = tuple((r.meta.id, r.meta.content_hash) for r in results)
    key = ("request limits", metric, chosen)
    return remember(results[0].derived, key, lambda: request_limits(samples, metric))


def _request_steps(
    results: list[SweepAnalysis],
    params: Params,
    metric: Metric,
    limits: list[float],
    samples: pl.DataFrame,
) -> list[list[SensitivityStep]]:
    """Per-request steps of every sweep: one polars pass over all selected sweeps' requests and
    one over their buckets, unless each sweep kept its steps for these limits. A sweep's steps
    follow from its own points and requests and the limits, so a view shown again (the same
    SLO, another axis or price) reads them back."""
    keys = [_steps_key(r, params, metric, limits) for r in results]
    kept: list[list[SensitivityStep] | None]
    kept = [recall(r.derived, key) for r, key in zip(results, keys, strict=True)]
    if all(steps is not None for steps in kept):
        return [steps for steps in kept if steps is not None]
    buckets = request_buckets(samples, params.slo, metric, limits)
    sweeps = [(r.points, r.xs) for r in results]
    computed = request_sensitivity(sweeps, params.slo, limits, params.basis, buckets)
    return [
        keep(r.derived, key, steps) for r, key, steps in zip(results, keys, computed, strict=True)
    ]


def _steps_key(
    result: SweepAnalysis, params: Params, metric: Metric, limits: list[float]
) -> tuple[Any, ...]:
    """Where a sweep keeps its sensitivity steps for these limits (its GPU count: editable).

    Steps vary the `metric` limit and hold the others, so they follow from the SLO with that
    limit at any value (both modes judge each step at `with_limit(slo, metric, step)`): the key
    holds it at the loosest step, and a new SLO that moves only the varied limit reads them back.
    """
    slo = with_limit(params.slo, metric, max(limits)) if limits else params.slo
    return ("sensitivity", result.meta.num_gpus, slo, params.mode, params.basis, params.stat,
            metric, tuple(limits))  # fmt: skip


def value_column(result: SweepAnalysis, metric: Metric, stat: Percentile) -> list[float | None]:
    """The values a check of (metric, stat) compares at each point. Stored statistics never
    change, so without sample-derived values they are remembered per process per sweep."""
    if result.sample_stats:
        return point_values(result.points, metric, stat, result.sample_stats)
    return check_values(result.derived, result.points, metric, stat)


def sensitivity_percentile(params: Params, metric: str) -> str:
    """The statistic the varied limit is read at: its own percentile, or per-request."""
    if params.mode == "requests":
        return "per-request"
    for m in METRICS:
        if m == metric:
            return params.slo.stat(m)
    return params.slo.percentile


def sensitivity_empty_reason(
    series: list[SensitivitySeries], params: Params, metric: str
) -> str | None:
    """Why the sensitivity chart has nothing to draw, or None when it has a goodput somewhere."""
    if any(st.goodput_tok_s_per_gpu is not None for s in series for st in s.steps):
        return None
    label = METRIC_LABELS.get(metric, metric.upper())  # type: ignore[call-overload]
    if not series:
        return "no sweep selected"
    if not any(s.steps for s in series):
        if params.mode == "requests":
            return f"no request samples: per-request {label} limits need per-request data"
        stat = sensitivity_percentile(params, metric)
        return (
            f"no point has a {stat} {label}, stored or from request samples: choose a "
            f"percentile the files report (e.g. p50 or p99) or upload per-request data"
        )
    others = [
        f"{p} {METRIC_LABELS[m]} ≤ {fmt_load(v, 'ms')}"
        for m, p, v in params.slo.checked()
        if m != metric
    ]
    held = f" under the other limits ({', '.join(others)})" if others else ""
    return (
        f"no sweep meets the SLO at any {label} limit{held}: those points fail or are unknown; "
        "see the read-off table for each sweep's reason"
    )
