"""A real server with /mcp on, for the MCP tests over streamable HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from app.main import create_app
from app.settings import Settings
from tests.helpers import free_port
from tests.mcp.helpers import DASHBOARD


@pytest.fixture
def mcp_url(database_url: str) -> Iterator[str]:
    """A real server (uvicorn on loopback, in a thread) with /mcp on, on this test's database."""
    settings = Settings(
        database_url=database_url, seed_on_start=False, mcp_http=True, base_url=DASHBOARD
    )
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings, migrate=False), port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def http(mcp_url: str) -> Iterator[httpx.Client]:
    """A client of that server's JSON API, closed after the test: its pooled connection left
    to the garbage collector was the suite's unclosed-socket ResourceWarning."""
    with httpx.Client(base_url=mcp_url, timeout=60) as client:
        yield client
