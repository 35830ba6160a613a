"""Points and request samples of several sweeps, loaded in one query each for the analysis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.columns import POINT_COLUMN_NAMES
from app.domain.request_goodput import SAMPLE_SCHEMA
from app.models import Point, RequestSample, Sweep
from app.queries.sweeps import NotFound

SWEEP_META = (
    "id",
    "name",
    "hardware",
    "num_gpus",
    "model",
    "engine",
    "engine_version",
    "precision",
    "spec_decode",
    "isl",
    "osl",
    "source_kind",
    "measured_at",
)


@dataclass
class SweepPoints:
    meta: dict[str, Any]
    rows: list[dict[str, Any]]  # canonical point columns plus point_id and num_gpus


def sweeps_with_points(session: Session, sweep_ids: list[int]) -> list[SweepPoints]:
    """The sweeps in the order asked, each with its points in stored order; unknown ids raise."""
    if not sweep_ids:
        return []
    meta_rows = session.execute(
        select(*(getattr(Sweep, c) for c in SWEEP_META)).where(Sweep.id.in_(sweep_ids))
    ).all()
    metas = {r[0]: dict(zip(SWEEP_META, r, strict=True)) for r in meta_rows}
    missing = [i for i in sweep_ids if i not in metas]
    if missing:
        raise NotFound(f"sweep {missing[0]} does not exist")
    columns = ("id", "sweep_id", *POINT_COLUMN_NAMES)
    point_rows = session.execute(
        select(*(getattr(Point, c) for c in columns))
        .where(Point.sweep_id.in_(sweep_ids))
        .order_by(Point.sweep_id, Point.position)
    ).all()
    by_sweep: dict[int, list[dict[str, Any]]] = {i: [] for i in sweep_ids}
    for row in point_rows:
        data = dict(zip(columns, row, strict=True))
        data["point_id"] = data.pop("id")
        data["num_gpus"] = metas[data["sweep_id"]]["num_gpus"]
        by_sweep[data["sweep_id"]].append(data)
    return [SweepPoints(metas[i], by_sweep[i]) for i in dict.fromkeys(sweep_ids)]


def samples_frame(session: Session, point_ids: list[int]) -> pl.DataFrame:
    """Request samples of these points as a typed frame (empty when there are none)."""
    if not point_ids:
        return pl.DataFrame(schema=SAMPLE_SCHEMA)
    rows = session.execute(
        select(
            RequestSample.point_id,
            RequestSample.ttft_ms,
            RequestSample.e2el_ms,
            RequestSample.output_len,
            RequestSample.input_len,
            RequestSample.ok,
        ).where(RequestSample.point_id.in_(point_ids))
    ).all()
    return pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row")


def sweep_ids_matching(session: Session, filters: dict[str, Any], limit: int) -> list[int]:
    """Ids of sweeps whose metadata equals every given filter value, newest first."""
    query = select(Sweep.id)
    for name, value in filters.items():
        if value not in (None, ""):
            query = query.where(getattr(Sweep, name) == value)
    return list(session.scalars(query.order_by(Sweep.id).limit(limit)).all())
