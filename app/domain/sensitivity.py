"""SLO sensitivity: goodput as one latency limit tightens, with the other limits held.

Pure math: imports only the standard library, polars and app.domain.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics, Stat
from app.domain.request_goodput import request_tpot_expr
from app.domain.verdict import Percentile, SamplePercentiles, Slo, value_ms

MAX_STEPS = 60


@dataclass(frozen=True)
class SensitivityStep:
    limit_ms: float
    goodput_tok_s_per_gpu: float | None
    concurrency: float | None
    request_rate: float | None


# The values a percentile-mode check compares, per point, for a (metric, percentile): callers
# that see the same points again may hand in remembered columns.
Columns = Callable[[Metric, Percentile], Sequence[float | None]]


def point_values(
    points: Sequence[PointMetrics],
    metric: Metric,
    percentile: Percentile,
    samples: Mapping[int, SamplePercentiles] | None = None,
) -> list[float | None]:
    """Each point's value of the metric at the percentile: stored, else from request samples."""
    given = samples or {}
    return [value_ms(p, metric, percentile, given.get(p.point_id)) for p in points]


def percentile_limits(
    sweeps: Sequence[Sequence[PointMetrics]],
    metric: Metric,
    percentile: Percentile,
    samples: Mapping[int, SamplePercentiles] | None = None,
    columns: Sequence[Sequence[float | None]] | None = None,
) -> list[float]:
    """Every value of the metric at the percentile (stored, else from request samples): goodput
    can only change there. `columns`, when given, are those values per sweep."""
    if columns is None:
        columns = [point_values(points, metric, percentile, samples) for points in sweeps]
    values = {v for column in columns for v in column if v is not None}
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
    samples: pl.DataFrame | RequestBuckets | None = None,
    sample_stats: Mapping[int, SamplePercentiles] | None = None,
    axes: tuple[Sequence[float | None], Sequence[float | None]] | None = None,
    columns: Columns | None = None,
) -> list[SensitivityStep]:
    """Goodput at each limit of `metric` (others as in `base`); per-request when samples (or
    their `request_buckets`, counted once for many sweeps) are given, else percentile mode (with
    `sample_stats` answering percentiles the files did not store). `axes` are the points' x
    (interactivity at `x_stat`) and y (tok/s per GPU on `basis`), and `columns` the values
    checks compare (see `point_values`), when the caller has them.

    Loosening one limit only ever turns verdicts from fail to pass, so each point is judged at
    the tightest limit it passes (binary search, or one sort of its requests), and the steps are
    read off in one sweep over the sorted limits: the numbers of re-judging every point per step.
    """
    if not limits_ms:
        return []
    order = sorted(range(len(limits_ms)), key=lambda i: limits_ms[i])
    ascending = [float(limits_ms[i]) for i in order]
    xs, ys = axes or (
        [p.interactivity_tok_s_user(x_stat) for p in points],
        [p.tok_s_per_gpu(basis) for p in points],
    )
    if samples is None:
        if columns is None:

            def columns(m: Metric, p: Percentile) -> Sequence[float | None]:
                return point_values(points, m, p, sample_stats)

        by_step = _percentile_steps(points, base, metric, ascending, xs, ys, columns)
    else:
        if isinstance(samples, pl.DataFrame):
            samples = request_buckets(samples, base, metric, ascending)
        by_step = _request_steps(samples, points, base, ascending, basis, xs)
    steps: list[SensitivityStep | None] = [None] * len(limits_ms)
    for k, i in enumerate(order):
        goodput, concurrency, rate = by_step[k]
        steps[i] = SensitivityStep(limits_ms[i], goodput, concurrency, rate)
    return [s for s in steps if s is not None]


# A step before its limit is known: goodput at it, and the operating point's concurrency and
# request rate (None, None, None when nothing passes). Tuples, not SensitivitySteps: made for
# every step of every sweep on each new SLO, and the step is built once, with its limit.
Best = tuple[float | None, float | None, float | None]
_NOTHING: Best = (None, None, None)


def _percentile_steps(
    points: Sequence[PointMetrics],
    base: Slo,
    metric: Metric,
    ascending: list[float],
    xs: Sequence[float | None],
    ys: Sequence[float | None],
    columns: Columns,
) -> list[Best]:
    # A percentile-mode verdict is each limit checked on its own, so a point passes at step k
    # exactly when it passes the other limits and its `metric` value is ≤ the k-th limit:
    # one judgement per point, then a binary search over the sorted limits.
    probe = with_limit(base, metric, ascending[-1])
    values = columns(metric, probe.stat(metric))
    others = [(columns(m, p), limit) for m, p, limit in probe.checked() if m != metric]
    loosest = ascending[-1]
    entering: dict[int, list[tuple[float, float, int]]] = {}
    for index, y in enumerate(ys):
        value = values[index]
        if y is None or value is None or value > loosest:
            continue
        passed = True
        for column, limit in others:  # a loop, not any(): this runs for every point
            v = column[index]
            if v is None or v > limit:
                passed = False
                break
        if not passed:
            continue
        x = xs[index]
        step = bisect.bisect_left(ascending, value)  # equality passes
        entering.setdefault(step, []).append((y, x if x is not None else -math.inf, index))
    return _best_by_step(points, entering, len(ascending))


@dataclass(frozen=True)
class RequestBuckets:
    """Per point: requests issued, and the good ones (under the other limits) added at each step
    of the sorted limits with their token counts; counted in one polars pass for any number of
    sweeps, then read per sweep."""

    limits_ms: tuple[float, ...]
    issued: dict[int, int]
    added: dict[int, list[tuple[int, int, int, int]]]  # point id → [(step, n, out, in)]


def request_buckets(
    samples: pl.DataFrame, base: Slo, metric: Metric, limits_ms: Sequence[float]
) -> RequestBuckets:
    """Bucket each good request by the first (ascending) limit its `metric` value meets."""
    ascending = sorted(float(v) for v in limits_ms)
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
    added: dict[int, list[tuple[int, int, int, int]]] = {}
    for point_id, step, n, out, inp in buckets.iter_rows():
        added.setdefault(int(point_id), []).append(
            (int(step), int(n), int(out or 0), int(inp or 0))
        )
    return RequestBuckets(tuple(ascending), {int(k): int(v) for k, v in issued.items()}, added)


def _request_steps(
    buckets: RequestBuckets,
    points: Sequence[PointMetrics],
    base: Slo,
    ascending: list[float],
    basis: Basis,
    xs: Sequence[float | None],
) -> list[Best]:
    """Per point, good requests summed cumulatively over the steps; each step then judges
    attainment and token goodput as the per-request read-off does (tests/domain hold the two
    equal), without building a verdict and its reason per point per step."""
    if list(buckets.limits_ms) != ascending:
        raise ValueError("request buckets were counted for other limits")
    issued, added = buckets.issued, buckets.added
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
    where = {point.point_id: (index, point) for index, point in judged}
    running = {point_id: [0, 0, 0] for point_id in where}
    # This sweep's buckets only, in step order: the work follows its own requests.
    events: dict[int, list[tuple[int, int, int, int]]] = {}
    for point_id in where:
        for step, n, out, inp in added.get(point_id, ()):
            events.setdefault(step, []).append((point_id, n, out, inp))
    # Loosening the limit only adds good requests, so each point's goodput and pass only grow:
    # the best point so far can only be overtaken by a point that gained requests at this step.
    best: tuple[float, float, int] | None = None  # (y, x, -index): ties go to the first point
    steps = []
    for k in range(len(ascending)):
        for point_id, n, out, inp in events.get(k, ()):
            total = running[point_id]
            total[0] += n
            total[1] += out
            total[2] += inp
            index, point = where[point_id]
            if not total[0] / issued[point_id] >= base.attainment:
                continue
            # request_stats: tokens of good requests on the basis ÷ duration ÷ GPUs.
            tokens = total[1] + (total[2] if basis == "total" else 0)
            if basis == "input":
                tokens = total[2]
            y = float(tokens) / float(point.duration_s or 0) / point.num_gpus
            x = xs[index]
            key = (y, x if x is not None else -math.inf, -index)
            if best is None or key > best:
                best = key
        if best is None:
            steps.append(_NOTHING)
        else:
            op = points[-best[2]]
            steps.append((best[0], op.concurrency, op.request_rate))
    return steps


def _best_by_step(
    points: Sequence[PointMetrics],
    entering: dict[int, list[tuple[float, float, int]]],
    count: int,
) -> list[Best]:
    """The best passing point at each step: highest throughput, ties to higher x, then the first
    point in stored order (as the read-off picks it)."""
    best: tuple[float, float, int] | None = None
    steps = []
    for k in range(count):
        for y, x, index in entering.get(k, []):
            if best is None or (y, x) > best[:2] or ((y, x) == best[:2] and index < best[2]):
                best = (y, x, index)
        if best is None:
            steps.append(_NOTHING)
        else:
            point = points[best[2]]
            steps.append((best[0], point.concurrency, point.request_rate))
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
