"""`paretoscope mcp`: the MCP server over stdin and stdout, for a client that starts it."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from app.mcp.provenance import root_of
from app.mcp.server import Backend, build_server
from app.settings import Settings
from app.store.db import POOL_OVERFLOW, make_engine, make_sessionmaker


def serve(settings: Settings) -> None:
    """Serve until the client closes stdin. Nothing else may write to stdout meanwhile: it is
    the protocol's channel (the SDK points stray prints at stderr while it serves)."""
    engine = make_engine(settings.database_url, pool_size=settings.threads)
    slots = anyio.Semaphore(settings.threads + POOL_OVERFLOW)
    server = build_server(
        Backend(make_sessionmaker(engine), lambda _request: root_of(settings), lambda: slots)
    )

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        engine.dispose()
