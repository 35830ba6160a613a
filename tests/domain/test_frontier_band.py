"""The frontier band: the vectorised frontier read-off against pareto_frontier + value_at, and
its coverage on simulated sweeps with a known distribution (the issue's oracle: within ±3
points of the nominal level over ≥ 200 sweeps)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from app.domain.frontier_band import (
    Band,
    PointRequests,
    band,
    even_grid,
    frontier_grid,
    request_replicates,
    resamples_for,
    run_replicates,
)
from app.domain.frontier_gate import frontier_verdict
from app.domain.frontier_read import frontier_values
from app.domain.intervals import Interval
from app.domain.pareto import Interpolation, pareto_frontier, value_at
from app.domain.stretches import headline, stretches

# Eight points of a known sweep: median TPOT (ms), mean output tokens per request; each point's
# requests last DURATION_S on one GPU. Interactivity 1000/TPOT rises as throughput falls, so
# every point is on the true frontier.
TPOT_MS = np.array([50.0, 40.0, 32.0, 26.0, 21.0, 17.0, 14.0, 11.5])
TOKENS = np.array([400.0, 340.0, 290.0, 240.0, 200.0, 160.0, 130.0, 100.0])
REQUESTS, DURATION_S = 120, 10.0
TRUE_X = 1000 / TPOT_MS
TRUE_Y = REQUESTS * TOKENS / DURATION_S
# Midway between neighbouring points: the staircase reads the right-hand one there.
MIDPOINTS = (TRUE_X[:-1] + TRUE_X[1:]) / 2


@pytest.mark.parametrize("method", ["staircase", "linear", "loglinear"])
def test_the_vectorised_frontier_reads_what_value_at_reads_on_every_row(
    method: Interpolation,
) -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(1, 12, size=(300, 7)).astype(float)  # integers: ties in x and y
    y = rng.integers(1, 12, size=(300, 7)).astype(float)
    x[::5, 0] = np.nan  # a point without interactivity is left out
    grid = np.linspace(0, 13, 27)
    got = frontier_values(x, y, grid, method)
    for row in range(300):
        xs = [None if np.isnan(v) else float(v) for v in x[row]]
        front = pareto_frontier(xs, list(y[row]))
        fx, fy = [x[row, i] for i in front], [y[row, i] for i in front]
        want = [value_at(fx, fy, g, method).y if not fx or g >= fx[0] else max(fy) for g in grid]
        assert [None if np.isnan(v) else v for v in got[row]] == pytest.approx(want)


def _known_sweep(rng: np.random.Generator) -> list[PointRequests]:
    points = []
    for tpot, tokens in zip(TPOT_MS, TOKENS, strict=True):
        t = tpot * np.exp(rng.normal(0.0, 0.25, REQUESTS))  # lognormal: median tpot
        k = rng.gamma(4.0, tokens / 4.0, REQUESTS)  # mean `tokens`, skewed
        x = 1000 / float(np.median(t))
        points.append(PointRequests(x, float(k.sum()) / DURATION_S, t, k))
    return points


def test_the_request_band_covers_the_true_frontier_at_its_level() -> None:
    rng = np.random.default_rng(2026)
    covered = trials = 0
    for _ in range(200):
        reps = request_replicates(_known_sweep(rng), "p50", resamples=500)
        b = band(reps, list(MIDPOINTS), 0.95)
        for k, truth in enumerate(TRUE_Y[1:]):
            low, high = b.low[k], b.high[k]
            assert low is not None and high is not None
            covered += low <= truth <= high
            trials += 1
    assert trials == 1400
    assert abs(covered / trials - 0.95) <= 0.03, covered / trials


def test_the_run_band_covers_the_true_frontier_at_its_level_with_four_runs_each() -> None:
    rng = np.random.default_rng(35)
    loads = [float(c) for c in range(8) for _ in range(4)]
    covered = trials = 0
    for _ in range(250):
        xs = [TRUE_X[int(c)] + rng.normal(0, 0.4) for c in loads]
        ys = [TRUE_Y[int(c)] * (1 + rng.normal(0, 0.05)) for c in loads]
        b = band(run_replicates(loads, xs, ys, resamples=400), list(MIDPOINTS), 0.95)
        for k, truth in enumerate(TRUE_Y[1:]):
            low, high = b.low[k], b.high[k]
            assert low is not None and high is not None
            covered += low <= truth <= high
            trials += 1
    assert abs(covered / trials - 0.95) <= 0.03, covered / trials


def test_a_request_resample_keeps_the_point_as_shown_when_it_draws_every_request_once() -> None:
    # The statistic the x scaling divides by is numpy's (and polars') linear percentile.
    t = np.array([30.0, 10.0, 20.0, 40.0, np.nan])
    k = np.array([5.0, 6.0, 7.0, 8.0, 0.0])
    point = PointRequests(50.0, 2.6, t, k)
    reps = request_replicates([point], "p90", resamples=300)
    p90 = pl.Series([30.0, 10.0, 20.0, 40.0]).quantile(0.9, "linear")
    assert p90 == pytest.approx(37.0)
    unchanged = np.isclose(reps.y[:, 0], 2.6)
    # Where a resample's p90 equals the point's, x is exactly as shown.
    assert np.allclose(reps.x[unchanged & np.isclose(reps.x[:, 0], 50.0), 0], 50.0)
    assert reps.resamples == 300 and reps.method == "bootstrap-requests"


def test_a_band_is_seeded_so_the_same_data_gives_the_same_band() -> None:
    points = _known_sweep(np.random.default_rng(1))
    one = band(request_replicates(points), frontier_grid(request_replicates(points)))
    two = band(request_replicates(points), frontier_grid(request_replicates(points)))
    assert one.low == two.low and one.high == two.high and one.resamples == 1000


def test_single_runs_give_no_run_band_and_huge_sweeps_draw_fewer_resamples() -> None:
    b = band(run_replicates([1.0, 2.0], [10.0, 20.0], [200.0, 100.0], 100), [12.0, 20.0])
    assert b.y == (100.0, 100.0) and b.low == (None, None) and not b.known
    assert resamples_for(1_000) == 1000 and resamples_for(1_000_000) == 200


def _runs_band(scale: float, grid: list[float], drop_from: float = 0.0) -> Band:
    """Four runs of each of the eight known configurations, throughput × `scale` where the
    interactivity is at or above `drop_from`, with 1 % noise (fixed)."""
    rng = np.random.default_rng(int(scale * 100) + int(drop_from))
    loads = [float(c) for c in range(8) for _ in range(4)]
    xs = [TRUE_X[int(c)] for c in loads]
    ys = [
        TRUE_Y[int(c)] * (scale if TRUE_X[int(c)] >= drop_from else 1.0) * (1 + rng.normal(0, 0.01))
        for c in loads
    ]
    return band(run_replicates(loads, xs, ys, resamples=400), grid, 0.95, "linear")


def test_the_frontier_gate_flags_a_drop_over_its_share_and_says_where() -> None:
    grid = even_grid(float(TRUE_X[0]), float(TRUE_X[-1]))
    base = _runs_band(1.0, grid)
    same = frontier_verdict(base, _runs_band(1.0, grid), 0.05)
    assert not same.regression and same.share_below == 0 and same.below == ()
    # 10 % less from the load at 47.6 tok/s/user on (over half of 20–87): a regression.
    dropped = frontier_verdict(base, _runs_band(0.9, grid, drop_from=40.0), 0.05)
    assert dropped.regression and dropped.share_below is not None
    assert 0.5 < dropped.share_below < 0.75
    [(start, end)] = dropped.below
    assert 38.5 < start < 47.6 and end == grid[-1]  # read linearly between the two loads
    assert "over 6" in dropped.note and "the limit is 30 %" in dropped.note
    # Asked for more of the range than fell, it passes.
    assert not frontier_verdict(base, _runs_band(0.9, grid, 40.0), 0.05, share=0.8).regression


def test_stretches_merge_neighbours_and_the_headline_says_where_a_is_really_better() -> None:
    ivs = [
        Interval(1.5, 1.4, 1.6, 0.95, "t"),
        Interval(1.7, 1.5, 1.9, 0.95, "t"),
        Interval(1.1, 0.9, 1.3, 0.95, "t"),
        Interval(1.0, 0.8, 1.2, 0.95, "t"),
    ]
    found = stretches([40.0, 90.0, 95.0, 120.0], ivs)
    assert [(s.side, s.x_from, s.x_to, s.low, s.high) for s in found] == [
        ("above", 40.0, 90.0, 1.4, 1.9),
        ("same", 95.0, 120.0, 0.8, 1.3),
    ]
    assert headline(found, "A", "B") == (
        "A is 1.4–1.9× B from 40 to 90 tok/s/user; not distinguishable beyond 95"
    )
