"""A confidence band around a sweep's Pareto frontier: throughput per GPU at each interactivity
of a grid, by the seeded bootstrap (app.domain.bootstrap's draws).

Two sources of resamples:
- per-request: each point's requests are redrawn with replacement (as many as it has); the
  point's interactivity scales by its TPOT statistic's change and its throughput by its token
  sum's change, so resample 0's unchanged draw would give the point exactly as shown;
- repeated runs: each configuration (load level) is the mean of its runs; the runs are redrawn
  within each configuration.
Every resample's frontier is read at the grid (staircase, linear or log-linear, as the chart
draws it; Steffen's curve is read linearly). Per-request bands are percentile intervals of those
values; run bands are the frontier ± t(1+level)/2, k−1 × the bootstrap's standard error scaled
by √(k/(k−1)) (k runs of the configuration read there), which is the t interval of a single
configuration's mean: a percentile interval over 2–5 runs covers far less than its level.

Pointwise: each interactivity's interval holds at the level on its own, not all at once.

Pure math: imports only the standard library, numpy and app.domain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from app.domain.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, draw_counts
from app.domain.frontier_read import frontier_values
from app.domain.intervals import DEFAULT_LEVEL, check_level, t_quantile
from app.domain.pareto import Interpolation, pareto_frontier, value_at

BandMethod = Literal["bootstrap-requests", "bootstrap-runs"]
GRID_POINTS = 60
# Work per band: resamples × requests drawn. Beyond it the band draws fewer resamples (never
# under MIN_RESAMPLES), said in its `resamples`; the draw stays seeded, so it still reproduces.
MAX_DRAWN = 20_000_000
MIN_RESAMPLES = 200
MAX_KEPT = 2_000_000  # resampled points a sweep keeps (x and y: 32 MB)
NO_VARIATION = "no repeated runs or request samples: no band"


@dataclass(frozen=True)
class PointRequests:
    """One point's requests, for redrawing: each request's TPOT in ms (NaN where it has none:
    failed, or one output token) and the tokens it adds to the point's throughput (0 when
    failed). `x` and `y` are the point as plotted (tok/s/user, tok/s per GPU)."""

    x: float | None
    y: float | None
    tpot_ms: np.ndarray
    tokens: np.ndarray


@dataclass(frozen=True)
class Replicates:
    """A sweep's points as shown (x0, y0: m each) and `resamples` redrawn copies (x, y: B × m).

    `runs` is each point's run count in run mode (a configuration), None per request."""

    x0: np.ndarray
    y0: np.ndarray
    x: np.ndarray
    y: np.ndarray
    method: BandMethod
    seed: int
    runs: np.ndarray | None = None

    @property
    def resamples(self) -> int:
        return int(self.x.shape[0])


@dataclass(frozen=True)
class Band:
    """The frontier at each grid interactivity (`y`, None outside its measured range) and its
    interval (`low`, `high`; None where there is none). `values` are the resamples' frontiers
    at the grid (B × G; a resample that falls short of what the shown one reaches read at its
    most interactive point; NaN where the shown one does not reach), for ratios and areas."""

    x: tuple[float, ...]
    y: tuple[float | None, ...]
    low: tuple[float | None, ...]
    high: tuple[float | None, ...]
    level: float
    method: BandMethod
    interpolation: Interpolation
    resamples: int
    seed: int
    values: np.ndarray = field(repr=False, compare=False)

    @property
    def known(self) -> bool:
        return any(v is not None for v in self.low)


def resamples_for(requests: int, points: int = 1, resamples: int = BOOTSTRAP_RESAMPLES) -> int:
    """How many resamples a band over `requests` requests of `points` points draws: fewer on
    huge sweeps (the draws and the kept resamples stay bounded)."""
    fit = min(MAX_DRAWN // max(1, requests), MAX_KEPT // max(1, points))
    return resamples if fit >= resamples else max(MIN_RESAMPLES, fit)


def request_replicates(
    points: Sequence[PointRequests],
    stat: str = "p50",
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Replicates:
    """Redraw each point's requests (point j with seed + j, so points draw independently).

    x scales by q ÷ q*, q the point's TPOT `stat` (mean or pNN, numpy's linear percentile) over
    its requests and q* the same over a resample; y by the resample's token sum ÷ the point's.
    A point without requests keeps its x and y in every resample."""
    b = resamples
    x0 = np.array([_nan(p.x) for p in points], dtype=np.float64)
    y0 = np.array([_nan(p.y) for p in points], dtype=np.float64)
    xs = np.tile(x0, (b, 1))
    ys = np.tile(y0, (b, 1))
    q = None if stat == "mean" else float(stat[1:]) / 100
    for j, point in enumerate(points):
        n = len(point.tokens)
        if n == 0:
            continue
        counts = draw_counts(n, b, seed + j)
        total = float(np.sum(point.tokens))
        if total > 0:
            ys[:, j] = y0[j] * (counts @ point.tokens) / total
        defined = ~np.isnan(point.tpot_ms)
        if not defined.any():
            continue
        tpot = point.tpot_ms[defined]
        order = np.argsort(tpot, kind="stable")
        picked = counts[:, defined][:, order]
        shown = _stat(tpot[order][None, :], np.ones((1, len(tpot))), q)[0]
        redrawn = _stat(tpot[order][None, :], picked, q)
        with np.errstate(divide="ignore", invalid="ignore"):
            xs[:, j] = np.where(redrawn > 0, x0[j] * shown / redrawn, np.nan)
    return Replicates(x0, y0, xs, ys, "bootstrap-requests", seed)


def _stat(sorted_values: np.ndarray, counts: np.ndarray, q: float | None) -> np.ndarray:
    """Per row: the mean (q None) or the linear-interpolated q-quantile of the values (sorted
    ascending, shared by every row) each drawn `counts` times. NaN for a row drawing none."""
    drawn = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if q is None:
            return np.asarray((counts @ sorted_values[0]) / drawn)
        cumulative = np.cumsum(counts, axis=1)
        rank = (drawn - 1) * q  # 0-based position in the drawn multiset
        low_rank, high_rank = np.floor(rank), np.ceil(rank)
        low = _at_rank(sorted_values[0], cumulative, low_rank)
        high = _at_rank(sorted_values[0], cumulative, high_rank)
        out = low + (rank - low_rank) * (high - low)
    return np.where(drawn > 0, out, np.nan)


def _at_rank(values: np.ndarray, cumulative: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The value at 0-based `rank` of each row's drawn multiset."""
    idx = np.argmax(cumulative > rank[:, None], axis=1)
    return np.asarray(values[idx])


def run_replicates(
    loads: Sequence[float | None],
    xs: Sequence[float | None],
    ys: Sequence[float | None],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Replicates:
    """One configuration per load level (its runs' mean x and mean y); runs redrawn within
    each (configuration j with seed + j). Runs missing x or y are left out; a point without a
    load is a configuration of its own."""
    groups: dict[object, list[int]] = {}
    for i, load in enumerate(loads):
        if xs[i] is None or ys[i] is None:
            continue
        groups.setdefault(("load", load) if load is not None else ("point", i), []).append(i)
    m = len(groups)
    x0, y0 = np.empty(m), np.empty(m)
    bx, by = np.empty((resamples, m)), np.empty((resamples, m))
    runs = np.empty(m, dtype=np.int64)
    for j, members in enumerate(groups.values()):
        gx = np.array([xs[i] for i in members], dtype=np.float64)
        gy = np.array([ys[i] for i in members], dtype=np.float64)
        k = len(members)
        runs[j] = k
        x0[j], y0[j] = gx.mean(), gy.mean()
        if k == 1:
            bx[:, j], by[:, j] = x0[j], y0[j]
            continue
        counts = draw_counts(k, resamples, seed + j)
        bx[:, j] = counts @ gx / k
        by[:, j] = counts @ gy / k
    return Replicates(x0, y0, bx, by, "bootstrap-runs", seed, runs)


def even_grid(lo: float, hi: float, count: int = GRID_POINTS) -> list[float]:
    """`count` interactivities from lo to hi, ends included (one when lo == hi)."""
    if hi <= lo or count < 2:
        return [lo]
    # The last is hi itself: lo + (hi − lo) can miss it by an ulp, a grid point just past the
    # frontier's end with no value (an empty last row in the band export).
    return [lo + (hi - lo) * i / (count - 1) for i in range(count - 1)] + [hi]


def frontier_grid(reps: Replicates, count: int = GRID_POINTS) -> list[float]:
    """An even grid over the shown frontier's range, plus its own points (where a staircase
    steps)."""
    front = pareto_frontier(list(reps.x0), list(reps.y0))
    if not front:
        return []
    fx = [float(reps.x0[i]) for i in front]
    return sorted(set(even_grid(fx[0], fx[-1], count)) | set(fx))


def band(
    reps: Replicates,
    grid: Sequence[float],
    level: float = DEFAULT_LEVEL,
    interpolation: Interpolation = "staircase",
) -> Band:
    """The band at each grid interactivity (see the module's note for the two methods)."""
    check_level(level)
    g = np.asarray(grid, dtype=np.float64)
    shown = _shown(reps, grid, interpolation)
    values = frontier_values(reps.x, reps.y, g, interpolation)
    # Where the shown frontier reaches, a resample whose most interactive point falls a hair
    # short is read at that point: the band is about throughput; the range end's own
    # uncertainty is in interactivity, which the band does not draw.
    shown_at = np.array([y is not None for y in shown])
    values = np.where(shown_at[None, :] & np.isnan(values), _end_values(reps)[:, None], values)
    low: list[float | None] = []
    high: list[float | None] = []
    if reps.method == "bootstrap-requests":
        with np.errstate(all="ignore"):
            qs = np.quantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0)
        for k, y in enumerate(shown):
            ok = y is not None and np.isfinite(qs[:, k]).all()
            low.append(float(qs[0, k]) if ok else None)
            high.append(float(qs[1, k]) if ok else None)
    else:
        runs = _runs_at(reps, grid, interpolation)
        with np.errstate(all="ignore"):
            se = np.std(values, axis=0)
        for k, y in enumerate(shown):
            r = runs[k]
            if y is None or r < 2 or not math.isfinite(se[k]):
                low.append(None)
                high.append(None)
                continue
            half = t_quantile((1 + level) / 2, r - 1) * float(se[k]) * math.sqrt(r / (r - 1))
            low.append(max(0.0, y - half))
            high.append(y + half)
    return Band(
        tuple(float(x) for x in grid),
        tuple(shown),
        tuple(low),
        tuple(high),
        level,
        reps.method,
        interpolation,
        reps.resamples,
        reps.seed,
        values,
    )


def _end_values(reps: Replicates) -> np.ndarray:
    """Each resample's throughput at its most interactive point (NaN when it has none)."""
    x = np.where(np.isfinite(reps.x) & np.isfinite(reps.y) & (reps.x > 0), reps.x, -np.inf)
    at = np.argmax(x, axis=1)
    ends = reps.y[np.arange(len(at)), at]
    return np.where(np.isfinite(x.max(axis=1)), ends, np.nan)


def _shown(reps: Replicates, grid: Sequence[float], method: Interpolation) -> list[float | None]:
    """The shown frontier at each grid x, read by `value_at` exactly as a read-off is (left of
    its range, its highest point: as `frontier_values` reads each resample)."""
    front = pareto_frontier(list(reps.x0), list(reps.y0))
    fx = [float(reps.x0[i]) for i in front]
    fy = [float(reps.y0[i]) for i in front]
    return [fy[0] if fx and x < fx[0] else value_at(fx, fy, x, _readable(method)).y for x in grid]


def _readable(method: Interpolation) -> Interpolation:
    return "linear" if method == "steffen" else method


def _runs_at(reps: Replicates, grid: Sequence[float], method: Interpolation) -> list[int]:
    """Per grid x, the fewest runs among the shown frontier's configurations read there (0
    where there is none)."""
    runs = reps.runs if reps.runs is not None else np.ones(len(reps.x0), dtype=np.int64)
    front = pareto_frontier(list(reps.x0), list(reps.y0))
    fx = [float(reps.x0[i]) for i in front]
    fy = [float(reps.y0[i]) for i in front]
    out = []
    for x in grid:
        found = value_at(fx, fy, max(x, fx[0]) if fx else x, _readable(method))
        used = (
            [found.index]
            if found.index is not None
            else list(found.bracket)
            if found.bracket is not None
            else []
        )
        out.append(min((int(runs[front[i]]) for i in used), default=0))
    return out


def area(band_: Band, lo: float, hi: float) -> tuple[float | None, np.ndarray]:
    """The area under the frontier from lo to hi (tok/s per GPU × tok/s/user, trapezoids over
    the grid points inside), and each resample's: None (and NaNs) where the frontier does not
    cover the whole range."""
    xs = np.asarray(band_.x)
    inside = (xs >= lo) & (xs <= hi)
    if inside.sum() < 2:
        return None, np.full(band_.values.shape[0], np.nan)
    shown = np.array([np.nan if v is None else v for v in band_.y])[inside]
    gx = xs[inside]
    whole = None if np.isnan(shown).any() else float(np.trapezoid(shown, gx))
    return whole, np.trapezoid(band_.values[:, inside], gx, axis=1)


def _nan(v: float | None) -> float:
    return math.nan if v is None else float(v)
