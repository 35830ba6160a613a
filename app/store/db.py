"""Engine and session factory; SQLite gets WAL and foreign keys, Postgres runs through psycopg 3.

Every pooled connection is checked before use (`pool_pre_ping`), so after a database outage the
next request gets a fresh connection instead of a dead one: the app recovers by itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    ColumnElement,
    Engine,
    Integer,
    String,
    any_,
    create_engine,
    event,
    false,
    func,
    inspect,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import InstrumentedAttribute, Session, sessionmaker
from sqlalchemy.orm.util import identity_key

# How long a SQLite write waits for another writer's lock before giving up.
SQLITE_BUSY_TIMEOUT_S = 30
# How long a request waits for a free pooled connection before answering 503.
POOL_TIMEOUT_S = 30
# Connections beyond pool_size, for work outside requests (startup, the CLI).
POOL_OVERFLOW = 2


def make_engine(url: str, pool_size: int = 10) -> Engine:
    """`pool_size` should match the worker's thread pool: each request thread holds at most
    one connection, so no request waits for a connection while a thread is free."""
    parsed = make_url(url)
    sized: dict[str, Any] = {
        "pool_size": pool_size,
        "max_overflow": POOL_OVERFLOW,
        "pool_timeout": POOL_TIMEOUT_S,
    }
    if parsed.get_backend_name() == "sqlite":
        pool: dict[str, Any] = {"pool_pre_ping": True}
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            pool |= sized
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S},
            **pool,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine.pool, "checkin", _checkpoints_again)
        return engine
    return create_engine(url, pool_pre_ping=True, **sized)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


# SQLite's default: a commit that leaves the write-ahead log above this many pages copies it into
# the database file (a checkpoint) before it returns.
SQLITE_AUTOCHECKPOINT_PAGES = 1000
_NO_AUTOCHECKPOINT = "paretoscope_no_autocheckpoint"


def defer_checkpoint(session: Session) -> None:
    """On SQLite, this session's commit leaves the write-ahead log as it is instead of
    checkpointing it (~0.05 s after a 1M-request upload): the caller runs `checkpoint` after
    its answer. Its connection checkpoints as before once back in the pool, and any other
    writer's commit still checkpoints a long log, so the log stays bounded even if `checkpoint`
    never runs. Nothing on Postgres."""
    if session.get_bind().dialect.name != "sqlite":
        return
    connection = session.connection()
    connection.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
    connection.info[_NO_AUTOCHECKPOINT] = True


def _checkpoints_again(dbapi_connection: Any, record: Any) -> None:
    # Before the pool hands the connection to anyone else.
    if record.info.pop(_NO_AUTOCHECKPOINT, False) and dbapi_connection is not None:
        dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={SQLITE_AUTOCHECKPOINT_PAGES}")


def checkpoint(engine: Engine) -> None:
    """On SQLite, copy the write-ahead log into the database file without waiting for readers
    or writers (PASSIVE: what they still use is left to a later checkpoint). Nothing on
    Postgres."""
    if engine.dialect.name != "sqlite":
        return
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
    except OperationalError:  # another checkpoint under way: the log is left to a later one
        return


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


Model = TypeVar("Model")


def already_loaded(
    session: Session, model: type[Model], ids: Iterable[int], columns: Iterable[str]
) -> dict[int, Model]:
    """The rows of `model` with these ids that this session holds with `columns` loaded and
    current (not expired, not changed): what a page read a moment ago need not be asked for
    again. The session keeps an object only while something else refers to it."""
    wanted = frozenset(columns)
    found: dict[int, Model] = {}
    for i in set(ids):
        obj = session.identity_map.get(identity_key(model, i))
        if not isinstance(obj, model):
            continue
        state = inspect(obj)
        if state.modified or state.expired_attributes or not wanted.isdisjoint(state.unloaded):
            continue
        found[i] = obj
    return found


# Above this many values a SQLite IN list is passed as one JSON parameter instead (SQLite
# binds at most SQLITE_MAX_VARIABLE_NUMBER parameters: 32,766 by default).
_SQLITE_IN_LIST_MAX = 10_000


def in_values(
    session: Session, column: InstrumentedAttribute[Any], values: Sequence[Any]
) -> ColumnElement[bool]:
    """`column IN values` for any number of values (ints or text). An IN list binds one
    parameter per value, and a statement may carry at most 65,535 on Postgres (an upload of
    more sweeps than that was stored, then failed): there the values go as one array; on SQLite
    a long list goes as one JSON array read by json_each."""
    if not values:
        return false()
    name = session.get_bind().dialect.name
    if name == "postgresql":
        kind = Integer if values and isinstance(values[0], int) else String
        return column == any_(literal(list(values), ARRAY(kind)))
    if len(values) > _SQLITE_IN_LIST_MAX:
        listed = func.json_each(literal(json.dumps(list(values)))).table_valued("value")
        return column.in_(select(listed.c.value))
    return column.in_(values)
