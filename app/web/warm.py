"""What `paretoscope serve` does once as it starts, so the first visitor does not.

The first Explore after a start paid for what every later one finds ready: the catalog and the
default sweeps' points read and decoded, their frontiers, hover text and read-off at the
default SLO worked out, the page rendered. `at_start` asks for Explore's default page (`GET /`,
as a browser does) through the app itself before the server reports ready: what it works out is
kept as any visit's would be (the page in app.web.page_cache, the points and their figures in
app.store.points), under the same bounds.

Bounded, so readiness waits little: only when the default view holds at most WARM_POINTS
points (the seeded database's: ~0.1 s); a larger one is left to its first visit. Warming before
ready, not beside, means no first request after a restart shares the process with it.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import QueryParams
from starlette.types import ASGIApp, Message

from app.services.upload import warm as warm_upload
from app.store.models import PointBlock
from app.views import explore_state

log = logging.getLogger(__name__)

WARM_POINTS = 10_000  # a default view with more points is not rendered before ready

# As a browser asks for the page: what it would be answered with is what is kept.
EXPLORE_REQUEST: dict[str, Any] = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "GET",
    "scheme": "http",
    "path": "/",
    "raw_path": b"/",
    "root_path": "",
    "query_string": b"",
    "headers": [
        (b"host", b"127.0.0.1"),
        (b"accept", b"text/html"),
        (b"accept-encoding", b"gzip, deflate, br"),
    ],
    "client": ("127.0.0.1", 0),
    "server": ("127.0.0.1", 80),
}


async def explore_page(app: ASGIApp) -> int | None:
    """GET / through `app` (every middleware included); its status, None if it raised."""
    status: int | None = None

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])

    try:
        await app(dict(EXPLORE_REQUEST), receive, send)
    except Exception:  # a start is no worse for a page not warmed: the first visit renders it
        log.warning("warming Explore after start failed", exc_info=True)
        return None
    return status


def default_view_points(factory: sessionmaker[Session]) -> int:
    """How many points Explore's default view (no query) draws."""
    with factory() as session:
        state = explore_state.resolve(session, explore_state.parse(QueryParams()))
        if not state.selected:
            return 0
        found = select(func.coalesce(func.sum(PointBlock.points), 0)).where(
            PointBlock.sweep_id.in_(state.selected)
        )
        return int(session.scalar(found) or 0)


async def at_start(app: Any) -> int | None:
    """Explore's default page rendered and kept, when its view is small enough (see the module
    docstring); its status, None when not warmed. The upload path's code is run once first
    (app.services.upload.warm: nothing stored)."""
    try:
        await anyio.to_thread.run_sync(warm_upload.warm)
    except Exception:  # the first upload then pays for it, as before
        log.warning("warming the upload path at start failed", exc_info=True)
    try:
        points = await anyio.to_thread.run_sync(default_view_points, app.state.sessionmaker)
    except Exception:
        log.warning("warming Explore at start: no default view", exc_info=True)
        return None
    if points > WARM_POINTS:
        log.info("Explore's default view holds %d points: not warmed at start", points)
        return None
    return await explore_page(app)
