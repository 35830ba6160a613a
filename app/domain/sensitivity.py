"""SLO sensitivity: goodput as one latency limit tightens, with the other limits held.

Pure math: imports only the standard library, polars and app.domain.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics, Stat
from app.domain.request_goodput import request_tpot_expr
from app.domain.verdict import Percentile, SamplePercentiles, Slo, check_limit, point_verdict

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
    else percentile mode (with `sample_stats` answering percentiles the files did not store).

    Loosening one limit only ever turns verdicts from fail to pass, so each point is judged at
    the tightest limit it passes (binary search, or one sort of its requests), and the steps are
    read off in one sweep over the sorted limits: the numbers of re-judging every point per step.
    """
    if not limits_ms:
        return []
    order = sorted(range(len(limits_ms)), key=lambda i: limits_ms[i])
    ascending = [float(limits_ms[i]) for i in order]
    if samples is None:
        by_step = _percentile_steps(points, base, metric, ascending, basis, x_stat, sample_stats)
    else:
        by_step = _request_steps(samples, points, base, metric, ascending, basis, x_stat)
    steps: list[SensitivityStep | None] = [None] * len(limits_ms)
    for k, i in enumerate(order):
        steps[i] = dataclasses.replace(by_step[k], limit_ms=limits_ms[i])
    return [s for s in steps if s is not None]


def _percentile_steps(
    points: Sequence[PointMetrics],
    base: Slo,
    metric: Metric,
    ascending: list[float],
    basis: Basis,
    x_stat: Stat,
    sample_stats: Mapping[int, SamplePercentiles] | None = None,
) -> list[SensitivityStep]:
    slos = [with_limit(base, metric, limit) for limit in ascending]  # one SLO per step
    stats = sample_stats or {}

    def passes(point: PointMetrics, k: int) -> bool:
        return point_verdict(point, slos[k], stats.get(point.point_id)).status == "pass"

    entering: dict[int, list[tuple[float, float, int]]] = {}
    for index, point in enumerate(points):
        y = point.tok_s_per_gpu(basis)
        if y is None or not passes(point, len(ascending) - 1):
            continue
        low, high = 0, len(ascending) - 1  # the first limit it passes lies in [low, high]
        while low < high:
            mid = (low + high) // 2
            if passes(point, mid):
                high = mid
            else:
                low = mid + 1
        x = point.interactivity_tok_s_user(x_stat)
        entering.setdefault(low, []).append((y, x if x is not None else -math.inf, index))
    return _best_by_step(points, entering, len(ascending))


def _request_steps(
    samples: pl.DataFrame,
    points: Sequence[PointMetrics],
    base: Slo,
    metric: Metric,
    ascending: list[float],
    basis: Basis,
    x_stat: Stat,
) -> list[SensitivityStep]:
    """Per point: requests good under the other limits, bucketed by the first step whose limit
    their `metric` value meets, then summed cumulatively over the steps; each step then judges
    attainment and token goodput as the per-request read-off does (tests/domain hold the two
    equal), without building a verdict and its reason per point per step."""
    others = [(m, limit) for m, limit in base.limits() if m != metric]
    good = pl.col("ok").fill_null(False)
    for m, limit in others:
        value = request_tpot_expr() if m == "tpot" else pl.col(f"{m}_ms")
        good = good & (value <= limit).fill_null(False)
    value = request_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
    limits = pl.Series("limits", ascending, dtype=pl.Float64)
    frame = samples.lazy().with_columns(good=good, v=value.cast(pl.Float64))
    issued = dict(frame.group_by("point_id").agg(pl.len()).collect().iter_rows())
    buckets = (
        frame.filter(pl.col("good") & pl.col("v").is_not_null())
        .with_columns(step=pl.lit(limits).search_sorted(pl.col("v"), side="left"))
        .filter(pl.col("step") < len(ascending))
        .group_by("point_id", "step")
        .agg(
            n=pl.len(),
            out=pl.col("output_len").sum(),
            inp=pl.col("input_len").sum(),
        )
        .collect()
    )
    added: dict[int, dict[int, tuple[int, int, int]]] = {}
    for point_id, step, n, out, inp in buckets.iter_rows():
        added.setdefault(int(step), {})[int(point_id)] = (int(n), int(out or 0), int(inp or 0))
    running = {int(p): [0, 0, 0] for p in issued}
    # What the per-request verdict needs of each point, hoisted out of the steps: a point
    # without samples, duration or GPUs stays unknown (never passes) at every limit.
    judged = [
        (index, point)
        for index, point in enumerate(points)
        if issued.get(point.point_id)
        and point.duration_s is not None
        and point.duration_s > 0
        and point.num_gpus > 0
    ]
    xs = {i: p.interactivity_tok_s_user(x_stat) for i, p in judged}
    steps = []
    for k in range(len(ascending)):
        for point_id, (n, out, inp) in added.get(k, {}).items():
            total = running[point_id]
            total[0] += n
            total[1] += out
            total[2] += inp
        best: tuple[float, float, int] | None = None
        for index, point in judged:
            n_good, out, inp = running[point.point_id]
            if not n_good / issued[point.point_id] >= base.attainment:
                continue
            # request_stats: tokens of good requests on the basis ÷ duration ÷ GPUs.
            tokens = {"output": float(out), "total": float(out) + float(inp), "input": float(inp)}
            y = tokens[basis] / float(point.duration_s or 0) / point.num_gpus
            x = xs[index]
            key = (y, x if x is not None else -math.inf)
            if best is None or key > best[:2]:
                best = (key[0], key[1], index)
        if best is None:
            steps.append(SensitivityStep(0.0, None, None, None))
        else:
            op = points[best[2]]
            steps.append(SensitivityStep(0.0, best[0], op.concurrency, op.request_rate))
    return steps


def _best_by_step(
    points: Sequence[PointMetrics],
    entering: dict[int, list[tuple[float, float, int]]],
    count: int,
) -> list[SensitivityStep]:
    """The best passing point at each step: highest throughput, ties to higher x, then the first
    point in stored order (as the read-off picks it)."""
    best: tuple[float, float, int] | None = None
    steps = []
    for k in range(count):
        for y, x, index in entering.get(k, []):
            if best is None or (y, x) > best[:2] or ((y, x) == best[:2] and index < best[2]):
                best = (y, x, index)
        if best is None:
            steps.append(SensitivityStep(0.0, None, None, None))
        else:
            point = points[best[2]]
            steps.append(SensitivityStep(0.0, best[0], point.concurrency, point.request_rate))
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
