"""Data access for sweeps, points and request samples."""

from __future__ import annotations

import datetime as dt
from typing import Any
from typing import cast as typed_as

from sqlalchemy import (
    CompoundSelect,
    String,
    cast,
    delete,
    func,
    literal,
    or_,
    select,
    tuple_,
    union_all,
)
from sqlalchemy.orm import Session, selectinload

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.domain.impossible_ranges import SPLIT_GPUS, split_problem
from app.ingest.errors import IngestError, RowError
from app.schemas.answers.typed.sweeps import StoredPointDict, SweepFieldsDict
from app.store import samples as sample_store
from app.store.db import in_values
from app.store.models import PointBlock, SampleBlock, Sweep, SweepCheck, SweepTag
from app.store.point_blocks import StoredPoint
from app.store.sweep_search import FILTER_FIELDS, SweepFilters, where
from app.store.versions import KeptUnder, Versions

SWEEP_FIELDS: tuple[str, ...] = tuple(c for c in SWEEP_COLUMN_NAMES if c != "sweep")


class NotFound(LookupError):
    pass


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
        select(PointBlock.sweep_id, PointBlock.points).where(PointBlock.sweep_id.in_(sweep_ids))
    ).all()
    return dict(rows)


def sample_counts(session: Session, point_ids: list[int]) -> dict[int, int]:
    return sample_store.counts_by_point(session, point_ids)


def sample_counts_by_position(session: Session, sweep_ids: list[int]) -> dict[tuple[int, int], int]:
    """Request samples per (sweep id, point position), for sweeps whose points are loaded."""
    return sample_store.counts_by_position(session, sweep_ids)


FACET_FIELDS = (*FILTER_FIELDS, "isl", "osl", "spec_decode")


def _facet_union() -> CompoundSelect[Any]:
    # One round trip for every field (a page asks on each view): the distinct values of each
    # field as text, tagged with the field, then typed back.
    parts = [
        select(literal(name).label("field"), cast(getattr(Sweep, name), String).label("value"))
        .where(getattr(Sweep, name).is_not(None))
        .distinct()
        for name in FACET_FIELDS
    ]
    return union_all(*parts)


# Built once: a statement is immutable, and the list and Explore ask on every view.
_FACETS_UNION = _facet_union()
# Postgres: one scan for every field (the union scanned the table once per field: 14 ms of a
# 28 ms list page at 10,000 sweeps). Each row holds one field's value, the others null.
_FACETS_SETS = select(*(getattr(Sweep, name) for name in FACET_FIELDS)).group_by(
    func.grouping_sets(*(tuple_(getattr(Sweep, name)) for name in FACET_FIELDS))
)


# The facets per engine, with the sweeps token they were read under (app.store.versions).
_kept_facets: KeptUnder[dict[str, list[Any]]] = KeptUnder()


def facet_values(session: Session, versions: Versions | None = None) -> dict[str, list[Any]]:
    """Distinct values of each filter field, for the filter dropdowns. With `versions` read in
    this transaction, the values read under the same sweeps token are reused (do not change
    them): the dropdowns change only when a sweep does."""
    token = versions.sweeps if versions else None
    found = _kept_facets.get(session, token)
    if found is None:
        found = _facet_values(session)  # read after the token: never older than it
        _kept_facets.put(session, token, found)
    return found


def _facet_values(session: Session) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {name: [] for name in FACET_FIELDS}
    if session.get_bind().dialect.name == "postgresql":
        for row in session.execute(_FACETS_SETS):
            for name, value in zip(FACET_FIELDS, row, strict=True):
                if value is not None:
                    found[name].append(value)
    else:
        for name, value in session.execute(_FACETS_UNION):
            found[name].append(int(value) if name in ("isl", "osl") else value)
    return {name: sorted(values) for name, values in found.items()}


def get_sweep(session: Session, sweep_id: int) -> Sweep:
    sweep = session.scalar(
        select(Sweep).where(Sweep.id == sweep_id).options(selectinload(Sweep.point_block))
    )
    if sweep is None:
        raise NotFound(f"sweep {sweep_id} does not exist")
    return sweep


def get_sweeps(session: Session, sweep_ids: list[int]) -> list[Sweep]:
    """The sweeps with these ids and their points, in the order given, in two queries (not two
    per sweep); NotFound names the first id that does not exist."""
    query = select(Sweep).where(in_values(session, Sweep.id, sweep_ids))
    query = query.options(selectinload(Sweep.point_block))
    found = {s.id: s for s in session.scalars(query)}
    missing = next((i for i in sweep_ids if i not in found), None)
    if missing is not None:
        raise NotFound(f"sweep {missing} does not exist")
    return [found[i] for i in sweep_ids]


def update_sweep(session: Session, sweep_id: int, changes: dict[str, Any]) -> Sweep:
    sweep = get_sweep(session, sweep_id)
    if any(key in changes for key in SPLIT_GPUS):  # the split must add up to the GPU count
        problem = split_problem(*(changes.get(k, getattr(sweep, k)) for k in SPLIT_GPUS))
        if problem is not None:
            raise IngestError([RowError("(request)", problem.message, column=problem.field)])
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
    session.execute(delete(PointBlock).where(PointBlock.sweep_id == sweep_id))
    session.expire(sweep, ["point_block"])
    session.delete(sweep)
    session.flush()


def sweep_fields(sweep: Sweep) -> SweepFieldsDict:
    data: dict[str, Any] = {"id": sweep.id, "name": sweep.name}
    for key in SWEEP_FIELDS:
        data[key] = _json_value(getattr(sweep, key))
    data["source_file"] = sweep.source_file
    data["created_at"] = _json_value(sweep.created_at)
    # Keyed by the sweep's fields (app.domain.sweep_fields), from which SweepFields is made.
    return typed_as(SweepFieldsDict, data)


def point_dict(point: StoredPoint, samples: int = 0) -> StoredPointDict:
    data: dict[str, Any] = {"id": point.id, "position": point.position}
    for key in POINT_COLUMN_NAMES:
        data[key] = _json_value(getattr(point, key))
    data["extra"] = point.extra or {}
    data["request_samples"] = samples
    # Keyed by the point's columns (app.domain.columns), as the StoredPoint model lists them.
    return typed_as(StoredPointDict, data)


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
    query = select(Sweep).where(in_values(session, Sweep.id, sweep_ids))
    by_id = {s.id: s for s in session.scalars(query)}
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
