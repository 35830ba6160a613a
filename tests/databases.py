"""The tests' shared databases, each kept as a fresh one would be: a worker's SQLite files
restored from their templates, and its Postgres database emptied (and its seeded rows copied
back), only when a test changed them. tests/conftest.py hands them out as fixtures; its
docstring says why they are shared rather than rolled back."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, text

from app.store.db import SQLITE_BUSY_TIMEOUT_S, make_engine
from app.store.models import Base
from app.store.points import _cache as points_cache
from app.store.samples import cache as samples_cache
from app.web import page_cache

KEPT_TABLES = {"catalog_version", "sweep_version"}  # emptying these would lose the tokens
SEEDED_COPY = "seeded_copy"  # the Postgres schema that keeps the seeded tables' rows


def copied_tables() -> list[str]:
    return [t.name for t in Base.metadata.sorted_tables if t.name not in KEPT_TABLES]


def forget_stored_sweeps() -> None:
    """Drop what this process keeps of stored sweeps (their points, request samples and pages),
    as a server started on the restored database would have nothing kept: after a reset, ids and
    content hashes repeat (a sweep's hash leaves out its points' extras, such as a cached-input
    share), so a kept entry could answer for another sweep stored under the same id."""
    points_cache.clear()
    samples_cache.clear()
    page_cache.clear_all()


class SharedSqlite:
    """One SQLite file of a kind (empty or seeded) that a worker's tests share, as a fresh copy
    of its template would be: copied back (SQLite's backup API, in place) only when a test
    changed it. Most tests only read, and a shared file keeps one address, under which the
    app's per-process caches (a sweep's points and derived figures, the catalog, each keyed by
    the database's address and the rows' content hash or version token) stay warm from one
    test to the next, as they would in a server. A change is seen on the database itself, as on
    Postgres: a watching connection's `PRAGMA data_version` moves when any other connection, in
    any process, commits; a file deleted or replaced has another inode."""

    def __init__(self, template: Path, path: Path) -> None:
        self.template, self.path = template, path
        self.url = f"sqlite:///{path}"
        self._watcher: sqlite3.Connection | None = None
        self._seen: tuple[int, int] | None = None

    def _state(self) -> tuple[int, int] | None:
        if self._watcher is None or not self.path.exists():
            return None
        version = self._watcher.execute("PRAGMA data_version").fetchone()[0]
        return self.path.stat().st_ino, int(version)

    def ready(self) -> str:
        """The file as its template is, restored first if anything changed it."""
        if self._seen is None or self._state() != self._seen:
            self._restore()
        return self.url

    def _restore(self) -> None:
        forget_stored_sweeps()
        if self._watcher is not None:
            self._watcher.close()
        if not self.path.exists():
            for leftover in (Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                leftover.unlink(missing_ok=True)
        source = sqlite3.connect(self.template)
        target = sqlite3.connect(self.path, timeout=SQLITE_BUSY_TIMEOUT_S)
        source.backup(target)
        source.close()
        target.close()
        self._watcher = sqlite3.connect(self.path, check_same_thread=False)
        self._seen = None
        self._seen = self._state()


def empty_postgres(url: str, then: list[str] | None = None) -> None:
    """Every table emptied but the version rows (emptying the tables they follow renews their
    tokens; without the rows nothing could be kept under them), ids restarted at 1, then `then`
    run. DELETE, not TRUNCATE: on these few small tables it is ~6× faster (TRUNCATE makes new
    files for every table and index on each call)."""
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("; ".join(_emptying(url, conn) + (then or [])))
    engine.dispose()
    _LEFT.pop(url, None)


# What reset_postgres last left in each database: (kind, fingerprint). A test that changed
# nothing (most only read) leaves the next one nothing to reset.
_LEFT: dict[str, tuple[str, list[Any]]] = {}
_RESETTERS: dict[str, Engine] = {}


def reset_postgres(url: str, kind: str, then: list[str]) -> None:
    """The tables emptied (and `then` run: the seeded rows copied back) unless they are as the
    last reset of this `kind` left them. Checked on the database itself, so a write from any
    process counts (a server or CLI the test started, a fixture's own engine): each table's
    row count and newest row version (xmin: an insert or update makes a newer one) and every
    sequence's position. One connection kept per database, one round trip each way."""
    engine = _RESETTERS.get(url)
    if engine is None:
        engine = _RESETTERS[url] = create_engine(url, pool_size=1)
    with engine.begin() as conn:
        left = _LEFT.get(url)
        if left is not None and left[0] == kind and _fingerprint(url, conn) == left[1]:
            return
        forget_stored_sweeps()
        conn.exec_driver_sql("; ".join(_emptying(url, conn) + then))
        _LEFT[url] = (kind, _fingerprint(url, conn))


def _fingerprint(url: str, conn: Any) -> list[Any]:
    parts = [
        f"SELECT '{t}', count(*), coalesce(max(xmin::text::bigint), 0) FROM {t}"
        for t in copied_tables()
    ] + [f"SELECT '{s}', last_value, is_called::int FROM {s}" for _, _, s in sequences(url, conn)]
    return [tuple(row) for row in conn.exec_driver_sql(" UNION ALL ".join(parts))]


def _emptying(url: str, conn: Any) -> list[str]:
    """empty_postgres's statements, children before the rows they refer to."""
    return [f"DELETE FROM {t}" for t in reversed(copied_tables())] + [
        f"SELECT setval('{s}', 1, false)" for _, _, s in sequences(url, conn)
    ]


_SEQUENCES: dict[str, list[tuple[str, str, str]]] = {}


def sequences(url: str, conn: Any) -> list[tuple[str, str, str]]:
    """(table, column, sequence) behind the emptied tables' primary keys, looked up once per
    database: their names follow from the tables', which never change within a session."""
    if url not in _SEQUENCES:
        found = []
        for table in copied_tables():
            for column in Base.metadata.tables[table].primary_key.columns:
                sequence = conn.execute(
                    text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table, "c": column.name}
                ).scalar()
                if sequence:
                    found.append((table, column.name, sequence))
        _SEQUENCES[url] = found
    return _SEQUENCES[url]
