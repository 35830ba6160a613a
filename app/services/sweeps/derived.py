"""What a sweep's points give once per process (points never change): its domain points, their
load order, and whether an SLO needs request samples; kept in the sweep's `derived` cache."""

from __future__ import annotations

from app.domain.estimate import load_order
from app.domain.point import PointMetrics
from app.domain.slo import Slo
from app.services.sweeps.memo import check_values
from app.store.points import SweepPoints


def needs_samples(sweep: SweepPoints, slo: Slo) -> bool:
    """Whether some limit's percentile is not stored at some point (samples may answer it).

    Points never change, so the answer is kept per sweep and set of (metric, percentile)."""
    wanted = tuple((m, stat) for m, stat, _ in slo.checked())
    key = ("needs samples", wanted)
    if key not in sweep.derived:
        points = point_metrics(sweep)
        sweep.derived[key] = any(
            None in check_values(sweep.derived, points, m, stat) for m, stat in wanted
        )
    result: bool = sweep.derived[key]
    return result


def point_metrics(sweep: SweepPoints) -> list[PointMetrics]:
    """Domain points of a sweep; the GPU count comes from the sweep, which may be edited."""
    num_gpus = sweep.meta.num_gpus
    key = ("points", num_gpus)
    if key not in sweep.derived:
        sweep.derived[key] = [
            PointMetrics.from_row({**r, "num_gpus": num_gpus}) for r in sweep.rows
        ]
    points: list[PointMetrics] = sweep.derived[key]
    return points


def sweep_load_order(sweep: SweepPoints, points: list[PointMetrics]) -> list[int]:
    """The points' `load_order`, sorted once per process per sweep (points never change)."""
    key = ("load order", sweep.meta.num_gpus)
    if key not in sweep.derived:
        sweep.derived[key] = load_order(points)
    order: list[int] = sweep.derived[key]
    return order
