"""Many frontiers read at once: each row of resampled points (B × m) gets its Pareto frontier
read at a grid of interactivity, as `pareto_frontier` + `value_at` read one, without a Python
loop over rows (app.domain.frontier_band draws a band from them).

Pure math: imports only numpy and app.domain.
"""

from __future__ import annotations

import numpy as np

from app.domain.pareto import Interpolation

_CHUNK_CELLS = 4_000_000  # resamples × points × grid cells compared at once


def frontier_values(
    x: np.ndarray, y: np.ndarray, grid: np.ndarray, method: Interpolation = "staircase"
) -> np.ndarray:
    """Each row's Pareto frontier (x: B × m, y: B × m) read at the grid: B × G, NaN beyond its
    most interactive point, its highest throughput left of its least interactive frontier point.
    Within the range it agrees with `pareto_frontier` + `value_at` (Steffen read linearly),
    without a Python loop over rows."""
    b, m = x.shape
    out = np.full((b, len(grid)), np.nan)
    if m == 0 or len(grid) == 0:
        return out
    chunk = max(1, _CHUNK_CELLS // max(1, m * len(grid)))
    for start in range(0, b, chunk):
        stop = min(b, start + chunk)
        out[start:stop] = _values_block(x[start:stop], y[start:stop], grid, method)
    return out


def _values_block(
    x: np.ndarray, y: np.ndarray, grid: np.ndarray, method: Interpolation
) -> np.ndarray:
    b, m = x.shape
    valid = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x = np.where(valid, x, -np.inf)
    y = np.where(valid, y, -np.inf)
    # Sort each row by x, then y (ties: the higher y last, as pareto_frontier keeps it).
    by_y = np.argsort(y, axis=1, kind="stable")
    by_x = np.argsort(np.take_along_axis(x, by_y, axis=1), axis=1, kind="stable")
    order = np.take_along_axis(by_y, by_x, axis=1)
    xs = np.take_along_axis(x, order, axis=1)
    ys = np.take_along_axis(y, order, axis=1)
    # Highest y at or right of each position, and strictly right of it.
    best = np.maximum.accumulate(ys[:, ::-1], axis=1)[:, ::-1]
    right = np.concatenate([best[:, 1:], np.full((b, 1), -np.inf)], axis=1)
    on_front = (ys > right) & np.isfinite(xs)
    positions = np.arange(m)
    rows = np.arange(b)[:, None]
    pos = np.sum(xs[:, :, None] < grid[None, None, :], axis=1)  # first x ≥ g: B × G
    # Left of a resample's frontier its highest point serves g too (it is at least as
    # interactive): read there, as a resample whose range starts a hair right of g would
    # otherwise drop out. Right of its last point it cannot serve g: NaN.
    inside = (pos < m) & np.isfinite(xs[rows, np.minimum(pos, m - 1)])
    at = np.minimum(pos, m - 1)
    y_right = best[rows, at]
    if method == "staircase":
        return np.where(inside, y_right, np.nan)
    # The frontier points either side of g: R the first at or after, L the last before.
    next_front = np.minimum.accumulate(np.where(on_front, positions, m)[:, ::-1], axis=1)[:, ::-1]
    last_front = np.maximum.accumulate(np.where(on_front, positions, -1), axis=1)
    r = next_front[rows, at]
    r_safe = np.minimum(r, m - 1)
    x_r = xs[rows, r_safe]
    exact = x_r == grid[None, :]
    l_idx = last_front[rows, np.maximum(at - 1, 0)]
    has_left = (at >= 1) & (l_idx >= 0)
    l_safe = np.maximum(l_idx, 0)
    x_l, y_l = xs[rows, l_safe], ys[rows, l_safe]
    with np.errstate(all="ignore"):
        t = (grid[None, :] - x_l) / (x_r - x_l)
        if method == "loglinear":
            between = np.where(
                (y_l > 0) & (y_right > 0),
                np.exp(np.log(y_l) + t * (np.log(y_right) - np.log(y_l))),
                np.nan,
            )
        else:
            between = y_l + t * (y_right - y_l)
    value = np.where(exact | ~has_left, y_right, between)
    return np.where(inside, value, np.nan)
