"""A lean HTTP/1.1 client for the load figure: one keep-alive connection per simulated user,
over asyncio streams.

The load figure runs its clients on the server's own machine. httpx spent ~10 ms of CPU per
request there (three quarters of a core at 70 req/s on a 2-core machine), so its event loop
queued its own requests and the read latencies it reported were mostly its own: a slow read
that took 2.4 s had spent 0.4 s in the server (its Server-Timing). This client does what a
browser's connection does and nothing more: it sends a request, reads the status and headers,
and reads the body by its length (or its chunks); a gzip body is kept as sent, not decoded.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

MAX_HEADER_BYTES = 64 * 1024
T = TypeVar("T")


class TransportError(Exception):
    """The connection failed or the server broke HTTP/1.1 framing."""


@dataclass(frozen=True)
class Response:
    status_code: int
    headers: dict[str, str]  # names lower-case; a repeated header keeps its last value
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)


class Connection:
    """One keep-alive connection to `base_url` (http only), opened on first use and again
    after the server closes it."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"not an http:// URL: {base_url}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.netloc = parts.netloc
        self.timeout_s = timeout_s
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Response:
        return await self.request("GET", path, b"", headers or {})

    async def post_file(
        self, path: str, field: str, filename: str, body: bytes, content_type: str
    ) -> Response:
        """A multipart/form-data POST of one file, as a browser's file input sends it."""
        boundary = uuid.uuid4().hex
        disposition = f'form-data; name="{field}"; filename="{filename}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        head += f"Content-Type: {content_type}\r\n\r\n"
        payload = head.encode() + body + f"\r\n--{boundary}--\r\n".encode()
        kind = f"multipart/form-data; boundary={boundary}"
        return await self.request("POST", path, payload, {"Content-Type": kind})

    async def request(
        self, method: str, path: str, body: bytes, headers: dict[str, str]
    ) -> Response:
        """The response, or TimeoutError after `timeout_s` (the connection is then dropped,
        as a browser drops one it gave up on) or TransportError."""
        try:
            exchange = self._exchange(method, path, body, headers)
            return await asyncio.wait_for(exchange, self.timeout_s)
        except (TimeoutError, TransportError):
            await self.close()
            raise
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            await self.close()
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        if self._streams is not None:
            writer = self._streams[1]
            self._streams = None
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass

    async def _exchange(
        self, method: str, path: str, body: bytes, headers: dict[str, str]
    ) -> Response:
        if self._streams is None:
            self._streams = await asyncio.open_connection(
                self.host, self.port, limit=MAX_HEADER_BYTES
            )
        reader, writer = self._streams
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.netloc}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        try:
            status = int(status_line.split(" ", 2)[1])
        except (IndexError, ValueError) as exc:
            raise TransportError(f"bad status line {status_line!r}") from exc
        got: dict[str, str] = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            got[name.strip().lower()] = value.strip()
        if got.get("transfer-encoding", "").lower() == "chunked":
            content = await _chunked(reader)
        elif "content-length" in got:
            content = await reader.readexactly(int(got["content-length"]))
        elif status in (204, 304) or method == "HEAD":
            content = b""
        else:
            raise TransportError(f"{method} {path}: a body with neither length nor chunks")
        asked_close = any(
            k.lower() == "connection" and v.lower() == "close" for k, v in headers.items()
        )
        if asked_close or got.get("connection", "").lower() == "close":
            await self.close()  # either side's "close" ends the connection after this answer
        return Response(status, got, content)


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # no trailers are sent; the last empty line
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)  # the chunk's CRLF


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end on a new event loop in a thread of its own: the caller may
    already run a loop on its thread (pytest with Playwright), where asyncio.run refuses."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
