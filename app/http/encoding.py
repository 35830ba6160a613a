"""Content negotiation for bodies compressed once and kept (app.web.page_cache).

A kept page is gzipped when it is kept, not as it is sent: each later answer costs what sending
its bytes costs. A body that already carries Content-Encoding passes Starlette's GZipMiddleware
untouched, so nothing is compressed twice.
"""

from __future__ import annotations

import zlib

from starlette.datastructures import Headers
from starlette.middleware import gzip
from starlette.types import Receive, Scope, Send

GZIP = "gzip"
GZIP_MINIMUM = 1024  # bytes: a smaller body is sent plain (GZipMiddleware's minimum_size)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an Accept-Encoding header allows gzip: named (or `*`) with a q-value above 0.

    No header at all gets the plain body, as Starlette's GZipMiddleware does."""
    if not accept_encoding:
        return False
    allowed: dict[str, bool] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.partition(";")
        coding = name.strip().lower()
        if not coding:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        allowed[coding] = q > 0
    if GZIP in allowed:
        return allowed[GZIP]
    if "x-gzip" in allowed:
        return allowed["x-gzip"]
    return allowed.get("*", False)


def gzip_bytes(body: bytes, level: int) -> bytes:
    """A gzip member of `body` (no name, no time: the same body always gives the same bytes)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(body) + compressor.flush()


def gunzip_bytes(data: bytes) -> bytes:
    return zlib.decompress(data, 16 + zlib.MAX_WBITS)


class GZipMiddleware(gzip.GZipMiddleware):
    """Starlette's, deciding by `accepts_gzip`. Its own test ("gzip" anywhere in the header)
    gzips for `gzip;q=0`, which refuses gzip, and not for `*` or `GZIP`, which allow it: where
    the two differ, the request's Accept-Encoding is reworded to what `accepts_gzip` decided
    (`gzip` or `identity`) before Starlette's public middleware reads it. The app behind reads
    the header only through `accepts_gzip` (app.web.page_cache), which decides the same on
    either wording."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = _negotiated(scope)
        await super().__call__(scope, receive, send)


def _negotiated(scope: Scope) -> Scope:
    """The scope, its Accept-Encoding reworded where Starlette's test would decide otherwise
    than `accepts_gzip`."""
    value = Headers(scope=scope).get("accept-encoding")
    wanted = accepts_gzip(value)
    if wanted == (GZIP in (value or "")):
        return scope
    headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]
    headers.append((b"accept-encoding", b"gzip" if wanted else b"identity"))
    return {**scope, "headers": headers}
