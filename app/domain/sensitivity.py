"""SLO sensitivity: goodput as one latency limit tightens, with the other limits held.

Pure math: imports only the standard library, numpy, polars and app.domain.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from app.domain.checks import too_many_failed
from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics, Stat
from app.domain.request_sensitivity import RequestBuckets
from app.domain.request_sensitivity import request_buckets as request_buckets
from app.domain.request_sensitivity import request_limits as request_limits
from app.domain.request_sensitivity import request_sensitivity as request_sensitivity
from app.domain.sensitivity_steps import NOTHING, Best, as_given
from app.domain.sensitivity_steps import SensitivityStep as SensitivityStep
from app.domain.verdict import Columns, Percentile, SamplePercentiles, Slo, value_ms

MAX_STEPS = 60


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


def sensitivity(  # noqa: PLR0913 (optional evidence and kept columns, by keyword)
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
    the tightest limit it passes (binary search, or its requests' running totals: see
    `request_sensitivity`), and the steps are read off in one sweep over the sorted limits: the
    numbers of re-judging every point per step.
    """
    if not limits_ms:
        return []
    if samples is not None:
        if isinstance(samples, pl.DataFrame):
            samples = request_buckets(samples, base, metric, limits_ms)
        x_of = axes[0] if axes else [p.interactivity_tok_s_user(x_stat) for p in points]
        return request_sensitivity([(points, x_of)], base, limits_ms, basis, samples)[0]
    ascending = sorted(float(v) for v in limits_ms)
    xs, ys = axes or (
        [p.interactivity_tok_s_user(x_stat) for p in points],
        [p.tok_s_per_gpu(basis) for p in points],
    )
    if columns is None:

        def columns(m: Metric, p: Percentile) -> Sequence[float | None]:
            return point_values(points, m, p, sample_stats)

    by_step = _percentile_steps(points, base, metric, ascending, xs, ys, columns)
    return as_given(limits_ms, by_step)


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
    # one judgement per point, then a binary search over the sorted limits. In numpy: this runs
    # for every point of every sweep on each new SLO (a missing value, None, is NaN there and
    # fails every comparison, as it fails the check; the columns hold no NaN of their own).
    probe = with_limit(base, metric, ascending[-1])
    values = _floats(columns(metric, probe.stat(metric)))
    checked = values <= ascending[-1]  # meets the loosest limit and every other one
    failing = values > ascending[-1]  # misses at every step (NaN: neither)
    for m, p, limit in probe.checked():
        if m != metric:
            other = _floats(columns(m, p))
            checked &= other <= limit
            failing |= other > limit
    if any(point.num_failed or point.invalid for point in points):
        # A failed share over 1 − p misses a p-th percentile limit at every step (failures).
        lost = np.array(
            [any(too_many_failed(pt, p) for _, p, _ in probe.checked()) for pt in points]
        )
        checked &= ~lost
        failing |= lost
    steps = np.full(len(points), len(ascending), dtype=np.int64)
    at = np.flatnonzero(checked)
    if at.size:
        steps[at] = np.searchsorted(np.asarray(ascending), values[at], side="left")  # ≤ passes
    _settle_runs(points, steps, checked, failing, len(ascending))
    passing = checked & ~np.isnan(_floats(ys)) & (steps < len(ascending))
    entering: dict[int, list[tuple[float, float, float, int]]] = {}
    for index in np.flatnonzero(passing).tolist():
        y, x = ys[index], xs[index]
        assert y is not None  # not NaN above
        step = int(steps[index])
        # Ranked per total GPU (y × the point's divisor), as the read-off chooses.
        rank = y * points[index].num_gpus
        entering.setdefault(step, []).append((rank, y, x if x is not None else -math.inf, index))
    return _best_by_step(points, entering, len(ascending))


def _settle_runs(
    points: Sequence[PointMetrics],
    steps: np.ndarray,
    checked: np.ndarray,
    failing: np.ndarray,
    never: int,
) -> None:
    """Repeated runs at one load pass together or not at all (app.domain.run_agreement): each
    passing run's entering step becomes the latest of its load's checked runs, and `never`
    where one of them misses at every step. Unknown runs neither confirm nor contradict."""
    groups: dict[float, list[int]] = {}
    for i, point in enumerate(points):
        load = point.load()
        if load is not None:
            groups.setdefault(load, []).append(i)
    for idx in groups.values():
        if len(idx) < 2:
            continue
        runs = [i for i in idx if checked[i] or failing[i]]
        if not runs:
            continue
        together = never if any(failing[i] for i in runs) else max(int(steps[i]) for i in runs)
        for i in runs:
            if checked[i]:
                steps[i] = together


def _floats(values: Sequence[float | None]) -> np.ndarray:
    """Values as a float array, None as NaN."""
    return np.array(values, dtype=np.float64)


def _best_by_step(
    points: Sequence[PointMetrics],
    entering: dict[int, list[tuple[float, float, float, int]]],
    count: int,
) -> list[Best]:
    """The best passing point at each step: highest throughput per total GPU, ties to higher x,
    then the first point in stored order (as the read-off picks it)."""
    best: tuple[float, float, float, int] | None = None
    step = NOTHING
    steps = []
    for k in range(count):
        entered = entering.get(k)
        if entered:  # the best changes only where points enter: most steps repeat the last
            for rank, y, x, index in entered:
                key = (rank, y, x)
                if best is None or key > best[:3] or (key == best[:3] and index < best[3]):
                    best = (rank, y, x, index)
            if best is not None:
                point = points[best[3]]
                step = (best[1], point.concurrency, point.request_rate)
        steps.append(step)
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
