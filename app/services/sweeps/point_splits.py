"""A split that changes along a sweep: each point's own prefill:decode split (issue 37).

A canonical file may give a sweep's rows different splits; each point then keeps its own in its
extra fields (read back as the row's "split"), and per decode or prefill GPU each point is
counted per its own GPUs of that role, falling back to the sweep's split (`accounted`: the view
of a sweep per accounting unit that the analysis reads).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.domain.accounting import (
    ROLE_MODES,
    Deployment,
    Split,
    Units,
    split_label,
    split_of,
    splits_label,
    units,
)
from app.domain.point import PointMetrics
from app.domain.slo import Readoff
from app.store.points import SweepPoints


def has_point_splits(sweep: SweepPoints) -> bool:
    """Whether some point has its own split, once per process per sweep (points never change)."""
    key = ("has point splits",)
    if key not in sweep.derived:
        sweep.derived[key] = any("split" in r for r in sweep.rows)
    found: bool = sweep.derived[key]
    return found


def point_splits(sweep: SweepPoints) -> list[Split]:
    """Each point's split in point order: its own, else the sweep's (which may be edited)."""
    mine = (sweep.meta.num_prefill_gpus, sweep.meta.num_decode_gpus)
    if not has_point_splits(sweep):
        return [mine] * len(sweep.rows)
    return [split_of(r.get("split"), mine) for r in sweep.rows]


def counts_own(sweep: SweepPoints, counted: Units) -> bool:
    """Whether each point is counted per its own units: per decode or prefill GPU where some
    point has its own split."""
    return counted.accounting in ROLE_MODES and has_point_splits(sweep)


def divisors(sweep: SweepPoints, counted: Units) -> list[float]:
    """Each point's decode or prefill GPUs from its split (0: unknown)."""
    meta = sweep.meta
    out = []
    for p, d in point_splits(sweep):
        count = units(counted.accounting, Deployment(meta.num_gpus, p, d)).count
        out.append(count or 0.0)
    return out


def labels(sweep: SweepPoints) -> tuple[str | None, list[Split]]:
    """The sweep's split label and, where the split changes along it, each point's split (an
    empty list when every point has the sweep's)."""
    if not has_point_splits(sweep):
        return split_label(sweep.meta.num_prefill_gpus, sweep.meta.num_decode_gpus), []
    splits = point_splits(sweep)
    return splits_label(splits), splits


def at_operating_point(
    counted: Units | None, points: list[PointMetrics], readoff: Readoff
) -> Units | None:
    """The units of the read-off's operating point (its split may not be the sweep's): its
    points' divisor is its count of units."""
    op = readoff.operating_point
    if op is None:
        return counted
    return _counted_at(counted, [p for p in points if p.point_id == op.point_id])


def at_load(
    counted: Units | None,
    points: list[PointMetrics],
    concurrency: float | None,
    request_rate: float | None,
) -> Units | None:
    """The units of the first point at this load (its split may not be the sweep's)."""
    load = (concurrency, request_rate)
    return _counted_at(counted, [p for p in points if (p.concurrency, p.request_rate) == load])


def _counted_at(counted: Units | None, found: list[PointMetrics]) -> Units | None:
    """`counted` with the first found point's divisor as its count (kept when there is none)."""
    if counted is None or counted.accounting == "gpu" or not found or not found[0].num_gpus > 0:
        return counted
    return replace(counted, count=found[0].num_gpus)


# Where an accounted view of a sweep keeps its units (in its own memo, apart from per-GPU values).
UNITS = "accounting units"


def accounted(
    sweep: SweepPoints,
    counted: Units | None,
    point_metrics: Callable[[SweepPoints], list[PointMetrics]],
) -> SweepPoints:
    """The sweep as seen per `counted` units: its points' divisor is the unit count (0 when
    unknown, so no throughput), each point's own where its split is its own, and it has its
    own memo, so per-unit values never mix with per-GPU ones. Per total GPU, or the same count
    as GPUs with no split of a point's own: the sweep itself."""
    num_gpus = sweep.meta.num_gpus
    own = counted is not None and counts_own(sweep, counted)
    if counted is None or counted.accounting == "gpu" or (counted.count == num_gpus and not own):
        return sweep
    derived = sweep.derived.setdefault(("accounted", counted.accounting, counted.count, own), {})
    derived[UNITS] = counted
    if ("points", num_gpus) not in derived:
        each = divisors(sweep, counted) if own else None
        derived[("points", num_gpus)] = [
            replace(p, num_gpus=each[k] if each else counted.count or 0.0)
            for k, p in enumerate(point_metrics(sweep))
        ]
    return SweepPoints(sweep.meta, sweep.rows, derived)
