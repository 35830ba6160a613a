"""One place decides how an error is shown: JSON under /api, a fragment for htmx, else a page.

What a service's refusal (bad input, unknown item, conflict, gone, busy) answers is decided in
app.views.refusals, which knows the services; this module knows HTTP only."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.ingest.limits import SOURCE_FILE_LIMIT

log = logging.getLogger("paretoscope")


class AppError(Exception):
    def __init__(
        self, status: int, title: str, message: str, errors: list[dict[str, object]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message
        self.errors = errors or []


def install(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> Response:
        return render_error(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        detail = str(exc.detail)
        if exc.status_code == 400 and detail.startswith("Too many files"):
            # Starlette reads at most 1,000 files of a form: a folder of more goes as an archive.
            detail += " Put the files in one .zip or .tar.gz and upload that instead."
            return render_error(request, AppError(400, "Too many files", detail))
        if exc.status_code == 400 and _multipart_header_too_large(exc):
            return render_error(request, AppError(400, "File name too long", NAME_IN_HEADER))
        response = render_error(request, AppError(exc.status_code, "Error", detail))
        # Starlette's own headers kept (WWW-Authenticate and the like); its Allow names only the
        # first route of the path, so a 405 lists the methods of every route that matches it.
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:
            response.headers["Allow"] = _allowed_methods(request)
        return response

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        return render_error(request, invalid_request(exc.errors()))

    @app.exception_handler(sa_exc.StatementError)
    @app.exception_handler(sa_exc.TimeoutError)
    async def _database_error(request: Request, exc: Exception) -> Response:
        error = database_error(exc)
        if error is None:
            return await _unexpected(request, exc)
        if error.status == 503:
            # The driver's message can name hosts, users and paths: the log has it, not the page.
            log.warning("database unavailable on %s: %s", request.url.path, type(exc).__name__)
        response = render_error(request, error)
        if error.status == 503:
            response.headers["Retry-After"] = "5"
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return render_error(
            request, AppError(500, "Internal error", "Something went wrong on the server.")
        )


def invalid_request(problems: Sequence[Mapping[str, Any]]) -> AppError:
    """A 422 naming each field as an API route names it: pydantic's location without the
    "query"/"body" it was read from, and its message."""
    errors: list[dict[str, object]] = [
        {
            "field": ".".join(str(p) for p in e.get("loc", ()) if p not in ("query", "body")),
            "message": e.get("msg", ""),
        }
        for e in problems
    ]
    message = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
    return AppError(422, "Invalid request", message, errors)


UNREACHABLE = AppError(
    503,
    "Database unreachable",
    "The database is unreachable right now; try again in a moment.",
)
OUT_OF_RANGE = AppError(422, "Invalid request", "A number in the request is out of range.")


# python-multipart refuses a part whose header line (Content-Disposition, which carries the file
# name) exceeds 4,224 bytes before the name can be read: say so instead of "Invalid multipart".
NAME_IN_HEADER = (
    "A file of the upload has a name too long to read (its part header exceeds 4,224 bytes, as a "
    f"name of thousands of characters does); nothing was stored. File names may have at most "
    f"{SOURCE_FILE_LIMIT:,} characters: rename the file, or put the files in a .zip."
)


_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> str:
    routes = request.app.router.routes
    allowed = [
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]
    return ", ".join(allowed)


def _multipart_header_too_large(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(5):  # HTTPException <- MultiPartException <- the parser's error
        if seen is None:
            return False
        if "Maximum header size exceeded" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def database_error(exc: BaseException) -> AppError | None:
    """503 for a database that is away, busy or out of resources (a retry may succeed); 422
    for a number the database cannot hold; None for anything else (a bug: 500)."""
    if isinstance(exc, sa_exc.TimeoutError):  # every pooled connection stayed busy
        return UNREACHABLE
    if isinstance(exc, sa_exc.DBAPIError) and _unavailable(exc):
        return UNREACHABLE
    if isinstance(exc, sa_exc.StatementError) and isinstance(exc.orig, OverflowError):
        return OUT_OF_RANGE  # SQLite: an integer beyond 64 bits
    if isinstance(exc, sa_exc.DataError) and getattr(exc.orig, "sqlstate", None) == "22003":
        return OUT_OF_RANGE  # Postgres: numeric_value_out_of_range
    return None


# SQLSTATE classes of a database that is away or overloaded: connection exception, insufficient
# resources, operator intervention (shutdown), transaction rollback (deadlock, serialization);
# and lock_not_available (lock_timeout).
_UNAVAILABLE_CLASSES = ("08", "53", "57", "40")
_LOCK_NOT_AVAILABLE = "55P03"
# SQLite's primary result codes of the same kind: BUSY, LOCKED, NOMEM, READONLY, IOERR, FULL,
# CANTOPEN, PROTOCOL. SQLITE_ERROR (no such table, too many variables, ...) is a bug.
_SQLITE_UNAVAILABLE = frozenset({5, 6, 7, 8, 10, 13, 14, 15})


def _unavailable(exc: sa_exc.DBAPIError) -> bool:
    """Whether the error says the database cannot serve now, rather than that the statement
    is wrong. Drivers raise OperationalError for both: psycopg also for a statement it refuses
    itself (more than 65,535 parameters), SQLite for a missing table."""
    if exc.connection_invalidated or isinstance(exc, sa_exc.InterfaceError):
        return True
    if not isinstance(exc, sa_exc.OperationalError):
        return False
    if exc.statement is None:  # raised while connecting
        return True
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if isinstance(sqlstate, str):
        return sqlstate[:2] in _UNAVAILABLE_CLASSES or sqlstate == _LOCK_NOT_AVAILABLE
    code = getattr(exc.orig, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _SQLITE_UNAVAILABLE
    return False


def render_error(request: Request, exc: AppError) -> Response:
    if request.url.path.startswith("/api/") or "application/json" in request.headers.get(
        "accept", ""
    ):
        body = {"detail": exc.message, "errors": exc.errors}
        return JSONResponse(body, status_code=exc.status)
    from app.http.templating import templates

    name = (
        "errors/_inline.html" if request.headers.get("hx-request") == "true" else "errors/page.html"
    )
    return templates.TemplateResponse(request, name, {"error": exc}, status_code=exc.status)
