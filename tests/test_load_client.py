"""The load figure's lean HTTP client (bench/load_client.py) against raw loopback servers: it
must frame every response as HTTP/1.1 says, or fail loudly, since the figure trusts its counts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bench.load_client import Connection, TransportError, run_apart

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def _serve(handler: Handler, talk: Callable[[str], Awaitable[object]]) -> object:
    """Run `talk(base_url)` against a loopback server answering with `handler`, on a loop of
    its own thread (browser tests may leave one running on this one)."""

    async def main() -> object:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            return await talk(f"http://127.0.0.1:{port}")

    return run_apart(main())


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


def test_a_chunked_body_is_joined_and_the_connection_is_kept_for_the_next_request() -> None:
    connections = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        for _ in range(2):
            await _read_request(reader)
            writer.write(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
            )
            await writer.drain()
        writer.close()

    async def talk(base: str) -> list[bytes]:
        http = Connection(base, timeout_s=5)
        bodies = [(await http.get("/a")).content, (await http.get("/b")).content]
        await http.close()
        return bodies

    assert _serve(handler, talk) == [b"hello world", b"hello world"]
    assert len(connections) == 1


def test_a_connection_the_server_closes_is_opened_again_for_the_next_request() -> None:
    connections = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        await _read_request(reader)
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")
        await writer.drain()
        writer.close()

    async def talk(base: str) -> list[tuple[int, bytes]]:
        http = Connection(base, timeout_s=5)
        got = []
        for path in ("/x", "/y"):
            response = await http.get(path)
            got.append((response.status_code, response.content))
        await http.close()
        return got

    assert _serve(handler, talk) == [(404, b"no"), (404, b"no")]
    assert len(connections) == 2


def test_a_file_is_posted_as_multipart_form_data_with_its_length() -> None:
    seen: list[tuple[bytes, bytes]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _read_request(reader))
        writer.write(b'HTTP/1.1 201 Created\r\nContent-Length: 12\r\n\r\n{"ok": true}')
        await writer.drain()
        writer.close()

    async def talk(base: str) -> object:
        http = Connection(base, timeout_s=5)
        response = await http.post_file("/api/sweeps", "files", "a.csv", b"x,y\n1,2\n", "text/csv")
        await http.close()
        return response.status_code, response.json()

    assert _serve(handler, talk) == (201, {"ok": True})
    head, body = seen[0]
    assert head.startswith(b"POST /api/sweeps HTTP/1.1\r\n")
    assert b"Content-Type: multipart/form-data; boundary=" in head
    assert (
        b'name="files"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nx,y\n1,2\n\r\n--' in body
    )


def test_a_server_that_never_answers_is_a_timeout_and_one_that_hangs_up_mid_body_an_error() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        await reader.read()  # until the client gives up and closes

    async def hangs_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")
        await writer.drain()
        writer.close()

    async def ask(base: str) -> object:
        return await Connection(base, timeout_s=0.3).get("/")

    with pytest.raises(TimeoutError):
        _serve(silent, ask)
    with pytest.raises(TransportError, match="IncompleteReadError"):
        _serve(hangs_up, ask)


def test_the_throughput_clients_run_where_an_event_loop_is_already_running() -> None:
    """`make bench` calls them from plain code, but pytest with Playwright leaves a loop
    running on the test thread: they must not need this thread's loop."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from bench.throughput import requests_per_s

    class Ok(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as uvicorn answers

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/?ttft_ms={{limit}}"

    async def from_inside_a_loop() -> float:
        return requests_per_s(url, clients=2, seconds=0.2)

    try:
        rate = run_apart(from_inside_a_loop())
    finally:
        server.shutdown()
    assert rate > 0
