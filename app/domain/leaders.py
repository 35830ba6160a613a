"""Frontier leaders: the sweeps whose points make up the Pareto frontier of a whole set.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.pareto import pareto_frontier


@dataclass(frozen=True)
class FrontierPoint:
    """One measured point: its sweep, interactivity (tok/s/user) and throughput (tok/s per GPU)."""

    sweep_id: int
    tok_s_user: float | None
    tok_s_per_gpu: float | None


@dataclass(frozen=True)
class Leaders:
    """`chosen` leaders (at most the cap), ranked; `dropped` the leaders beyond the cap.

    `frontier_points` counts each leader's points on the joint frontier (what the rank uses)."""

    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[int, int]


def frontier_leaders(points: Sequence[FrontierPoint], cap: int) -> Leaders:
    """The sweeps owning a point of the joint frontier of all `points`, up to `cap` of them.

    Ranked by how many frontier points a sweep owns, then by its highest frontier throughput,
    then by the lower sweep id (so the choice is deterministic). Points without both values,
    or with x ≤ 0, take no part (as in `pareto_frontier`).
    """
    if cap < 0:
        raise ValueError(f"cap must be ≥ 0, not {cap}")
    front = pareto_frontier([p.tok_s_user for p in points], [p.tok_s_per_gpu for p in points])
    counts: dict[int, int] = {}
    best_y: dict[int, float] = {}
    for i in front:
        point = points[i]
        y = float(point.tok_s_per_gpu or 0.0)
        counts[point.sweep_id] = counts.get(point.sweep_id, 0) + 1
        best_y[point.sweep_id] = max(best_y.get(point.sweep_id, y), y)
    ranked = sorted(counts, key=lambda s: (-counts[s], -best_y[s], s))
    return Leaders(ranked[:cap], ranked[cap:], counts)
