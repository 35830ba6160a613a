"""Pareto frontier selection and value-at-x* read-off (staircase and interpolations)."""

from __future__ import annotations

import random

import pytest

from app.domain.pareto import pareto_frontier, steffen_slopes, value_at
from tests.oracles import dominates


def test_frontier_excludes_dominated_points_and_sorts_by_x() -> None:
    xs = [60.0, 20, 35, 30]
    ys = [2500.0, 5000, 4200, 3900]
    assert pareto_frontier(xs, ys) == [1, 2, 0]


def test_frontier_keeps_highest_y_for_duplicate_x() -> None:
    assert pareto_frontier([10.0, 10, 10], [5.0, 7, 6]) == [1]


def test_frontier_keeps_first_of_exact_duplicates() -> None:
    assert pareto_frontier([10.0, 10, 20], [5.0, 5, 1]) == [0, 2]


def test_frontier_drops_point_with_equal_y_and_lower_x() -> None:
    # (10, 5) is dominated by (20, 5): equal y, higher x.
    assert pareto_frontier([10.0, 20], [5.0, 5]) == [1]


def test_frontier_excludes_missing_zero_negative_and_non_finite_x() -> None:
    xs = [None, 0.0, -5.0, float("nan"), float("inf"), 10.0]
    ys = [100.0, 100, 100, 100, 100, 1]
    assert pareto_frontier(xs, ys) == [5]


def test_frontier_excludes_missing_y() -> None:
    assert pareto_frontier([10.0, 20], [None, 3.0]) == [1]


def test_frontier_of_no_points_is_empty() -> None:
    assert pareto_frontier([], []) == []


def test_frontier_rejects_length_mismatch() -> None:
    with pytest.raises(ValueError):
        pareto_frontier([1.0], [1.0, 2.0])


def test_frontier_of_non_monotone_sweep_skips_the_dip() -> None:
    # Throughput dips at the third load level (noise): that point is dominated.
    xs = [100.0, 80, 60, 40, 20]
    ys = [900.0, 1800, 1500, 3200, 4000]
    assert pareto_frontier(xs, ys) == [4, 3, 1, 0]


def test_frontier_is_strictly_increasing_in_x_and_decreasing_in_y() -> None:
    rng = random.Random(7)
    xs = [rng.choice([10.0, 20, 30, 40]) for _ in range(60)]
    ys = [rng.choice([100.0, 200, 300]) for _ in range(60)]
    front = pareto_frontier(xs, ys)
    fx, fy = [xs[i] for i in front], [ys[i] for i in front]
    assert all(a < b for a, b in zip(fx, fx[1:], strict=False))
    assert all(a > b for a, b in zip(fy, fy[1:], strict=False))


@pytest.mark.parametrize("seed", range(20))
def test_frontier_property_no_kept_point_dominated_every_dropped_point_dominated(
    seed: int,
) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 80)
    # Coarse grids force ties on x, on y and exact duplicates.
    xs = [float(rng.randint(1, 15)) for _ in range(n)]
    ys = [float(rng.randint(0, 15)) for _ in range(n)]
    front = set(pareto_frontier(xs, ys))
    for i in range(n):
        dominated = any(dominates(xs[j], ys[j], xs[i], ys[i]) for j in range(n))
        if i in front:
            assert not dominated
        else:
            duplicate_kept = any(xs[j] == xs[i] and ys[j] == ys[i] for j in front)
            assert duplicate_kept or any(dominates(xs[j], ys[j], xs[i], ys[i]) for j in front)


FX = [20.0, 35, 60, 100]
FY = [5000.0, 4200, 2500, 900]


def test_staircase_takes_the_nearest_frontier_point_at_or_above_x() -> None:
    result = value_at(FX, FY, 36)
    assert (result.y, result.index, result.estimate) == (2500, 2, False)


def test_staircase_at_an_exact_frontier_x_is_that_point() -> None:
    assert value_at(FX, FY, 35).y == 4200


@pytest.mark.parametrize("method", ["staircase", "linear", "loglinear", "steffen"])
def test_every_method_returns_measured_values_at_the_range_ends(method: str) -> None:
    assert value_at(FX, FY, 20, method).y == 5000  # type: ignore[arg-type]
    assert value_at(FX, FY, 100, method).y == 900  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["linear", "loglinear", "steffen"])
def test_interpolations_are_labelled_estimates(method: str) -> None:
    result = value_at(FX, FY, 50, method)  # type: ignore[arg-type]
    assert result.estimate
    assert result.bracket == (1, 2)


@pytest.mark.parametrize("x_star", [19.999, 100.001, -1.0])
def test_value_at_never_extrapolates(x_star: float) -> None:
    result = value_at(FX, FY, x_star, "linear")
    assert result.y is None
    assert result.reason == "outside the measured range [20, 100] tok/s/user"


def test_value_at_reports_no_frontier() -> None:
    result = value_at([], [], 50)
    assert (result.y, result.reason) == (None, "no frontier")


def test_value_at_without_target_has_a_reason() -> None:
    assert value_at(FX, FY, None).reason == "no target interactivity"


def test_single_point_frontier_matches_only_its_exact_x() -> None:
    assert value_at([40.0], [1000.0], 40, "steffen").y == 1000
    assert value_at([40.0], [1000.0], 40.5).y is None
    assert (
        value_at([40.0], [1000.0], 39.5).reason == "outside the measured range [40, 40] tok/s/user"
    )


def test_loglinear_is_never_above_linear_for_decreasing_y() -> None:
    for x_star in (21.0, 30, 47, 80, 99):
        log_y = value_at(FX, FY, x_star, "loglinear").y
        lin_y = value_at(FX, FY, x_star, "linear").y
        assert log_y is not None and lin_y is not None
        assert log_y <= lin_y + 1e-9


def test_loglinear_needs_positive_throughput() -> None:
    result = value_at([10.0, 20], [100.0, 0.0], 15, "loglinear")
    assert result.y is None
    assert result.reason == "log-linear interpolation needs positive throughput"


def test_steffen_stays_within_the_bracketing_points_on_a_decreasing_frontier() -> None:
    for x_star in range(21, 100):
        y = value_at(FX, FY, float(x_star), "steffen").y
        assert y is not None
        k = next(i for i, x in enumerate(FX) if x >= x_star)
        assert FY[k] <= y <= FY[k - 1]


def test_steffen_with_two_points_is_linear() -> None:
    assert steffen_slopes([0.0, 10], [100.0, 0]) == [-10, -10]
    assert value_at([0.0, 10], [100.0, 0], 2.5, "steffen").y == pytest.approx(75)


def test_value_at_rejects_unsorted_frontier_and_unknown_method() -> None:
    with pytest.raises(ValueError):
        value_at([35.0, 20], [1.0, 2.0], 30)
    with pytest.raises(ValueError):
        value_at(FX, FY, 30, "cubic")  # type: ignore[arg-type]


def test_value_at_uses_the_given_x_unit_in_reasons() -> None:
    assert (
        value_at(FX, FY, 5, x_unit="tok/s").reason == "outside the measured range [20, 100] tok/s"
    )
