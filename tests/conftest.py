"""Shared fixtures: a migrated database per test (SQLite always, Postgres when configured).

SQLite: one migrated template file per session, copied for each test.
Postgres (PARETOSCOPE_TEST_DATABASE_URL): migrated once per session, tables truncated per test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, text
from sqlalchemy.orm import Session

from app.main import create_app
from app.settings import PROJECT_ROOT, Settings
from app.store.db import make_engine, make_sessionmaker
from app.store.migrate import upgrade_to_head
from app.store.models import Base

FIXTURES = PROJECT_ROOT.parent / "shared" / "fixtures"
DATA = Path(__file__).parent / "data"
PG_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if PG_URL:
        return
    skip = pytest.mark.skip(reason="PARETOSCOPE_TEST_DATABASE_URL is not set")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_migrated() -> str:
    assert PG_URL
    engine = make_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    upgrade_to_head(PG_URL)
    return PG_URL


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database for this test."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    url = request.getfixturevalue("postgres_migrated")
    empty_postgres(url)
    yield url


def empty_postgres(url: str) -> None:
    """Every table emptied but the version rows (emptying the tables they follow renews their
    tokens; without the rows nothing could be kept under them)."""
    kept = {"catalog_version", "sweep_version"}
    tables = ", ".join(t.name for t in Base.metadata.sorted_tables if t.name not in kept)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session on the test database, for arranging data and checking what was stored."""
    with make_sessionmaker(engine)() as session:
        yield session


@pytest.fixture
def make_client(database_url: str) -> Iterator[Callable[..., TestClient]]:
    """Build a client with its own settings, e.g. make_client(write_token="s3cret")."""
    clients: list[TestClient] = []

    def build(**overrides: Any) -> TestClient:
        # TestClient sends Host: testserver, which the default Host allow-list refuses.
        overrides.setdefault("allowed_hosts", ["testserver"])
        # peer=("10.0.0.2", 4000): the address the requests come from (a proxy, say).
        peer = overrides.pop("peer", ("testclient", 50000))
        settings = Settings(database_url=database_url, seed_on_start=False, **overrides)
        app = create_app(settings, migrate=False)
        client = TestClient(app, raise_server_exceptions=False, client=peer)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


@pytest.fixture
def hx_client(make_client: Callable[..., TestClient]) -> TestClient:
    client = make_client()
    client.headers["HX-Request"] = "true"
    return client


def trigger_events(engine: Engine, name_suffix: str) -> set[tuple[str, str]]:
    """(table, INSERT | UPDATE | DELETE) of every trigger whose name ends with `name_suffix`."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            rows = conn.execute(
                text(
                    "SELECT tbl_name, sql FROM sqlite_master "
                    "WHERE type = 'trigger' AND name LIKE :n"
                ),
                {"n": f"%{name_suffix}"},
            ).all()
            return {(t, e) for t, sql in rows for e in ("INSERT", "UPDATE", "DELETE") if e in sql}
        rows = conn.execute(
            text(
                "SELECT event_object_table, event_manipulation "
                "FROM information_schema.triggers WHERE trigger_name LIKE :n"
            ),
            {"n": f"%{name_suffix}"},
        ).all()
        return {(t, e) for t, e in rows}


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """Every statement any engine runs while the test runs (each app's engine is its own),
    lower-cased."""
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        seen.append(statement.lower())

    event.listen(Engine, "before_cursor_execute", note)
    yield seen
    event.remove(Engine, "before_cursor_execute", note)
