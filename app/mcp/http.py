"""The MCP server on the web app at /mcp (streamable HTTP), when PARETOSCOPE_MCP_HTTP is set.

It sits inside the app's security layer like every route: the Host allow-list and the refusal of
cross-site POSTs apply to it unchanged. Stateless JSON answers: no session is kept between
requests, so any worker of `serve --workers N` can answer any request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.http.deps import session_slots
from app.mcp.provenance import root_of
from app.mcp.server import Backend, build_server

PATH = "/mcp"


class McpMount:
    """The server and, while the app runs, the session manager that serves it over HTTP."""

    def __init__(self, app: FastAPI) -> None:
        state = app.state  # read per call: the tests attach another database between runs
        self.server: Server = build_server(
            Backend(
                sessions=lambda: state.sessionmaker(),
                root=lambda request: root_of(state.settings, request),
                slots=lambda: session_slots(state),
            )
        )
        self.manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """A new manager per run of the app (one cannot be run twice)."""
        manager = StreamableHTTPSessionManager(app=self.server, json_response=True, stateless=True)
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.manager is None:  # only between the app's lifespan runs
            body = {"detail": "The MCP server is not running.", "errors": []}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        if scope["method"] != "POST":
            # Stateless JSON answers: no session to resume or end, and no stream the server
            # could push on, so a GET would only hold an idle stream open (for any Origin).
            body = {"detail": "The MCP endpoint answers POST only (stateless JSON).", "errors": []}
            await JSONResponse(body, status_code=405, headers={"Allow": "POST"})(
                scope, receive, send
            )
            return
        await self.manager.handle_request(scope, receive, send)


def mount(app: FastAPI) -> McpMount:
    mounted = McpMount(app)
    app.router.routes.append(Route(PATH, endpoint=mounted, include_in_schema=False))
    return mounted
