"""Storing parsed sweeps: their rows, points and sample blocks in the caller's transaction, each
content once (app.ingest.content_hash names it).

A large upload of new names stores its sweeps before it knows their hashes (`_store_then_hash`):
under a provisional hash, its sample blocks encoded alone and inserted while the digests run, the
hashes set last. A sweep found stored then (renamed, or stored meanwhile) sends its rows away
again and the upload hashes first, as every smaller one and every file of a stored name does
(`save_parsed`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from app.domain.provenance import default_provenance
from app.ingest.parsed import ParsedSweep
from app.store import point_blocks, point_rows
from app.store import samples as sample_store
from app.store.db import in_values
from app.store.models import Sweep
from app.store.sample_digest_formats import stored_by_hash, with_hashes
from app.store.sweeps import SWEEP_FIELDS

# From this many request samples in an upload of new names, its sweeps are stored first and
# hashed after (`_store_then_hash`). Fewer are hashed first: their digests take less time than
# the statements the other order adds (a lookup of the names, the hash's UPDATE).
STORE_FIRST_MIN_SAMPLES = 20_000
# A content hash is 64 hex digits: a sweep stored first holds this prefix until its hash is set.
PENDING = "pending-"


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
    `encodings`: the sweeps' sample blocks, started by the caller (else started here). An
    upload of STORE_FIRST_MIN_SAMPLES requests or more, of names no stored sweep has, is
    stored before it is hashed.
    """
    if encodings is None:
        with sample_store.UploadEncodings(parsed) as started:
            return save_parsed(session, parsed, started)
    large = sum(item.sample_count for item in parsed) >= STORE_FIRST_MIN_SAMPLES
    if large and not _named_as_stored(session, parsed):
        stored = _store_then_hash(session, parsed, encodings)
        if stored is not None:
            return stored
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


def _named_as_stored(session: Session, parsed: list[ParsedSweep]) -> bool:
    """Whether a stored sweep has the name of one of these: the name is hashed, so only such a
    sweep can hold the same content (a file uploaded again hashes first: nothing is stored in
    vain)."""
    names = sorted({item.name for item in parsed})
    named = select(Sweep.id).where(in_values(session, Sweep.name, names)).limit(1)
    return session.scalar(named) is not None


def _store_then_hash(
    session: Session, parsed: list[ParsedSweep], encodings: sample_store.UploadEncodings
) -> list[SavedSweep] | None:
    """Store the sweeps under provisional hashes, then hash them: the sweep and point rows go in
    while the sample blocks encode, the blocks while the digests run, and the hashes last (on two
    cores the blocks and the digests at once took as long as one after the other, and the insert
    waited for both). None when a sweep is stored already or the upload holds one content twice:
    the rows are deleted again (their points and blocks with them) and the caller hashes first,
    taking the same blocks."""
    pending = {f"{PENDING}{uuid.uuid4().hex}": item for item in parsed}
    ids = _insert_sweeps(session, pending)
    _insert_points(session, [(ids[key], item) for key, item in pending.items()])
    blocks = {key: encodings.of(item) for key, item in pending.items()}
    for encoding in blocks.values():
        if encoding is not None:
            encoding.wait()
    for item in parsed:
        item.start_digests()  # on the helper threads, while the blocks go in
    for key, encoding in blocks.items():
        if encoding is not None:
            encoding.write(session, ids[key])
    digests = [item.content_hash() for item in parsed]
    # Found stored only if a sweep was renamed since, or stored meanwhile under these names.
    stored = stored_by_hash(session, parsed, digests, format_1=False)
    if len(set(digests)) < len(digests) or stored:
        session.execute(delete(Sweep).where(Sweep.id.in_(list(ids.values()))))
        return None
    named = zip(pending, digests, strict=True)
    session.execute(update(Sweep), [{"id": ids[key], "content_hash": d} for key, d in named])
    return [
        SavedSweep(ids[key], item.name, item.point_count, True, session)
        for key, item in pending.items()
    ]


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
