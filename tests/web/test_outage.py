"""A lost database answers 503 (page or JSON, no internals) and the app recovers by itself."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store.migrate import upgrade_to_head
from tests.factories import MINIMAL

PG_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")
INTERNALS = ("psycopg", "sqlalchemy", "sqlite", "Traceback", "127.0.0.1", "connection to server")


def _client(url: str) -> TestClient:
    settings = Settings(database_url=url, seed_on_start=False, allowed_hosts=["testserver"])
    return TestClient(create_app(settings, migrate=False), raise_server_exceptions=False)


def _assert_unreachable(client: TestClient, secret: str) -> None:
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.json() == {"status": "unavailable", "database": "unreachable"}

    api = client.get("/api/sweeps")
    assert api.status_code == 503
    assert api.headers["retry-after"] == "5"
    assert "database is unreachable" in api.json()["detail"]

    page = client.get("/sweeps")
    assert page.status_code == 503
    soup = BeautifulSoup(page.text, "html.parser")
    assert soup.h1 is not None and "Database unreachable" in soup.h1.get_text()

    upload = client.post("/api/sweeps", files=[("files", ("mini.csv", MINIMAL, "text/csv"))])
    assert upload.status_code == 503

    for response in (health, api, page, upload):
        for leak in (*INTERNALS, secret):
            assert leak not in response.text


def _assert_serving(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/api/sweeps").status_code == 200
    assert client.get("/sweeps").status_code == 200


@pytest.fixture
def scratch_postgres() -> Iterator[str]:
    """A database of this test's own, created and dropped through the admin URL."""
    if not PG_URL:
        pytest.skip("PARETOSCOPE_TEST_DATABASE_URL is not set")
    name = f"paretoscope_outage_{os.getpid()}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    upgrade_to_head(url)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.mark.postgres
def test_a_lost_postgres_connection_answers_503_then_recovers(scratch_postgres: str) -> None:
    name = make_url(scratch_postgres).database
    assert PG_URL
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with _client(scratch_postgres) as client:
        _assert_serving(client)  # the pool now holds live connections

        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        _assert_unreachable(client, str(name))

        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        _assert_serving(client)  # no restart: the dead connections were replaced
        upload = client.post("/api/sweeps", files=[("files", ("mini.csv", MINIMAL, "text/csv"))])
        assert upload.status_code == 201
    admin.dispose()


def test_a_missing_sqlite_database_answers_503_then_recovers(tmp_path: Path) -> None:
    folder = tmp_path / "volume"
    folder.mkdir()
    url = f"sqlite:///{folder / 'app.db'}"
    upgrade_to_head(url)
    with _client(url) as client:
        app_engine = client.app.state.engine  # type: ignore[attr-defined]
        _assert_serving(client)

        # The volume goes away: open files keep working, new connections cannot open the file.
        app_engine.dispose()
        shutil.move(folder, tmp_path / "unmounted")
        _assert_unreachable(client, str(tmp_path))

        shutil.move(tmp_path / "unmounted", folder)
        _assert_serving(client)
        upload = client.post("/api/sweeps", files=[("files", ("mini.csv", MINIMAL, "text/csv"))])
        assert upload.status_code == 201
