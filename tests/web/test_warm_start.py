"""No slow first visit (issue 34 §5): `paretoscope serve` renders Explore's default page once
just after it starts, beside the server, and keeps it as a visit would: the first visitor's
`GET /` is the kept page, the same page a server that did not warm renders."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store import points as point_queries
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


async def finished(task: asyncio.Task[Any]) -> Any:
    return await task


def test_serve_keeps_explores_default_page_from_its_start_for_the_first_visitor(
    database_url: str, seeded: None, statements: list[str]
) -> None:
    point_queries.clear_caches()  # as a new process: nothing kept yet
    page_cache.clear_all()
    cold_app, cold = started(database_url, warm_on_start=False)
    assert cold_app.state.warming is None
    unwarmed = cold.get("/")
    cold.__exit__(None, None, None)
    point_queries.clear_caches()
    app, client = started(database_url, warm_on_start=True)
    assert client.portal is not None
    assert client.portal.call(finished, app.state.warming) == 200
    assert client.get("/healthz").status_code == 200
    statements.clear()
    first = client.get("/")
    assert first.status_code == 200 and first.text == unwarmed.text
    assert len(statements) == 1  # the version tokens: the page is the one kept at start
    client.__exit__(None, None, None)


def test_a_warm_that_fails_leaves_the_server_serving(database_url: str) -> None:
    app, client = started(database_url, warm_on_start=False)
    assert client.portal is not None

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("no page")

    assert client.portal.call(warm.explore_page, broken) is None
    assert client.get("/healthz").status_code == 200
    client.__exit__(None, None, None)
