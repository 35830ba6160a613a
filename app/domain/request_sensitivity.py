"""SLO sensitivity judged per request: the limits requests suggest, each point's good requests
bucketed by the limit they first meet, and every sweep's goodput at every step in one pass.

Pure math: imports only the standard library, numpy, polars and app.domain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from app.domain.metrics import Basis
from app.domain.point import Metric, PointMetrics
from app.domain.request_goodput import defined_tpot_expr, request_tpot_expr
from app.domain.sensitivity_steps import NOTHING, SMALL, Best, SensitivityStep, as_given
from app.domain.verdict import Slo


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
    best_rows = _best_rows(_judged(sweeps, buckets), buckets, basis, base.attainment)
    by_sweep: list[list[Best]] = [[NOTHING] * len(ascending) for _ in sweeps]
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
    return [as_given(limits_ms, steps) for steps in by_sweep]


Judged = tuple[int, int, int, float, float, float]  # point_id, sweep, index, duration, GPUs, x


def _judged(
    sweeps: Sequence[tuple[Sequence[PointMetrics], Sequence[float | None]]],
    buckets: RequestBuckets,
) -> list[Judged]:
    """The points that can pass. A point without samples, duration or GPUs stays unknown
    (never passes) at every limit."""
    return [
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


def _best_rows(
    judged: list[Judged], buckets: RequestBuckets, basis: Basis, attainment: float
) -> list[tuple[int, int, float, float, float, int]]:
    """Each sweep's best passing point at each step where one enters: (sweep, step, rank, y,
    x, index), by sweep then step."""
    if not judged:
        return []
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
    return list(
        rows.select("sweep", "step", pl.Series("rank", rank), pl.Series("y", y), "x", "index")
        .filter(pl.Series(attained >= attainment))
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
