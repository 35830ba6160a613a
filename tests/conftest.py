"""Shared fixtures: a migrated database per test (SQLite always, Postgres when configured).

Each test gets a database as a fresh one would be, empty or seeded (it names `seeded`), but the
tests of a worker share it (tests/databases.py): SQLite has one file of each kind per worker,
copied back from its template (migrated, and seeded, once per session) only when a test changed
it (SharedSqlite); Postgres has one database per worker (`test_gw0`, ... beside the configured
one, created on demand), emptied and seeded again only when a test changed it (reset_postgres).
Most tests only read, so most pay nothing, and the app's per-process caches stay warm between
them.

Why not a transaction rolled back after each test: the app under test opens its own
connections (a pool per app, request threads, servers and CLIs in other processes), which see
only committed rows, so a test's arranged rows must be committed, and a rollback cannot undo
them.
"""

from __future__ import annotations

import inspect
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.orm import Session

from app.cli import main
from app.main import attach_database, create_app
from app.services.seed import SEED_DIR, seed
from app.settings import PROJECT_ROOT, Settings, get_settings
from app.store.db import make_engine, make_sessionmaker
from app.store.migrate import upgrade_to_head
from app.store.models import Hardware
from tests.databases import (
    SEEDED_COPY,
    SharedSqlite,
    copied_tables,
    empty_postgres,
    reset_postgres,
    sequences,
)

# Prometheus for the live-pull test, started when the session begins if it runs that test.
pytest_plugins = ["tests.prometheus_server"]

FIXTURES = PROJECT_ROOT.parent / "shared" / "fixtures"
DATA = Path(__file__).parent / "data"
PG_BASE_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # "gw0", ... under pytest-xdist


def _worker_url(base: str | None) -> str | None:
    """The database of this xdist worker beside the configured one (`test` -> `test_gw0`)."""
    if not base or not XDIST_WORKER:
        return base
    url = make_url(base)
    return url.set(database=f"{url.database}_{XDIST_WORKER}").render_as_string(hide_password=False)


PG_URL = _worker_url(PG_BASE_URL)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def _first(item: pytest.Item) -> int:
    """Longest first, so no worker is left alone with a long test at the end: the browser tests
    (one xdist group, one worker, tests/browser/conftest.py), then the `slow` ones."""
    if "tests/browser/" in Path(str(item.fspath)).as_posix():
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_first)  # stable: within each kind, the order collected
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
def sqlite_seeded_template(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("seeded") / "seeded.db"
    shutil.copy(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    with make_sessionmaker(engine)() as session:
        seed(session)
        session.commit()
    engine.dispose()
    return path


def _create_worker_database() -> None:
    assert PG_BASE_URL and PG_URL
    name = make_url(PG_URL).database
    admin = create_engine(PG_BASE_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if exists.first() is None:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()


@pytest.fixture(scope="session")
def postgres_migrated() -> str:
    assert PG_URL
    if PG_URL != PG_BASE_URL:
        _create_worker_database()
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        # A test database need not survive a crash: commits stop waiting for the disk.
        name = make_url(PG_URL).database
        conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit TO off'))
    admin.dispose()
    engine = make_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    upgrade_to_head(PG_URL)
    return PG_URL


@pytest.fixture(scope="session")
def postgres_seeded(postgres_migrated: str) -> list[str]:
    """seed_data/ loaded once and its rows kept in a schema of their own; the statements that
    copy them back into emptied tables, each sequence set past the highest id."""
    url = postgres_migrated
    empty_postgres(url)
    engine = make_engine(url)
    with make_sessionmaker(engine)() as session:
        seed(session)
        session.commit()
    restore: list[str] = []
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {SEEDED_COPY} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {SEEDED_COPY}"))
        for table in copied_tables():
            conn.execute(text(f"CREATE TABLE {SEEDED_COPY}.{table} AS SELECT * FROM {table}"))
            restore.append(f"INSERT INTO {table} SELECT * FROM {SEEDED_COPY}.{table}")
        for table, column, sequence in sequences(url, conn):
            restore.append(
                f"SELECT setval('{sequence}', "
                f"(SELECT COALESCE(MAX({column}), 0) + 1 FROM {table}), false)"
            )
    engine.dispose()
    return restore


# The Postgres twin: a test runs on Postgres as well as on SQLite when it touches SQL, bounds,
# migrations or concurrency: it runs SQL itself or checks the statements the app sends (it
# names `engine` or `statements` itself); it sits in a folder of
# POSTGRES_TWIN_FOLDERS (hostile input and write bounds) or a module of POSTGRES_TWIN_MODULES
# (the store and what writes to it: uploads, the CLI's, seeding, catalog edits, tags; migrations;
# limits and concurrency; and three modules that open every page and the large answers on the
# seeded data); or it is marked `postgres_twin`. The other tests, pages, JSON answers and CLI
# read-offs, even one that names `session` to arrange rows or read back what was stored, run on
# SQLite alone: the queries they cause are the ones the twinned tests run.
TWIN_FIXTURES = {"engine", "statements"}
POSTGRES_TWIN_FOLDERS = ("tests/hostile/",)
POSTGRES_TWIN_MODULES = {
    "tests/ingest/test_all_fixtures.py",
    "tests/ingest/test_point_table.py",
    "tests/test_catalog_cache.py",
    "tests/test_cli.py",
    "tests/test_database_errors.py",
    "tests/test_migrations.py",
    "tests/test_request_session.py",
    "tests/test_sample_store.py",
    "tests/test_seed.py",
    "tests/test_store_in_values.py",
    "tests/web/test_accessibility.py",
    "tests/web/test_api_answers.py",
    "tests/web/test_catalog.py",
    "tests/web/test_explore.py",
    "tests/web/test_limits.py",
    "tests/web/test_limits_concurrency.py",
    "tests/web/test_page_cache.py",
    "tests/web/test_tags.py",
    "tests/web/test_upload_api.py",
    "tests/web/test_upload_staging.py",
    "tests/web/test_upload_stream.py",
}


def on_postgres_twin(metafunc: pytest.Metafunc) -> bool:
    """Whether this test also runs on Postgres (see POSTGRES_TWIN_MODULES)."""
    module = Path(str(metafunc.definition.fspath)).relative_to(PROJECT_ROOT).as_posix()
    return (
        module in POSTGRES_TWIN_MODULES
        or module.startswith(POSTGRES_TWIN_FOLDERS)
        or metafunc.definition.get_closest_marker("postgres_twin") is not None
        or not TWIN_FIXTURES.isdisjoint(_named(metafunc))
    )


def _named(metafunc: pytest.Metafunc) -> set[str]:
    """The fixtures a test names itself (its parameters and `usefixtures`), not those its
    fixtures pull in: `session` builds on `engine`, but a test that arranges rows with it does
    not run SQL of its own."""
    named = set(inspect.signature(metafunc.function).parameters)
    for mark in metafunc.definition.iter_markers("usefixtures"):
        named.update(mark.args)
    return named


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`database_url` over SQLite, and Postgres for the twinned tests; a test that parametrizes
    `database_url` itself (indirect) keeps its own choice."""
    if "database_url" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if isinstance(names, str):
            names = names.replace(" ", "").split(",")
        if "database_url" in names:
            return
    backends = BACKENDS if on_postgres_twin(metafunc) else BACKENDS[:1]
    metafunc.parametrize("database_url", backends, indirect=True)


@pytest.fixture(scope="session")
def sqlite_shared(
    sqlite_template: Path, sqlite_seeded_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, SharedSqlite]:
    folder = tmp_path_factory.mktemp("shared")
    return {
        "empty": SharedSqlite(sqlite_template, folder / "empty.db"),
        "seeded": SharedSqlite(sqlite_seeded_template, folder / "seeded.db"),
    }


@pytest.fixture
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A migrated database for this test: empty, or seeded when the test names `seeded`; as a
    fresh one would be, shared with the worker's other tests (SharedSqlite, reset_postgres)."""
    seeded = "seeded" in request.fixturenames
    if request.param == "sqlite":
        shared = request.getfixturevalue("sqlite_shared")["seeded" if seeded else "empty"]
        yield shared.ready()
        return
    url = request.getfixturevalue("postgres_migrated")
    restore = request.getfixturevalue("postgres_seeded") if seeded else []
    reset_postgres(url, "seeded" if seeded else "empty", restore)
    yield url


@pytest.fixture
def seeded(database_url: str) -> None:
    """seed_data/ loaded (catalogs and demo sweeps): `database_url` copies it from a template."""


@pytest.fixture
def catalog(session: Session, tmp_path: Path) -> None:
    """Only the hardware catalog and the model specs of seed_data/."""
    for name in ("hardware.csv", "models.csv"):
        shutil.copy(SEED_DIR / name, tmp_path / name)
    seed(session, tmp_path)
    session.commit()


@pytest.fixture
def h100(session: Session) -> None:
    """One GPU in the hardware catalog: the H100 SXM with its datasheet's bandwidth and memory."""
    session.add(Hardware(key="H100", name="NVIDIA H100 SXM", mem_bw_tb_s=3.35, memory_gb=80))
    session.commit()


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


# One app per set of settings in each worker, its database rebound per test (attach_database):
# FastAPI analyses every route on an app's first request, which cost each test ~0.2 s.
_APPS: dict[str, FastAPI] = {}


@pytest.fixture
def make_client(database_url: str) -> Iterator[Callable[..., TestClient]]:
    """Build a client with its own settings, e.g. make_client(write_token="s3cret").

    Two clients of one test are two apps (two servers on one database, say); across tests an
    app is reused for the same settings, with this test's database, sessions and an empty page
    cache. make_client(fresh=True) builds an app no other test sees (one the test changes)."""
    clients: list[TestClient] = []
    used: set[str] = set()

    def build(*, fresh: bool = False, **overrides: Any) -> TestClient:
        # TestClient sends Host: testserver, which the default Host allow-list refuses.
        overrides.setdefault("allowed_hosts", ["testserver"])
        # peer=("10.0.0.2", 4000): the address the requests come from (a proxy, say).
        peer = overrides.pop("peer", ("testclient", 50000))
        settings = Settings(database_url=database_url, seed_on_start=False, **overrides)
        key = settings.model_dump_json(exclude={"database_url"})
        app = None if fresh or key in used else _APPS.get(key)
        if app is None:
            app = create_app(settings, migrate=False)
            if not fresh and key not in used:
                _APPS[key] = app
        else:
            # The engine a former test left is closed: its connections would otherwise stay
            # open on a database the next test shares (SharedSqlite) or resets.
            left = app.state.engine
            attach_database(app, settings)
            left.dispose()
        used.add(key)
        client = TestClient(app, raise_server_exceptions=False, client=peer)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def cli(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., int]]:
    """`paretoscope ARGS...` on the test database; its exit status."""
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    monkeypatch.delenv("PARETOSCOPE_BASE_URL", raising=False)
    get_settings.cache_clear()
    yield lambda *args: main([str(a) for a in args])
    get_settings.cache_clear()


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
