"""Frames made without a query: polars 2.1 runs an eager select or drop as one, with a fixed
cost of 0.1-0.5 ms whatever it does, where picking a frame's series costs microseconds."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl


def columns_of(frame: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """These columns of the frame, in this order, as a frame of the same series."""
    return pl.DataFrame([frame.get_column(name) for name in names])


def key_runs(
    frame: pl.DataFrame, names: list[str], limit: int
) -> list[tuple[tuple[Any, ...], int, int]] | None:
    """(key values, first row, end) of each key of these numeric columns when each key's rows
    are one run of the frame, in row order, so that its rows are a slice: no copy. None when
    some key's rows lie apart, there are more than `limit` runs, or a key is null or NaN
    (which a group-by keeps together, wherever they are)."""
    if frame.is_empty():
        return []
    columns = [frame.get_column(name) for name in names]
    if any(c.null_count() or not (c.dtype.is_float() or c.dtype.is_integer()) for c in columns):
        return None
    arrays = [c.to_numpy() for c in columns]  # no copy: numbers without nulls
    if any(a.dtype.kind == "f" and np.isnan(a).any() for a in arrays):
        return None
    changed = np.zeros(frame.height - 1, dtype=bool)  # one fewer pair than rows
    for values in arrays:
        changed |= values[1:] != values[:-1]
    starts = np.concatenate(([0], np.flatnonzero(changed) + 1))
    if len(starts) > limit:
        return None
    keys = list(zip(*(a[starts].tolist() for a in arrays), strict=True))
    if len(set(keys)) != len(keys):  # a key that comes back later: its rows are apart
        return None
    stops = [*starts[1:].tolist(), frame.height]
    return list(zip(keys, starts.tolist(), stops, strict=True))
