"""SLO sensitivity: goodput as one latency limit tightens, with the other limits held.

Pure math: imports only the standard library, numpy, polars and app.domain.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import numpy as np
import polars as pl

from app.domain.checks import too_many_failed
from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics, Stat
from app.domain.request_goodput import defined_tpot_expr, request_tpot_expr
from app.domain.verdict import Columns, Percentile, SamplePercentiles, Slo, value_ms

MAX_STEPS = 60
SMALL: Final = "in-memory"  # polars' engine for the queries of one page


class SensitivityStep(NamedTuple):
    """Goodput at one limit and the operating point's load there. A named tuple: every step of
    every sweep is built again on each new SLO, and a frozen dataclass costs ~4× more to make."""

    limit_ms: float
    goodput_tok_s_per_gpu: float | None
    concurrency: float | None
    request_rate: float | None


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
    """Evenly spaced quantiles of the per-request metric (TPOT over requests with more than one
    output token), as polars' "linear" quantile gives them, read off one sort of the values."""
    if samples.is_empty():
        return []
    # Candidate limits are TPOTs requests have: a one-token request has none (it meets any).
    value = defined_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
    column = samples.filter(pl.col("ok")).select(value.alias("v")).drop_nulls()["v"]
    if column.is_empty():
        return []
    ordered = column.cast(pl.Float64).sort()
    last = len(ordered) - 1
    places = [last * (i / (steps - 1)) for i in range(steps)]
    # Only the values the steps read are taken out of the sorted column (a few dozen of what
    # may be millions of requests).
    wanted = sorted({math.floor(at) for at in places} | {math.ceil(at) for at in places})
    taken = dict(zip(wanted, ordered.gather(wanted).to_list(), strict=True))
    quantiles = set()
    for at in places:
        low, high = math.floor(at), math.ceil(at)
        quantiles.add(taken[low] + (taken[high] - taken[low]) * (at - low))
    return sorted(quantiles)


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
    return _as_given(limits_ms, by_step)


def _as_given(limits_ms: Sequence[float], by_step: list[Best]) -> list[SensitivityStep]:
    """Steps computed over the ascending limits, returned in the order the limits were given."""
    if all(a <= b for a, b in itertools.pairwise(limits_ms)):  # as percentile_limits gives them
        return [
            SensitivityStep(limit, *best) for limit, best in zip(limits_ms, by_step, strict=True)
        ]
    order = sorted(range(len(limits_ms)), key=lambda i: limits_ms[i])
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


@dataclass(frozen=True)
class RequestBuckets:
    """Per point: requests issued, and at each step of the sorted limits where it gains good
    requests (under the other limits), its running totals of good requests and their tokens.
    Counted in one polars pass for any number of sweeps."""

    limits_ms: tuple[float, ...]
    issued: dict[int, int]
    totals: pl.DataFrame  # point_id, step, n, out, inp (running, by point then step), issued


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
    # In memory: per page, a few thousand requests, where the streaming engine's start-up
    # costs more than the query (4.1 → 2.5 ms for 12,800 requests).
    issued = frame.group_by("point_id").agg(issued=pl.len()).collect(engine=SMALL)
    totals = (
        frame.filter(pl.col("good") & pl.col("v").is_not_null())
        .with_columns(step=pl.lit(limits).search_sorted(pl.col("v"), side="left"))
        .filter(pl.col("step") < len(ascending))
        .group_by("point_id", "step")
        .agg(
            n=pl.len(),
            out=pl.col("output_len").fill_null(0).sum(),
            inp=pl.col("input_len").fill_null(0).sum(),
        )
        .sort("point_id", "step")
        .with_columns(pl.col("n", "out", "inp").cum_sum().over("point_id"))
        .join(issued.lazy(), on="point_id")
        .collect(engine=SMALL)
    )
    counts = {int(k): int(v) for k, v in issued.iter_rows()}
    return RequestBuckets(tuple(ascending), counts, totals)


def request_sensitivity(
    sweeps: Sequence[tuple[Sequence[PointMetrics], Sequence[float | None]]],
    base: Slo,
    limits_ms: Sequence[float],
    basis: Basis,
    buckets: RequestBuckets,
) -> list[list[SensitivityStep]]:
    """Per-request sensitivity of many sweeps (their points and each point's x) in one pass.

    Each point's running totals judge attainment and token goodput at every step where it
    gains requests, as the per-request read-off does (tests/domain hold the two equal). A
    point's goodput only grows as the limit loosens, so the best point at a step is the best
    of all passing (point, step) rows up to it: polars picks each step's best, and a running
    maximum over at most steps × sweeps rows reads them off.
    """
    ascending = sorted(float(v) for v in limits_ms)
    if list(buckets.limits_ms) != ascending:
        raise ValueError("request buckets were counted for other limits")
    # A point without samples, duration or GPUs stays unknown (never passes) at every limit.
    judged = [
        (
            p.point_id,
            s,
            index,
            float(p.duration_s),
            float(p.num_gpus),
            -math.inf if x is None else x,
        )
        for s, (points, xs) in enumerate(sweeps)
        for index, (p, x) in enumerate(zip(points, xs, strict=True))
        if buckets.issued.get(p.point_id)
        and p.duration_s is not None
        and p.duration_s > 0
        and p.num_gpus > 0
    ]
    best_rows: list[tuple[int, int, float, float, float, int]] = []
    if judged:
        meta = pl.DataFrame(
            judged,
            schema={
                "point_id": pl.Int64(),
                "sweep": pl.Int64(),
                "index": pl.Int64(),
                "duration_s": pl.Float64(),
                "num_gpus": pl.Float64(),  # a unit count: kW and nodes are fractional
                "x": pl.Float64(),
            },
            orient="row",
        )
        tokens = {"output": pl.col("out"), "total": pl.col("out") + pl.col("inp")}.get(
            basis, pl.col("inp")
        )
        rows = (
            buckets.totals.lazy()
            .join(meta.lazy(), on="point_id")
            .select("sweep", "step", "x", "index", "n", "issued", tokens.alias("tokens"),
                    "duration_s", "num_gpus")
            .collect(engine=SMALL)
        )  # fmt: skip
        # As tests/oracles.py's request_stats divides: attainment = good ÷ issued; goodput =
        # good tokens on the basis ÷ duration ÷ GPUs. In numpy, each division rounded as
        # Python's: polars may divide by a broadcast value as a product with its reciprocal,
        # one ulp apart.
        attained = rows["n"].to_numpy() / rows["issued"].to_numpy()
        y = (
            rows["tokens"].to_numpy().astype(np.float64)
            / rows["duration_s"].to_numpy()
            / rows["num_gpus"].to_numpy().astype(np.float64)
        )
        # Ranked per total GPU (good tokens ÷ duration: the deployment's), as the read-off.
        rank = y * rows["num_gpus"].to_numpy().astype(np.float64)
        best_rows = list(
            rows.select("sweep", "step", pl.Series("rank", rank), pl.Series("y", y), "x", "index")
            .filter(pl.Series(attained >= base.attainment))
            .sort(
                "sweep",
                "step",
                "rank",
                "y",
                "x",
                "index",
                descending=[False, False, True, True, True, False],
            )  # fmt: skip
            .group_by("sweep", "step", maintain_order=True)
            .first()
            .iter_rows()
        )
    by_sweep: list[list[Best]] = [[_NOTHING] * len(ascending) for _ in sweeps]
    # (rank, y, x, -index): ties go to the first point.
    best: dict[int, tuple[float, float, float, int]] = {}
    for sweep, step, rank_best, y_best, x_best, index in best_rows:  # by sweep, then step
        key = (rank_best, y_best, x_best, -index)
        if sweep not in best or key > best[sweep]:
            best[sweep] = key
            op = sweeps[sweep][0][index]
            by_sweep[sweep][step:] = [(y_best, op.concurrency, op.request_rate)] * (
                len(ascending) - step
            )
    return [_as_given(limits_ms, steps) for steps in by_sweep]


def _best_by_step(
    points: Sequence[PointMetrics],
    entering: dict[int, list[tuple[float, float, float, int]]],
    count: int,
) -> list[Best]:
    """The best passing point at each step: highest throughput per total GPU, ties to higher x,
    then the first point in stored order (as the read-off picks it)."""
    best: tuple[float, float, float, int] | None = None
    step = _NOTHING
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
