"""The seeded bootstrap over requests: resample sums of a frame's columns, for one frame or for
many at once.

Pure math: imports only the standard library, numpy and polars.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import polars as pl

# Fixed, so pages, exports and tests give the same interval for the same data.
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
# Rows drawn per polars call: bounds memory on points with many requests.
_BLOCK_ROWS = 2_000_000


def bootstrap_sums(
    frame: pl.DataFrame, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> pl.DataFrame:
    """Column sums of `resamples` resamples (rows drawn with replacement, as many as the frame has).

    Seeded: the same frame gives the same sums. One row per resample, in a fixed order.
    """
    n = frame.height
    if n == 0:
        return frame.clear()
    per_block = max(1, _BLOCK_ROWS // n)
    blocks = []
    for start in range(0, resamples, per_block):
        k = min(per_block, resamples - start)
        # Row numbers drawn with replacement, k resamples of n, summed as a k × n array:
        # no group_by, so a point's 1,000 resamples cost one gather per column.
        picked = _drawn_rows(n, k, seed + start)
        blocks.append(
            frame.select(pl.col(c).gather(picked).reshape((k, n)).arr.sum() for c in frame.columns)
        )
    return pl.concat(blocks)


def bootstrap_sums_many(
    frames: Sequence[pl.DataFrame],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> list[pl.DataFrame]:
    """`bootstrap_sums` of each frame (all with the same columns), the same sums exactly.

    Frames of one height share their draw. When their values are whole numbers (a read-off's
    operating points: good-request flags and token counts), a resample's sum is the draw's
    count of each row times its value, so all frames of that height are summed by one matrix
    product: exact, since every product and partial sum is a whole number below 2**53, in
    whatever order it is added. Otherwise they are stacked and resampled in one gather per
    column, as many frames per call as `_BLOCK_ROWS` allows."""
    out: list[pl.DataFrame | None] = [None] * len(frames)
    by_height: dict[int, list[int]] = {}
    for i, frame in enumerate(frames):
        n = frame.height
        if n == 0 or n * resamples > _BLOCK_ROWS:  # one call each anyway
            out[i] = bootstrap_sums(frame, resamples, seed)
        else:
            by_height.setdefault(n, []).append(i)
    for n, indices in by_height.items():
        per_call = max(1, _BLOCK_ROWS // (resamples * n))
        for first in range(0, len(indices), per_call):
            chunk = indices[first : first + per_call]
            stacked = pl.concat([frames[i] for i in chunk])
            sums = _counted_sums(stacked, n, resamples, seed)
            if sums is None:
                sums = _gathered_sums(stacked, n, resamples, seed)
            for j, i in enumerate(chunk):
                out[i] = sums.slice(j * resamples, resamples)
    return [frame for frame in out if frame is not None]


def _gathered_sums(stacked: pl.DataFrame, n: int, resamples: int, seed: int) -> pl.DataFrame:
    """Resample sums of the frames of n rows stacked in `stacked`, frame after frame."""
    drawn, m = resamples * n, stacked.height // n
    picked = _drawn_rows(n, resamples, seed)  # bootstrap_sums' only block: start 0
    at = pl.int_range(0, m * drawn, dtype=pl.UInt32, eager=True)
    rows = picked.gather(at % drawn) + (at // drawn) * n  # frame j's rows sit j*n further down
    return stacked.select(
        pl.col(c).gather(rows).reshape((m * resamples, n)).arr.sum() for c in stacked.columns
    )


def _counted_sums(stacked: pl.DataFrame, n: int, resamples: int, seed: int) -> pl.DataFrame | None:
    """`_gathered_sums` by a matrix product, or None when that would not be exact (a column not
    Float64, or not whole numbers, or sums that could reach 2**53)."""
    m = stacked.height // n
    counts = draw_counts(n, resamples, seed)
    columns = {}
    for name, dtype in stacked.schema.items():
        if dtype != pl.Float64:
            return None
        values = stacked[name].to_numpy().reshape(m, n)
        if not np.isfinite(values).all() or not (values == np.round(values)).all():
            return None
        if n * float(np.abs(values).max(initial=0.0)) >= 2.0**53:
            return None
        columns[name] = (values @ counts.T).reshape(m * resamples)
    return pl.DataFrame(columns, schema=stacked.schema)


def draw_counts(n: int, resamples: int, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """How often each of the n rows is drawn in each resample: a resamples × n matrix (the
    draw `bootstrap_sums` makes for this n and seed, as counts; treat it as read-only)."""
    if n * resamples <= _KEEP_DRAWS_UP_TO:
        return _kept_counts(n, resamples, seed)
    return _counts(n, resamples, seed)


def _counts(n: int, resamples: int, seed: int) -> np.ndarray:
    picked = _drawn_rows(n, resamples, seed).to_numpy().astype(np.int64)
    flat = np.repeat(np.arange(resamples, dtype=np.int64) * n, n) + picked
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(np.float64)


_kept_counts = lru_cache(maxsize=32)(_counts)


def _drawn_rows(n: int, count: int, seed: int) -> pl.Series:
    """`count` resamples of row numbers 0…n−1 drawn with replacement: the same for every frame
    of n rows, so the small draws (most points' requests) are kept for the next sweep."""
    if n * count > _KEEP_DRAWS_UP_TO:
        return _draw(n, count, seed)
    return _kept_draw(n, count, seed)


def _draw(n: int, count: int, seed: int) -> pl.Series:
    rows = pl.Series(range(n), dtype=pl.UInt32)
    return rows.sample(n * count, with_replacement=True, seed=seed)


_KEEP_DRAWS_UP_TO = 200_000  # row numbers per kept draw (≤ 800 KB each; 32 kept)
_kept_draw = lru_cache(maxsize=32)(_draw)
