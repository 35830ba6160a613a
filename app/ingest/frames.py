"""Frames made with few queries: polars 2.1 runs an eager select or drop as one, with a fixed
cost of 0.1-0.5 ms whatever it does, where picking a frame's series costs microseconds; and a
frame's rows split by key with as few copies as the rows' order allows."""

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


def key_groups(
    frame: pl.DataFrame, names: list[str], fields: list[str], limit: int
) -> list[tuple[tuple[Any, ...], pl.DataFrame]] | None:
    """(key values, the rows' `fields`) for each key of these columns, in order of first row,
    one filter per key; None when there are more than `limit` keys.

    Where a partition first joins a read's chunks into one copy and then gathers the groups
    into another, key columns and all, a filter copies each group's fields once: a first upload
    of 100k requests at 4 loads split in ~6 ms instead of ~10. Each filter reads every row,
    so many keys are left to a partition."""
    keys = frame.select(names).unique(maintain_order=True)
    if keys.height > limit:
        return None
    found = keys.rows()
    # eq_missing: a null key matches nulls and NaN matches NaN, as a group-by groups them.
    masks = frame.select(
        pl.all_horizontal(
            pl.col(k).eq_missing(v) for k, v in zip(names, values, strict=True)
        ).alias(str(i))
        for i, values in enumerate(found)
    )
    picked = columns_of(frame, fields)
    out = [(values, picked.filter(mask)) for values, mask in zip(found, masks, strict=True)]
    if sum(part.height for _, part in out) != frame.height:
        return None  # a key the equality did not find again: a partition groups it
    return out
