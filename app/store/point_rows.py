"""The points `save_parsed` stores (app.store.point_blocks): from a canonical file's table as
columns, or from an importer's point list.

Either way only the columns some point gives are in the frame (a column none gives is not
measured anywhere), `position` is the point's place in its sweep and `extra` is
`json.dumps(extra)` ("{}" when the point has none).
"""

from __future__ import annotations

import json

import polars as pl

from app.domain.columns import COLUMNS_BY_NAME, POINT_COLUMN_NAMES
from app.ingest.parsed import ParsedSweep
from app.ingest.point_table import POSITION, SWEEP, PointRows, PointTable


def table_frame(sweeps: list[tuple[int, ParsedSweep]]) -> pl.DataFrame:
    """The points of the table-backed sweeps: sweep_id, position, extra, then the point
    columns some of them give, in the order of POINT_COLUMN_NAMES."""
    by_table: dict[int, tuple[PointTable, list[tuple[int, int]]]] = {}
    for sweep_id, item in sweeps:
        rows = item.table_rows
        if isinstance(rows, PointRows):
            by_table.setdefault(id(rows.table), (rows.table, []))[1].append((rows.index, sweep_id))
    frames = []
    for table, wanted in by_table.values():
        # Each slice's sweep id looked up by its number (no join); null for one not stored.
        slices = table.frame[SWEEP][-1] + 1  # the table is in slice order
        by_slice: list[int | None] = [None] * slices
        for index, sweep_id in wanted:
            by_slice[index] = sweep_id
        lookup = pl.Series("sweep_id", by_slice, dtype=pl.Int64)
        chosen = table.frame.with_columns(pl.lit(lookup).gather(pl.col(SWEEP)))
        if len(wanted) < slices:
            chosen = chosen.filter(pl.col("sweep_id").is_not_null())
        given = [c for c in table.point_columns if chosen[c].null_count() < chosen.height]
        frames.append(
            chosen.select(
                "sweep_id",
                pl.col(POSITION).cast(pl.Int64).alias("position"),
                table.extra_json(chosen).alias("extra"),
                *given,
            )
        )
    if not frames:
        return pl.DataFrame()
    frame = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    order = [c for c in POINT_COLUMN_NAMES if c in frame.columns]
    return frame.select("sweep_id", "position", "extra", *order)


def list_frame(sweeps: list[tuple[int, ParsedSweep]]) -> pl.DataFrame:
    """The points of the sweeps whose points are a list, as `table_frame` gives a table's."""
    listed = [(i, item) for i, item in sweeps if not isinstance(item.table_rows, PointRows)]
    given: set[str] = set()
    for _, item in listed:
        for p in item.points:
            given.update(p.values)
    point_columns = [c for c in POINT_COLUMN_NAMES if c in given]
    rows = [
        (sweep_id, i, json.dumps(p.extra) if p.extra else "{}", *map(p.values.get, point_columns))
        for sweep_id, item in listed
        for i, p in enumerate(item.points)
    ]
    schema: dict[str, pl.DataType] = {"sweep_id": pl.Int64(), "position": pl.Int64()}
    schema["extra"] = pl.String()
    for c in point_columns:
        schema[c] = pl.String() if COLUMNS_BY_NAME[c].kind == "str" else pl.Float64()
    return pl.DataFrame(rows, schema=schema, orient="row")


def points_frame(sweeps: list[tuple[int, ParsedSweep]]) -> pl.DataFrame:
    """Every point of these sweeps: sweep_id, position, extra, then the point columns some
    give, sorted by sweep and position."""
    frames = [f for f in (table_frame(sweeps), list_frame(sweeps)) if not f.is_empty()]
    if not frames:
        return pl.DataFrame()
    frame = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    return frame.sort("sweep_id", "position", maintain_order=True)
