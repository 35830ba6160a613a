"""Data access for sweeps, points and request samples."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import polars as pl
from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.ingest.parsed import SAMPLE_FIELDS, ParsedSweep
from app.store.models import Point, RequestSample, Sweep

SWEEP_FIELDS: tuple[str, ...] = tuple(c for c in SWEEP_COLUMN_NAMES if c != "sweep")
FILTER_FIELDS: tuple[str, ...] = ("model", "hardware", "engine", "precision", "source_kind")
SAMPLE_BATCH = 50_000


class NotFound(LookupError):
    pass


@dataclass(frozen=True)
class SavedSweep:
    sweep: Sweep
    created: bool


@dataclass(frozen=True)
class SweepFilters:
    model: str | None = None
    hardware: str | None = None
    engine: str | None = None
    precision: str | None = None
    source_kind: str | None = None
    isl: int | None = None
    osl: int | None = None
    q: str | None = None  # substring of the name


def save_parsed(session: Session, parsed: list[ParsedSweep]) -> list[SavedSweep]:
    """Store sweeps in the caller's transaction; identical content returns the existing sweep."""
    saved: list[SavedSweep] = []
    seen: dict[str, Sweep] = {}
    for item in parsed:
        digest = item.content_hash()
        existing = seen.get(digest) or session.scalar(
            select(Sweep).where(Sweep.content_hash == digest)
        )
        if existing is not None:
            saved.append(SavedSweep(existing, created=False))
            continue
        sweep = _new_sweep(item, digest)
        session.add(sweep)
        session.flush()
        _insert_samples(session, item, sweep)
        seen[digest] = sweep
        saved.append(SavedSweep(sweep, created=True))
    return saved


def _new_sweep(item: ParsedSweep, digest: str) -> Sweep:
    meta = {k: item.meta.get(k) for k in SWEEP_FIELDS}
    meta["source_kind"] = meta.get("source_kind") or "measured"
    meta["source_tool"] = meta.get("source_tool") or item.source_format
    if item.warnings:
        meta["notes"] = "\n".join([*filter(None, [meta.get("notes")]), *item.warnings])
    sweep = Sweep(name=item.name, source_file=item.source_file, content_hash=digest, **meta)
    sweep.points = [
        Point(position=i, extra=dict(p.extra), **p.values) for i, p in enumerate(item.points)
    ]
    return sweep


def _insert_samples(session: Session, item: ParsedSweep, sweep: Sweep) -> None:
    """Bulk insert: COPY on Postgres, executemany on SQLite; no ORM objects per sample."""
    frames = [
        p.samples_frame().with_columns(point_id=pl.lit(point.id, pl.Int64))
        for p, point in zip(item.points, sweep.points, strict=True)
        if p.sample_count
    ]
    if not frames:
        return
    columns = ("point_id", *SAMPLE_FIELDS)
    frame = pl.concat(frames).select(columns)
    connection = session.connection()
    dbapi = connection.connection.dbapi_connection
    cursor = dbapi.cursor()  # type: ignore[union-attr]
    try:
        if connection.dialect.name == "postgresql":
            with cursor.copy(f"COPY request_sample ({', '.join(columns)}) FROM STDIN") as copy:
                for row in frame.iter_rows():
                    copy.write_row(row)
        else:
            marks = ", ".join("?" for _ in columns)
            sql = f"INSERT INTO request_sample ({', '.join(columns)}) VALUES ({marks})"
            for batch in frame.iter_slices(SAMPLE_BATCH):
                cursor.executemany(sql, batch.rows())
    finally:
        cursor.close()


def is_duplicate_race(exc: IntegrityError) -> bool:
    return "content_hash" in str(exc.orig).lower()


def list_sweeps(
    session: Session, filters: SweepFilters, page: int = 1, per_page: int = 50
) -> tuple[list[Sweep], int]:
    query = select(Sweep)
    for name in FILTER_FIELDS:
        value = getattr(filters, name)
        if value:
            query = query.where(getattr(Sweep, name) == value)
    if filters.isl is not None:
        query = query.where(Sweep.isl == filters.isl)
    if filters.osl is not None:
        query = query.where(Sweep.osl == filters.osl)
    if filters.q:
        like = f"%{filters.q.lower()}%"
        query = query.where(
            or_(func.lower(Sweep.name).like(like), func.lower(Sweep.notes).like(like))
        )
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(
        query.order_by(Sweep.created_at.desc(), Sweep.id.desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    ).all()
    return list(rows), total


def point_counts(session: Session, sweep_ids: list[int]) -> dict[int, int]:
    if not sweep_ids:
        return {}
    rows = session.execute(
        select(Point.sweep_id, func.count())
        .where(Point.sweep_id.in_(sweep_ids))
        .group_by(Point.sweep_id)
    ).all()
    return dict(rows)


def sample_counts(session: Session, point_ids: list[int]) -> dict[int, int]:
    if not point_ids:
        return {}
    rows = session.execute(
        select(RequestSample.point_id, func.count())
        .where(RequestSample.point_id.in_(point_ids))
        .group_by(RequestSample.point_id)
    ).all()
    return dict(rows)


def facet_values(session: Session) -> dict[str, list[Any]]:
    """Distinct values of each filter field, for the filter dropdowns."""
    facets: dict[str, list[Any]] = {}
    for name in (*FILTER_FIELDS, "isl", "osl"):
        column = getattr(Sweep, name)
        values = session.scalars(select(column).where(column.is_not(None)).distinct()).all()
        facets[name] = sorted(values)
    return facets


def get_sweep(session: Session, sweep_id: int) -> Sweep:
    sweep = session.scalar(
        select(Sweep).where(Sweep.id == sweep_id).options(selectinload(Sweep.points))
    )
    if sweep is None:
        raise NotFound(f"sweep {sweep_id} does not exist")
    return sweep


def update_sweep(session: Session, sweep_id: int, changes: dict[str, Any]) -> Sweep:
    sweep = get_sweep(session, sweep_id)
    for key, value in changes.items():
        setattr(sweep, "name" if key == "sweep" else key, value)
    session.flush()
    return sweep


def delete_sweep(session: Session, sweep_id: int) -> None:
    sweep = get_sweep(session, sweep_id)
    # Bulk delete so a million samples do not load into the session first.
    point_ids = [p.id for p in sweep.points]
    if point_ids:
        session.execute(delete(RequestSample).where(RequestSample.point_id.in_(point_ids)))
    session.delete(sweep)
    session.flush()


def sweep_summary(sweep: Sweep, points: int) -> dict[str, Any]:
    data: dict[str, Any] = {"id": sweep.id, "name": sweep.name}
    for key in SWEEP_FIELDS:
        data[key] = _json_value(getattr(sweep, key))
    data["source_file"] = sweep.source_file
    data["created_at"] = _json_value(sweep.created_at)
    data["points"] = points
    return data


def point_dict(point: Point, samples: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = {"id": point.id, "position": point.position}
    for key in POINT_COLUMN_NAMES:
        data[key] = _json_value(getattr(point, key))
    data["extra"] = point.extra or {}
    data["request_samples"] = samples
    return data


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def sweeps_in_order(session: Session, sweep_ids: list[int]) -> list[Sweep]:
    """The sweeps with these ids, in the order given (unknown ids are skipped)."""
    if not sweep_ids:
        return []
    by_id = {s.id: s for s in session.scalars(select(Sweep).where(Sweep.id.in_(sweep_ids)))}
    return [by_id[i] for i in sweep_ids if i in by_id]


def created_at(session: Session, sweep_ids: list[int]) -> dict[int, dt.datetime]:
    rows = session.execute(select(Sweep.id, Sweep.created_at).where(Sweep.id.in_(sweep_ids)))
    return {row.id: row.created_at for row in rows}


def sweeps_on_hardware(
    session: Session, hardware: str, also: list[int], limit: int = 200
) -> list[Sweep]:
    """Every sweep on this hardware (any case), plus the sweeps with the ids in `also`."""
    matches = or_(func.lower(Sweep.hardware) == hardware.lower(), Sweep.id.in_(also))
    return list(session.scalars(select(Sweep).where(matches).order_by(Sweep.id).limit(limit)))
