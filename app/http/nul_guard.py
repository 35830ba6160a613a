"""Query strings with a NUL byte are refused before any route sees them.

Postgres refuses NUL in text ("cannot contain NUL (0x00) bytes") while SQLite accepts it, so a
filter like `?hardware=%00` would be a 500 on one database and a silent miss on the other.
Bodies are checked by their schemas (app/schemas/text.py); this covers every query parameter.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.http.errors import AppError, render_error


class NulQueryGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw: bytes = scope.get("query_string", b"") if scope["type"] == "http" else b""
        if b"%00" in raw or b"\x00" in raw:
            pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
            field = next((k for k, v in pairs if "\x00" in k + v), "query")
            errors: list[dict[str, object]] = [{"field": field, "message": "contains a NUL byte"}]
            error = AppError(422, "Invalid request", f"{field}: contains a NUL byte", errors)
            await render_error(Request(scope), error)(scope, receive, send)
            return
        await self.app(scope, receive, send)
