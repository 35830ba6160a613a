"""Frontier leaders: which sweeps own the joint frontier of a set, ranked and capped."""

from __future__ import annotations

import pytest

from app.domain.leaders import FrontierPoint, frontier_leaders


def points(*rows: tuple[int, float | None, float | None]) -> list[FrontierPoint]:
    return [FrontierPoint(*row) for row in rows]


# Sweep 1 owns three frontier points, sweep 2 two, sweep 3 one; (5, 50) of sweep 3 is behind
# sweep 1's (10, 100), and sweep 4 measured no TPOT.
SET = points(
    (1, 10.0, 100.0),
    (1, 20.0, 80.0),
    (1, 40.0, 30.0),
    (2, 15.0, 90.0),
    (2, 30.0, 60.0),
    (3, 5.0, 50.0),
    (3, 50.0, 10.0),
    (4, None, 500.0),
)


def test_the_sweeps_owning_more_frontier_points_lead() -> None:
    found = frontier_leaders(SET, cap=20)
    assert found.chosen == [1, 2, 3]
    assert found.dropped == []
    assert found.frontier_points == {1: 3, 2: 2, 3: 1}


def test_leaders_beyond_the_cap_are_returned_as_dropped() -> None:
    found = frontier_leaders(SET, cap=2)
    assert found.chosen == [1, 2]
    assert found.dropped == [3]


def test_a_sweep_entirely_behind_the_frontier_is_not_a_leader() -> None:
    found = frontier_leaders(points((7, 10.0, 100.0), (8, 9.0, 99.0), (8, 10.0, 50.0)), cap=20)
    assert found.chosen == [7]
    assert found.frontier_points == {7: 1}


def test_equal_counts_rank_by_the_higher_frontier_throughput_then_the_lower_id() -> None:
    found = frontier_leaders(points((3, 20.0, 40.0), (9, 10.0, 50.0), (5, 30.0, 10.0)), cap=3)
    assert found.chosen == [9, 3, 5]
    same = frontier_leaders(points((6, 10.0, 50.0), (2, 10.0, 50.0)), cap=3)
    assert same.chosen == [6]  # an exact duplicate point belongs to the first sweep given


def test_no_measured_point_means_no_leaders() -> None:
    found = frontier_leaders(points((1, None, 10.0), (2, 0.0, 10.0), (3, 10.0, None)), cap=20)
    assert (found.chosen, found.dropped, found.frontier_points) == ([], [], {})


def test_a_negative_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        frontier_leaders(SET, cap=-1)
