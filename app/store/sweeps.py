"""Data access for sweeps, points and request samples."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, cast, delete, func, literal, or_, select, union_all
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.ingest.parsed import ParsedSweep
from app.store import samples as sample_store
from app.store.models import Point, SampleBlock, Sweep, SweepCheck, SweepTag
from app.store.sweep_search import FILTER_FIELDS, SweepFilters, where

SWEEP_FIELDS: tuple[str, ...] = tuple(c for c in SWEEP_COLUMN_NAMES if c != "sweep")


class NotFound(LookupError):
    pass


@dataclass(frozen=True)
class SavedSweep:
    sweep: Sweep
    created: bool


def save_parsed(session: Session, parsed: list[ParsedSweep]) -> list[SavedSweep]:
    """Store sweeps in the caller's transaction; identical content returns the existing sweep.

    One query finds the duplicates, one batched INSERT adds the sweeps, one COPY (Postgres) or
    prepared executemany (SQLite) adds every point of the upload, and samples go in as columnar
    blocks: no ORM object per point or per sample, and no statement per point.
    """
    digests = [item.content_hash() for item in parsed]
    existing = {
        s.content_hash: s
        for s in session.scalars(select(Sweep).where(Sweep.content_hash.in_(set(digests))))
    }
    created: dict[str, tuple[Sweep, ParsedSweep]] = {}
    for item, digest in zip(parsed, digests, strict=True):
        if digest not in existing and digest not in created:
            created[digest] = (_new_sweep(item, digest), item)
    session.add_all([sweep for sweep, _ in created.values()])
    session.flush()
    _insert_points(session, [(sweep.id, item) for sweep, item in created.values()])
    for sweep, item in created.values():
        sample_store.write(
            session,
            sweep.id,
            ((i, p.samples_frame()) for i, p in enumerate(item.points) if p.sample_count),
        )
        # The points went in without the ORM: let `sweep.points` load them when asked.
        session.expire(sweep, ["points"])
    saved: list[SavedSweep] = []
    first_seen: set[str] = set()
    for digest in digests:
        if digest in existing:
            saved.append(SavedSweep(existing[digest], created=False))
        else:
            saved.append(SavedSweep(created[digest][0], created=digest not in first_seen))
            first_seen.add(digest)
    return saved


def _new_sweep(item: ParsedSweep, digest: str) -> Sweep:
    meta = {k: item.meta.get(k) for k in SWEEP_FIELDS}
    meta["source_kind"] = meta.get("source_kind") or "measured"
    meta["source_tool"] = meta.get("source_tool") or item.source_format
    if item.warnings:
        meta["notes"] = "\n".join([*filter(None, [meta.get("notes")]), *item.warnings])
    return Sweep(name=item.name, source_file=item.source_file, content_hash=digest, **meta)


def _insert_points(session: Session, sweeps: list[tuple[int, ParsedSweep]]) -> None:
    """Every point of the upload in one COPY on Postgres, one prepared executemany on SQLite
    (psycopg's executemany sends a statement per row, and SQLAlchemy's multi-row VALUES
    compiles each bound parameter in Python: both far slower). Only the columns some point
    gives are sent; the others stay NULL, as they would with None."""
    given: set[str] = set()
    for _, item in sweeps:
        for p in item.points:
            given.update(p.values)
    point_columns = [c for c in POINT_COLUMN_NAMES if c in given]
    columns = ("sweep_id", "position", "extra", *point_columns)
    rows = [
        (sweep_id, i, json.dumps(p.extra) if p.extra else "{}", *map(p.values.get, point_columns))
        for sweep_id, item in sweeps
        for i, p in enumerate(item.points)
    ]
    if not rows:
        return
    connection = session.connection()
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    names = ", ".join(columns)
    try:
        if connection.dialect.name == "postgresql":
            with cursor.copy(f"COPY point ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join("?" for _ in columns)
            cursor.executemany(f"INSERT INTO point ({names}) VALUES ({marks})", rows)
    finally:
        cursor.close()


def is_duplicate_race(exc: IntegrityError) -> bool:
    return "content_hash" in str(exc.orig).lower()


def list_sweeps(
    session: Session, filters: SweepFilters, page: int = 1, per_page: int = 50
) -> tuple[list[Sweep], int]:
    query = where(select(Sweep), filters)
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
    return sample_store.counts_by_point(session, point_ids)


def facet_values(session: Session) -> dict[str, list[Any]]:
    """Distinct values of each filter field, for the filter dropdowns."""
    # One round trip for every field (a page asks on each view): the distinct values of each
    # field as text, tagged with the field, then typed back.
    names = (*FILTER_FIELDS, "isl", "osl")
    parts = [
        select(literal(name).label("field"), cast(getattr(Sweep, name), String).label("value"))
        .where(getattr(Sweep, name).is_not(None))
        .distinct()
        for name in names
    ]
    found: dict[str, list[Any]] = {name: [] for name in names}
    for name, value in session.execute(union_all(*parts)):
        found[name].append(int(value) if name in ("isl", "osl") else value)
    return {name: sorted(values) for name, values in found.items()}


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
    # Bulk deletes, so neither blobs nor points load into the session first (the foreign
    # keys cascade too; this does not depend on SQLite's foreign_keys pragma).
    session.execute(delete(SampleBlock).where(SampleBlock.sweep_id == sweep_id))
    session.execute(delete(SweepTag).where(SweepTag.sweep_id == sweep_id))
    session.execute(
        delete(SweepCheck).where(
            or_(SweepCheck.candidate_id == sweep_id, SweepCheck.baseline_id == sweep_id)
        )
    )
    session.execute(delete(Point).where(Point.sweep_id == sweep_id))
    session.expire(sweep, ["points"])
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
