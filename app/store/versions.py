"""The version tokens of what a process keeps between requests: the catalog's (migration 0011)
and the sweeps' (0012), both read in one query. Triggers renew a token in the transaction of
any change to what it follows, so a process that keeps something under the tokens it read
before reading the rows knows it is never older than they say."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    String,
    cast,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.store.models import CatalogVersion, SweepVersion

T = TypeVar("T")


@dataclass(frozen=True)
class Versions:
    catalog: str | None  # None: the row is missing, so nothing may be kept under it
    sweeps: str | None


_BOTH = union_all(
    select(literal("catalog").label("kind"), CatalogVersion.token).where(CatalogVersion.id == 1),
    select(literal("sweeps").label("kind"), SweepVersion.token).where(SweepVersion.id == 1),
)


class KeptUnder(Generic[T]):
    """One value per database (engine) a process talks to, with the token it was read under:
    `get` gives it back only under the same token. Read the token before the value, so what is
    kept is never older than its token."""

    def __init__(self) -> None:
        self._kept: WeakKeyDictionary[Engine, tuple[str, T]] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, session: Session, token: str | None) -> T | None:
        if token is None:
            return None
        with self._lock:
            kept = self._kept.get(_engine(session))
        return kept[1] if kept is not None and kept[0] == token else None

    def put(self, session: Session, token: str | None, value: T) -> None:
        if token is not None:  # no row, no token: nothing may be kept
            with self._lock:
                self._kept[_engine(session)] = (token, value)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    return bind.engine if isinstance(bind, Connection) else bind


def read(session: Session) -> Versions:
    found: dict[str, str] = {row.kind: row.token for row in session.execute(_BOTH)}
    return Versions(catalog=found.get("catalog"), sweeps=found.get("sweeps"))


def restore_missing(session: Session) -> list[str]:
    """Give back a version row someone deleted (a TRUNCATE of every table, say), with a new
    token; without its row nothing is kept under it. The kinds restored, in the caller's
    transaction."""
    postgres = session.get_bind().dialect.name == "postgresql"
    insert = postgresql.insert if postgres else sqlite.insert
    new_token: ColumnElement[str] = func.lower(func.hex(func.randomblob(16)))
    if postgres:
        new_token = cast(func.gen_random_uuid(), String)
    restored = []
    for kind, model in (("catalog", CatalogVersion), ("sweeps", SweepVersion)):
        if session.get(model, 1) is None:
            # Another process starting at the same time may give it back first.
            row = insert(model).values(id=1, token=new_token).on_conflict_do_nothing()
            session.execute(row)
            restored.append(kind)
    return restored
