"""Which database errors mean "try again later" (503) and which are bugs (500): the drivers raise
OperationalError for both, so each case here is an error a real driver raised."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy import exc as sa_exc

from app.http.errors import UNREACHABLE, database_error


def _raised(engine: Engine, sql: str, params: dict[str, object] | None = None) -> sa_exc.DBAPIError:
    try:
        with engine.connect() as conn:
            conn.execute(text(sql), params or {})
    except sa_exc.DBAPIError as exc:
        return exc
    raise AssertionError(f"{sql[:60]!r}... did not fail")


def test_a_missing_table_is_a_bug_not_an_outage(engine: Engine) -> None:
    exc = _raised(engine, "SELECT * FROM no_such_table")
    assert isinstance(exc, sa_exc.OperationalError | sa_exc.ProgrammingError)
    assert database_error(exc) is None


def test_more_parameters_than_a_statement_may_bind_is_a_bug_not_an_outage(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("psycopg refuses it itself; SQLite binds as many as it was built for")
    many = {f"p{i}": i for i in range(70_000)}
    exc = _raised(engine, f"SELECT 1 WHERE 1 IN ({', '.join(f':{k}' for k in many)})", many)
    assert database_error(exc) is None


def test_a_database_that_cannot_be_opened_is_an_outage(tmp_path: object) -> None:
    engine = create_engine(f"sqlite:///{tmp_path}/no/such/folder/app.db")
    exc = _raised(engine, "SELECT 1")
    assert database_error(exc) is UNREACHABLE


def test_a_write_lock_held_past_the_wait_is_an_outage(engine: Engine) -> None:
    postgres = engine.dialect.name == "postgresql"
    with engine.connect() as holder:
        holder.execute(text("DELETE FROM sweep"))  # holds the write lock until rolled back
        if postgres:
            holder.execute(text("LOCK TABLE sweep IN ACCESS EXCLUSIVE MODE"))
            waiting = engine.execution_options(isolation_level="AUTOCOMMIT")
            exc = _raised(waiting, "SET lock_timeout = '50ms'; SELECT count(*) FROM sweep")
        else:
            impatient = create_engine(engine.url, connect_args={"timeout": 0.05})
            exc = _raised(impatient, "DELETE FROM sweep")
            impatient.dispose()
        holder.rollback()
    assert database_error(exc) is UNREACHABLE
