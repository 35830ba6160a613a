"""Run Alembic migrations programmatically (used by `serve`, `db upgrade` and the tests)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.settings import bundled
from app.store import versions
from app.store.db import make_engine, make_sessionmaker, session_scope


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(bundled("migrations")))
    # ConfigParser interpolation treats % specially (URL-encoded passwords).
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str, engine: Engine | None = None) -> None:
    """The newest schema, with the version rows that caches check (app.store.versions) given
    back if someone deleted them. A database already at head is not handed to Alembic, which
    would load every migration script and run env.py to find nothing to do (~0.1 s of every
    CLI command). Both checks use `engine` when given (the caller's, kept open for its own
    work: each new engine connects and learns the server anew, ~10 ms on Postgres)."""
    with _engine(database_url, engine) as checked:
        if schema_mismatch(database_url, checked) is not None:
            command.upgrade(alembic_config(database_url), "head")
        with session_scope(make_sessionmaker(checked)) as session:
            versions.restore_missing(session)


@contextmanager
def _engine(database_url: str, given: Engine | None) -> Iterator[Engine]:
    """`given`, or an engine of one connection made for the caller and closed after it."""
    if given is not None:
        yield given
        return
    made = make_engine(database_url, pool_size=1)
    try:
        yield made
    finally:
        made.dispose()


@functools.cache
def _heads() -> frozenset[str]:
    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def schema_mismatch(database_url: str, engine: Engine | None = None) -> str | None:
    """Why this version cannot serve the database (its schema is older or newer than this
    version's newest migration), or None. An older one would be read wrongly: since migration
    20261202_0013, for one, an upload finds a stored sweep by a hash the older schema's rows
    were not given."""
    with _engine(database_url, engine) as checked, checked.connect() as conn:
        current = frozenset(MigrationContext.configure(conn).get_current_heads())
    if current == _heads():
        return None
    at = ", ".join(sorted(current)) or "none (an empty database)"
    return (
        f"the database's schema is at revision {at}, and this version of Paretoscope needs "
        f"{', '.join(sorted(_heads()))}: run `paretoscope db upgrade` (or `paretoscope serve`, "
        "which migrates first) with this version, or serve it with the version that wrote it"
    )


def session_schema_behind(session: Session) -> str | None:
    """Why the database a session reads is not at this version's schema (no tables, an older
    or newer revision), or None: what /healthz checks, so a server whose every page would
    answer 500 is not called healthy."""
    current = frozenset(MigrationContext.configure(session.connection()).get_current_heads())
    if current == _heads():
        return None
    return ", ".join(sorted(current)) or "none (no tables)"
