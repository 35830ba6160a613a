"""Ratio curves between two frontiers, SLO sensitivity steps, and repeated-run spreads."""

from __future__ import annotations

import pytest

from app.domain.compare import (
    Frontier,
    headline_points,
    range_ends_at,
    ratio_curve,
    shared_range,
    values_at,
)
from app.domain.point import LatencyStats, PointMetrics
from app.domain.repeats import spreads
from app.domain.sensitivity import percentile_limits, sensitivity
from app.domain.slo import Slo

A = Frontier(xs=(20.0, 35.0, 60.0, 100.0), ys=(5000.0, 4200.0, 2500.0, 900.0))
B = Frontier(xs=(30.0, 50.0, 80.0), ys=(2000.0, 1600.0, 600.0))


def test_the_shared_range_is_the_overlap_of_both_frontiers() -> None:
    assert shared_range(A, B) == (30.0, 80.0)
    assert shared_range(A, Frontier((120.0, 150.0), (10.0, 5.0))) is None


def test_each_ratio_is_the_quotient_of_the_two_read_offs_at_that_interactivity() -> None:
    curve = ratio_curve(A, B, "staircase", samples=0)
    assert curve.shared_range == (30.0, 80.0)
    assert [(p.x_tok_s_user, p.a_tok_s_per_gpu, p.b_tok_s_per_gpu) for p in curve.points] == [
        (30.0, 4200.0, 2000.0),
        (35.0, 4200.0, 1600.0),
        (50.0, 2500.0, 1600.0),
        (60.0, 2500.0, 600.0),
        (80.0, 900.0, 600.0),
    ]
    assert [round(p.throughput_ratio, 6) for p in curve.points] == [
        2.1,
        2.625,
        1.5625,
        4.166667,
        1.5,
    ]


def test_linear_ratios_use_linear_read_offs() -> None:
    ya, yb = values_at(A, B, 40.0, "linear") or (0, 0)
    assert ya == pytest.approx(4200 + (40 - 35) / (60 - 35) * (2500 - 4200))  # 3860
    assert yb == pytest.approx(2000 + (40 - 30) / (50 - 30) * (1600 - 2000))  # 1800


def test_cost_ratio_prices_each_system_per_token() -> None:
    compared_point = ratio_curve(A, B, samples=0).points[0]  # 4200 vs 2000 tok/s/GPU
    # A at $3/h, B at $2/h: (3/4200) / (2/2000) = 0.714286
    assert compared_point.cost_ratio(3.0, 2.0) == pytest.approx(0.714286, abs=5e-7)


def test_frontiers_that_do_not_overlap_have_no_ratio_and_say_why() -> None:
    far = Frontier((120.0, 150.0), (10.0, 5.0))
    curve = ratio_curve(A, far)
    assert curve.points == ()
    assert curve.reason == (
        "no shared interactivity range: A covers [20, 100], B covers [120, 150] tok/s/user"
    )


def test_headlines_are_stated_at_quoted_interactivities_inside_the_range() -> None:
    assert headline_points((30.0, 80.0)) == [35.0, 50.0, 75.0]
    assert headline_points((35.0, 50.0)) == [42.5]  # nothing quoted strictly inside: the middle
    assert headline_points((40.0, 40.0)) == [40.0]  # a one-point range: marked by range_ends_at
    assert headline_points(None) == []


def test_a_ratio_at_either_systems_range_end_is_named() -> None:
    a = Frontier((20.0, 40.0, 50.0), (5000.0, 4000.0, 2000.0))
    b = Frontier((25.0, 40.0, 120.3), (2500.0, 2000.0, 500.0))
    assert range_ends_at(a, b, 25.0) == ("B",)
    assert range_ends_at(a, b, 50.0) == ("A",)
    assert range_ends_at(a, b, 40.0) == ()
    assert range_ends_at(a, b, 120.3, "H200", "MI300X") == ("MI300X",)
    assert all(range_ends_at(a, b, x) == () for x in headline_points(shared_range(a, b)))


def compared_point(
    pid: int, conc: float, ttft_p90: float, tpot_p90: float, out: float
) -> PointMetrics:
    return PointMetrics(
        pid,
        1,
        concurrency=conc,
        ttft_ms=LatencyStats(p90=ttft_p90),
        tpot_ms=LatencyStats(p50=tpot_p90 * 0.8, p90=tpot_p90),
        output_tok_s=out,
    )


POINTS = [
    compared_point(1, 8, 150, 20, 2000),
    compared_point(2, 16, 180, 28, 3200),
    compared_point(3, 32, 260, 42, 4800),
]


def test_sensitivity_steps_at_every_measured_value_of_the_tightened_limit() -> None:
    limits = percentile_limits([POINTS], "tpot", "p90")
    assert limits == [20.0, 28.0, 42.0]
    steps = sensitivity(POINTS, Slo(ttft_ms=300), "tpot", [15.0, *limits])
    assert [(s.limit_ms, s.goodput_tok_s_per_gpu, s.concurrency) for s in steps] == [
        (15.0, None, None),
        (20.0, 2000.0, 8),
        (28.0, 3200.0, 16),
        (42.0, 4800.0, 32),
    ]


def test_sensitivity_keeps_the_other_limits() -> None:
    steps = sensitivity(POINTS, Slo(ttft_ms=200), "tpot", [42.0])
    assert steps[0].goodput_tok_s_per_gpu == 3200.0  # the 260 ms TTFT point still fails


def test_repeated_load_levels_become_min_max_spreads() -> None:
    loads = [8, 16, 16, 16, 32]
    xs = [50.0, 40.0, 38.0, 41.0, 30.0]
    ys = [100.0, 180.0, 170.0, 190.0, 250.0]
    [spread] = spreads(loads, xs, ys)
    assert (spread.load, spread.runs, spread.indices) == (16, 3, (1, 2, 3))
    assert (spread.x_min, spread.x_max, spread.y_min, spread.y_max) == (38.0, 41.0, 170.0, 190.0)
