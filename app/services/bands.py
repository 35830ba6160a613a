"""Frontier bands of analysed sweeps: which resamples a sweep has (its requests, else its
repeated runs), kept per sweep, and the band on a grid (app.domain.frontier_band)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from sqlalchemy.orm import Session

from app.domain.bootstrap import BOOTSTRAP_SEED
from app.domain.frontier_band import (
    NO_VARIATION,
    Band,
    PointRequests,
    Replicates,
    band,
    frontier_grid,
    request_replicates,
    resamples_for,
    run_replicates,
)
from app.domain.request_goodput import defined_tpot_expr
from app.schemas.answers.typed.readoff import BandOutDict
from app.services.analysis import Params, SweepAnalysis
from app.services.sweeps.memo import remember
from app.store import points as point_queries


@dataclass(frozen=True)
class SweepBand:
    """A sweep's band on a grid, or why it has none (`band` None)."""

    result: SweepAnalysis
    band: Band | None
    reason: str | None = None


def samples_for(session: Session, results: Sequence[SweepAnalysis]) -> dict[int, pl.DataFrame]:
    """Each sweep's request samples by id: the analysis' own (per-request mode), else read
    (cached per process by content hash, as a per-request read-off reads them)."""
    out = {int(r.meta.id): r.samples for r in results if r.samples is not None}
    missing = [int(r.meta.id) for r in results if r.samples is None]
    if missing:
        sweeps = point_queries.sweeps_with_points(session, missing)
        out.update(point_queries.sweeps_samples(session, sweeps))
    return out


def replicates(
    result: SweepAnalysis, params: Params, samples: pl.DataFrame | None
) -> Replicates | None:
    """The sweep's resamples: its requests where it has request samples, else its repeated runs
    (None when it has neither). Kept per sweep, axes and GPU count (points never change)."""
    has_requests = samples is not None and not samples.is_empty()
    key = ("band replicates", params.stat, params.basis, params.accounting, has_requests)

    def build() -> Replicates | None:
        if has_requests and samples is not None:
            return _by_requests(result, params, samples)
        loads = [p.load() for p in result.points]
        counted: dict[float, int] = {}
        for load in loads:
            if load is not None:
                counted[load] = counted.get(load, 0) + 1
        if not any(n > 1 for n in counted.values()):
            return None
        draws = resamples_for(len(loads), len(counted))
        return run_replicates(loads, result.xs, result.ys, draws, BOOTSTRAP_SEED)

    found: Replicates | None = remember(result.derived, key, build)
    return found


def _by_requests(result: SweepAnalysis, params: Params, samples: pl.DataFrame) -> Replicates:
    ok = pl.col("ok").fill_null(False)
    out_len = pl.col("output_len").fill_null(0).cast(pl.Float64)
    in_len = pl.col("input_len").fill_null(0).cast(pl.Float64)
    tokens = {"output": out_len, "total": out_len + in_len, "input": in_len}[params.basis]
    ids = [p.point_id for p in result.points]
    picked = samples.filter(pl.col("point_id").is_in(ids)).select(
        "point_id",
        tpot=pl.when(ok).then(defined_tpot_expr()).cast(pl.Float64).fill_null(float("nan")),
        tokens=pl.when(ok).then(tokens).otherwise(0.0),
    )
    parts = picked.partition_by("point_id", as_dict=True, include_key=False)
    empty = np.empty(0)
    points = []
    for i, p in enumerate(result.points):
        part = parts.get((p.point_id,))
        points.append(
            PointRequests(
                result.xs[i],
                result.ys[i],
                empty if part is None else part["tpot"].to_numpy(),
                empty if part is None else part["tokens"].to_numpy(),
            )
        )
    draws = resamples_for(picked.height, len(points))
    return request_replicates(points, params.stat, draws, BOOTSTRAP_SEED)


def sweep_band(
    result: SweepAnalysis,
    params: Params,
    samples: pl.DataFrame | None,
    grid: Sequence[float] | None = None,
) -> SweepBand:
    """The band on `grid`, or why there is none. Without a grid (Explore, /api/frontier): over
    the sweep's own frontier, read linearly where the read-off's method is the staircase, as
    the chart joins frontier points with straight lines."""
    reps = replicates(result, params, samples)
    if reps is None:
        return SweepBand(result, None, NO_VARIATION)
    on = list(grid) if grid is not None else frontier_grid(reps)
    if not on:
        return SweepBand(result, None, "no frontier")
    method = params.interpolation
    if grid is None and method == "staircase":
        method = "linear"  # around the frontier as Explore draws it: straight lines
    found = band(reps, on, params.ci_level, method)
    if not found.known:
        return SweepBand(result, found, "one run per configuration on the frontier: no band")
    return SweepBand(result, found, None)


def bands(
    results: Sequence[SweepAnalysis], params: Params, samples: Mapping[int, pl.DataFrame]
) -> list[SweepBand]:
    return [sweep_band(r, params, samples.get(int(r.meta.id))) for r in results]


def band_json(sb: SweepBand) -> BandOutDict:
    """A band as arrays (null where a grid interactivity has no value or no interval)."""
    b = sb.band
    return {
        "sweep_id": sb.result.meta.id,
        "name": sb.result.meta.name,
        "reason": sb.reason,
        "method": None if b is None else b.method,
        "level": None if b is None else b.level,
        "interpolation": None if b is None else b.interpolation,
        "resamples": None if b is None else b.resamples,
        "seed": None if b is None else b.seed,
        "x_tok_s_user": [] if b is None else list(b.x),
        "tok_s_per_gpu": [] if b is None else list(b.y),
        "low_tok_s_per_gpu": [] if b is None else list(b.low),
        "high_tok_s_per_gpu": [] if b is None else list(b.high),
    }
