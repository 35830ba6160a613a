"""No slow first visit (issue 34 §5): `paretoscope serve` renders Explore's default page once as
it starts, before it reports ready, and keeps it as a visit would: the first visitor's `GET /`
is the kept page, the same page a server that did not warm renders. Only a small default view
is warmed: a larger one is left to its first visit."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.main import create_app
from app.settings import Settings
from app.store import points as point_queries
from app.store.db import make_sessionmaker
from app.web import page_cache, warm


def started(database_url: str, *, warm_on_start: bool) -> tuple[FastAPI, TestClient]:
    app = create_app(
        Settings(database_url=database_url, seed_on_start=False, allowed_hosts=["testserver"]),
        migrate=False,
    )
    app.state.warm_on_start = warm_on_start
    client = TestClient(app)
    client.__enter__()
    return app, client


def test_serve_keeps_explores_default_page_from_its_start_for_the_first_visitor(
    database_url: str, seeded: None, statements: list[str]
) -> None:
    point_queries.clear_caches()  # as a new process: nothing kept yet
    page_cache.clear_all()
    cold_app, cold = started(database_url, warm_on_start=False)
    assert cold_app.state.warmed is None
    unwarmed = cold.get("/")
    cold.__exit__(None, None, None)
    point_queries.clear_caches()
    app, client = started(database_url, warm_on_start=True)
    assert app.state.warmed == 200  # before ready: the page is kept when the first visit comes
    statements.clear()
    first = client.get("/")
    assert first.status_code == 200 and first.text == unwarmed.text
    assert len(statements) == 1  # the version tokens: the page is the one kept at start
    client.__exit__(None, None, None)


def test_a_default_view_over_the_bound_is_left_to_its_first_visit(
    database_url: str,
    seeded: None,
    engine: Engine,
    statements: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points = warm.default_view_points(make_sessionmaker(engine))
    assert points > 0
    monkeypatch.setattr(warm, "WARM_POINTS", points - 1)
    page_cache.clear_all()
    app, client = started(database_url, warm_on_start=True)
    assert app.state.warmed is None
    statements.clear()
    assert client.get("/").status_code == 200
    assert len(statements) > 1  # rendered by the first visit
    client.__exit__(None, None, None)


def test_a_warm_that_fails_leaves_the_server_serving(database_url: str) -> None:
    app, client = started(database_url, warm_on_start=False)
    assert client.portal is not None

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("no page")

    assert client.portal.call(warm.explore_page, broken) is None
    assert client.get("/healthz").status_code == 200
    client.__exit__(None, None, None)


def test_the_upload_path_warmed_at_start_parses_hashes_and_encodes_without_storing() -> None:
    from app.services.upload import warm as warm_upload

    sweeps, encoded = warm_upload.warm()
    assert sweeps == 1 and encoded > 0  # the per-request file joined its points: samples encoded
