"""The joint Pareto frontier's candidates among the points of the sweeps a filter matches.

Points are stored one block per sweep (app.store.point_blocks), so the database cannot rank
them itself: every stored point's TPOT statistics and throughputs are kept in one frame per
process, under the sweeps token (app.store.versions), and rebuilt from the blocks when a sweep
is stored, edited or deleted. A request filters and ranks that frame: no block is decoded.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, cast

import numpy as np
import polars as pl
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from app.domain.columns import TPOT_COLUMN_NAMES
from app.store import point_blocks, versions
from app.store.models import PointBlock, Sweep
from app.store.sweep_search import FINITE, SweepFilters, where
from app.store.versions import KeptUnder

FRONT_COLUMNS: tuple[str, ...] = (*TPOT_COLUMN_NAMES, "output_tok_s", "total_tok_s")
# A point's own prefill and decode GPUs where its split is its own (null: the sweep's).
OWN_SPLIT: tuple[str, str] = ("own_prefill_gpus", "own_decode_gpus")

kept: KeptUnder[pl.DataFrame] = KeptUnder()  # every point's FRONT_COLUMNS, per database


def frontier_candidates(
    session: Session,
    filters: SweepFilters,
    tpot_column: str,
    basis: str,
    limit: int,
    only: Collection[int] | None = None,
    units: Mapping[int, float | None] | None = None,
    own_role: str | None = None,
) -> list[tuple[int, float, float | None, float | None, float | None]]:
    """(sweep id, GPUs, TPOT at the axis statistic, output tok/s, total tok/s) of the points of
    the matching sweeps that no other matching point beats on both axes, by point id; at most
    `limit` rows. x = 1000 / TPOT and y = tok/s on `basis` / GPUs, as the chart.

    Ranked in one ordered pass: a point is a candidate when it has more tok/s per GPU than
    every point with more tok/s per user (ties by more tok/s per GPU, then point id).
    `only`: of these sweeps alone (one model and workload, as the leaders rank).

    `units` (sweep id: count, None when unknown) divide instead of the GPUs (an accounting mode,
    app.domain.accounting), and the second value of a row is then that count; with `own_role`
    ("decode" or "prefill") a point with its own split counts its own GPUs of that role."""
    query = cast("Select[Any]", select(Sweep.id, Sweep.num_gpus))
    matching = session.execute(where(query, filters)).all()
    if only is not None:
        matching = [r for r in matching if r[0] in only]
    if not matching:
        return []
    counts = [r[1] if units is None else units.get(r[0]) for r in matching]
    sweeps = pl.DataFrame(
        {"sweep_id": [r[0] for r in matching], "num_gpus": counts},
        schema={"sweep_id": pl.Int64, "num_gpus": pl.Float64},
    )
    points = _points(session).join(sweeps, on="sweep_id", how="inner")
    if own_role is not None:  # a split changing along the sweep: the point's own count
        own = pl.col(f"own_{own_role}_gpus")
        points = points.with_columns(own.fill_null(pl.col("num_gpus")).alias("num_gpus"))
    tpot, output, total = pl.col(tpot_column), pl.col("output_tok_s"), pl.col("total_tok_s")
    deployment = {"output": output, "total": total, "input": total - output}[basis]
    # What the domain leaves off the chart: no TPOT, no throughput, infinities, no GPUs.
    measured = (tpot > 0) & (tpot < FINITE) & deployment.is_not_null()
    measured &= (pl.col("num_gpus") > 0) & (output < FINITE) & (total.fill_null(0) < FINITE)
    if basis == "input":
        measured &= total >= output
    ranked = (
        points.filter(measured.fill_null(False))
        .with_columns((1000.0 / tpot).alias("x"), (deployment / pl.col("num_gpus")).alias("y"))
        .sort(["x", "y", "point_id"], descending=[True, True, False])
    )
    best_before = pl.col("y").cum_max().shift(1)
    front = ranked.filter(best_before.is_null() | (pl.col("y") > best_before))
    chosen = front.sort("point_id").head(limit)
    return [
        (int(s), float(g), t, o, tot)
        for s, g, t, o, tot in chosen.select(
            "sweep_id", "num_gpus", tpot_column, "output_tok_s", "total_tok_s"
        ).iter_rows()
    ]


def _points(session: Session) -> pl.DataFrame:
    """sweep_id, point_id and FRONT_COLUMNS of every stored point (kept under the sweeps
    token, read before the blocks so what is kept is never older than its token)."""
    token = versions.read(session).sweeps
    found = kept.get(session, token)
    if found is None:
        found = _read_points(session)
        kept.put(session, token, found)
    return found


def _read_points(session: Session) -> pl.DataFrame:
    sweep_ids: list[np.ndarray] = []
    positions: list[np.ndarray] = []
    columns: dict[str, list[np.ndarray]] = {c: [] for c in (*FRONT_COLUMNS, *OWN_SPLIT)}
    for sweep_id, data in session.execute(select(PointBlock.sweep_id, PointBlock.data)):
        header, body, given = point_blocks.decode(data)
        n = header["n"]
        for role, values in zip(OWN_SPLIT, point_blocks.own_splits(header), strict=True):
            columns[role].append(values)
        sweep_ids.append(np.full(n, sweep_id, dtype=np.int64))
        positions.append(np.arange(n, dtype=np.int64))
        at = {name: j for j, name in enumerate(header["numeric"])}
        for name in FRONT_COLUMNS:
            j = at.get(name)
            values = np.full(n, np.nan) if j is None else np.where(given[:, j], body[:, j], np.nan)
            columns[name].append(values)
    if not sweep_ids:
        empty = {c: pl.Series(c, [], pl.Float64) for c in (*FRONT_COLUMNS, *OWN_SPLIT)}
        return pl.DataFrame({"sweep_id": [], "point_id": [], **empty}).cast(
            {"sweep_id": pl.Int64, "point_id": pl.Int64}
        )
    sweep_column = np.concatenate(sweep_ids)
    frame = pl.DataFrame(
        {
            "sweep_id": sweep_column,
            # point_blocks.point_id, for whole columns at once.
            "point_id": sweep_column * point_blocks.POINT_ID_STRIDE + np.concatenate(positions),
            # NaN marks a value not measured here; as null, comparisons leave it out.
            **{c: pl.Series(c, np.concatenate(v)).fill_nan(None) for c, v in columns.items()},
        }
    )
    return frame
