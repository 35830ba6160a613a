"""What `paretoscope serve` does once, just after it starts, so the first visitor does not.

The first Explore after a start paid for what every later one finds ready: the catalog and the
default sweeps' points read and decoded, their frontiers, hover text and read-off at the
default SLO worked out, the page rendered. `explore_page` asks for Explore's default page
(`GET /`, as a browser does) through the app itself, once, after startup: what it works out is
kept as any visit's would be (the page in app.web.page_cache, the points and their figures in
app.store.points), under the same bounds. It runs beside the server, which answers /healthz
and every other request meanwhile; a visit that comes first renders as it would have.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.types import ASGIApp, Message

log = logging.getLogger(__name__)

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
