"""Data access for sweeps, points and request samples."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, selectinload

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.domain.impossible_ranges import SPLIT_GPUS, split_problem
from app.domain.provenance import default_provenance
from app.ingest.errors import IngestError, RowError
from app.ingest.parsed import ParsedSweep
from app.schemas.answers.typed.sweeps import StoredPointDict, SweepFieldsDict
from app.store import point_blocks, point_rows
from app.store import samples as sample_store
from app.store.db import in_values
from app.store.models import PointBlock, SampleBlock, Sweep, SweepCheck, SweepTag
from app.store.point_blocks import StoredPoint
from app.store.sample_digest_formats import stored_by_hash, with_hashes
from app.store.sweep_search import FILTER_FIELDS, SweepFilters, where
from app.store.versions import KeptUnder, Versions

SWEEP_FIELDS: tuple[str, ...] = tuple(c for c in SWEEP_COLUMN_NAMES if c != "sweep")


class NotFound(LookupError):
    pass


@dataclass(frozen=True)
class SavedSweep:
    """A sweep an upload stored or found: its id, name and number of points (the upload's:
    the same content has the same points), whether this upload created it, and the ORM sweep
    on demand. New sweeps are not loaded back as objects: for a file of thousands of sweeps
    that cost half as much as inserting them."""

    id: int
    name: str
    points: int
    created: bool
    session: Session = field(repr=False, compare=False)
    updated: bool = False  # a stored sweep of the same measurements given this upload's details

    @property
    def sweep(self) -> Sweep:
        return self.session.get_one(Sweep, self.id)  # from the identity map once loaded


def save_parsed(
    session: Session,
    parsed: list[ParsedSweep],
    encodings: sample_store.UploadEncodings | None = None,
) -> list[SavedSweep]:
    """Store sweeps in the caller's transaction; identical content returns the existing sweep.

    One query finds the duplicates, one COPY (Postgres) or prepared executemany (SQLite) adds
    the sweeps and another every point of the upload, one query loads the new sweeps, and
    samples go in as columnar blocks: no ORM object per point or per sample, no statement per
    sweep or point. A canonical file's points go from its table to the database as columns.
    `encodings`: the sweeps' sample blocks, started by the caller (else started here).
    """
    if encodings is None:
        with sample_store.UploadEncodings(parsed) as started:
            return save_parsed(session, parsed, started)
    # Sample blocks encode while the content hashes are computed (a sweep found stored
    # already leaves its blocks unused).
    digests = [item.content_hash() for item in parsed]
    existing = stored_by_hash(session, parsed, digests)
    created: dict[str, ParsedSweep] = {}
    for item, digest in zip(parsed, digests, strict=True):
        if digest not in existing and digest not in created:
            created[digest] = item
    new = _insert_sweeps(session, created)
    _insert_points(session, [(new[digest], item) for digest, item in created.items()])
    for digest, item in created.items():
        encoding = encodings.take(item)
        if encoding is not None:
            encoding.write(session, new[digest])
    saved: list[SavedSweep] = []
    first_seen: set[str] = set()
    for item, digest in zip(parsed, digests, strict=True):
        if digest in existing:
            old = existing[digest]
            saved.append(SavedSweep(old.id, old.name, item.point_count, False, session))
        else:
            first = digest not in first_seen
            name = created[digest].name
            saved.append(SavedSweep(new[digest], name, item.point_count, first, session))
            first_seen.add(digest)
    return saved


def _insert_sweeps(session: Session, created: dict[str, ParsedSweep]) -> dict[str, int]:
    """The new sweeps in one COPY (Postgres) or executemany (SQLite); their ids by content
    hash, found in one query."""
    if not created:
        return {}
    columns = ("name", "source_file", "content_hash", *SWEEP_FIELDS)
    rows = [_sweep_row(item, digest) for digest, item in created.items()]
    with raw_cursor(session) as (cursor, postgres):
        _insert_rows(cursor, postgres, "sweep", columns, rows)
    ids = with_hashes(session, list(created)).with_only_columns(Sweep.content_hash, Sweep.id)
    return dict(session.execute(ids).all())


def _sweep_row(item: ParsedSweep, digest: str) -> tuple[Any, ...]:
    meta = sweep_values(item)
    return (item.name, item.source_file, digest, *(meta[k] for k in SWEEP_FIELDS))


def sweep_values(item: ParsedSweep) -> dict[str, Any]:
    """The sweep row's columns (name and SWEEP_FIELDS) as an upload stores them."""
    meta = {k: item.meta.get(k) for k in SWEEP_FIELDS}
    meta["source_kind"] = meta.get("source_kind") or "measured"
    meta["source_tool"] = meta.get("source_tool") or item.source_format
    meta["harness"] = meta.get("harness") or meta["source_tool"]
    meta["provenance"] = meta.get("provenance") or default_provenance(meta["source_kind"])
    if item.warnings:
        meta["notes"] = "\n".join([*filter(None, [meta.get("notes")]), *item.warnings])
    return {"name": item.name, **meta}


@contextmanager
def raw_cursor(session: Session) -> Iterator[tuple[Any, bool]]:
    """A DB-API cursor on the session's connection (and whether it is Postgres); its errors
    are raised as SQLAlchemy's, as a statement through the session would raise them (so a
    duplicate content hash is an IntegrityError and a lost database an OperationalError)."""
    connection = session.connection()
    dialect = connection.dialect
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        yield cursor, dialect.name == "postgresql"
    except dialect.loaded_dbapi.Error as exc:
        raise DBAPIError.instance(
            None, None, exc, dialect.loaded_dbapi.Error, dialect=dialect
        ) from exc
    finally:
        cursor.close()


def _insert_points(session: Session, sweeps: list[tuple[int, ParsedSweep]]) -> None:
    """Every sweep's points as one block (app.store.point_blocks), all blocks of the upload in
    one binary COPY (Postgres) or one prepared executemany (SQLite). Points of a canonical file
    go from its table to the blocks as columns; importers' point lists as one frame."""
    frame = point_rows.points_frame(sweeps)
    blocks = list(point_blocks.encode_frame(frame))
    if not blocks:
        return
    with raw_cursor(session) as (cursor, postgres):
        if postgres:
            sql = "COPY point_block (sweep_id, points, data) FROM STDIN (FORMAT BINARY)"
            with cursor.copy(sql) as copy:
                copy.write(point_blocks.binary_copy(blocks))
        else:
            sql = "INSERT INTO point_block (sweep_id, points, data) VALUES (?, ?, ?)"
            cursor.executemany(sql, blocks)


def _insert_rows(
    cursor: Any, postgres: bool, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]
) -> None:
    """Rows of Python values in one COPY (Postgres) or one prepared executemany (SQLite)."""
    names = ", ".join(columns)
    if postgres:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        marks = ", ".join("?" for _ in columns)
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)


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
