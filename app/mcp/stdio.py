"""`paretoscope mcp`: the MCP server over stdin and stdout, for a client that starts it."""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Protocol

import anyio
import mcp_types as types
from anyio.abc import ObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from app.mcp.provenance import root_of
from app.mcp.server import Backend, build_server
from app.settings import Settings
from app.store.db import POOL_OVERFLOW, make_engine, make_sessionmaker

# JSON-RPC 2.0's answers to a message it cannot read (id null: the id could not be read).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class Sender(Protocol):
    async def send(self, item: SessionMessage) -> None: ...


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
            readable, received = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable, read, readable, write)
                await server.run(received, write, server.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        engine.dispose()


async def answer_unreadable(
    read: AsyncIterable[SessionMessage | Exception],
    readable: ObjectSendStream[SessionMessage | Exception],
    write: Sender,
) -> None:
    """Pass each message read on to the server; answer each line the SDK could not read (not
    JSON, past its depth or digit bounds, not a JSON-RPC message) with a JSON-RPC error, which
    the SDK would leave unanswered."""
    async with readable:
        async for item in read:
            if isinstance(item, Exception):
                await write.send(SessionMessage(unreadable_answer(item)))
            else:
                await readable.send(item)


def unreadable_answer(exc: Exception) -> types.JSONRPCError:
    """-32700 for a line that is not JSON the server can read, -32600 for JSON that is no
    JSON-RPC message; the input is never echoed back."""
    broken = not isinstance(exc, ValidationError) or any(
        e["type"] == "json_invalid" for e in exc.errors()
    )
    code, message = (
        (PARSE_ERROR, "Parse error: the message is not JSON this server can read")
        if broken
        else (INVALID_REQUEST, "Invalid Request: the message is not a JSON-RPC 2.0 message")
    )
    return types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )
