"""The upload cap enforced while the body streams in, so an oversized body is never held whole.

Counting in the ASGI `receive` channel stops a request at the first chunk past the cap; a
`Content-Length` above the cap is refused before a byte is read. Whatever the handler makes of
the interrupted body, the client gets one 413 in the usual error format.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.errors import AppError, render_error

# Multipart boundaries, part headers and the form's text fields ride on top of the files, which
# the upload reader checks against the cap exactly.
ENVELOPE_BYTES = 1024 * 1024


class BodyTooLarge(HTTPException):
    """Raised from `receive`; an HTTPException so body parsers re-raise it instead of a 400."""

    def __init__(self, limit_bytes: int) -> None:
        super().__init__(413, f"the request body exceeds {limit_bytes} bytes")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_upload_bytes: int) -> None:
        self.app = app
        self.max_upload_bytes = max_upload_bytes
        self.limit_bytes = max_upload_bytes + ENVELOPE_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit_bytes:
            await self._refuse(scope, send)
            return

        received = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit_bytes:
                    exceeded = True
                    raise BodyTooLarge(self.limit_bytes)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded and not started:
                return  # our own 413 replaces whatever the handler made of the cut-off body
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except BodyTooLarge:
            pass
        except Exception:
            if not exceeded:
                raise
        if exceeded and not started:
            await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        mb = self.max_upload_bytes / 1048576
        error = AppError(
            413,
            "Upload too large",
            f"the request body exceeds the upload limit of {mb:g} MB (PARETOSCOPE_MAX_UPLOAD_MB)",
        )
        response = render_error(Request(scope), error)
        # The rest of the body is never read: the connection cannot be reused.
        response.headers["Connection"] = "close"
        await response(scope, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.disconnect"}


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
