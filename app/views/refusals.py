"""What a service's refusal answers: bad input 422, unknown item 404, conflict 409, gone 410,
busy 503. The API routes, the pages' forms and the MCP tools answer with it; app.http.errors
shows the answer (JSON, fragment or page) and knows no service."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import ValidationError

from app.http.errors import AppError, render_error
from app.ingest.errors import IngestError
from app.services.errors import Busy, Conflict, Gone, Invalid
from app.store.sweeps import NotFound


def install(app: FastAPI) -> None:
    @app.exception_handler(IngestError)
    @app.exception_handler(Invalid)
    @app.exception_handler(Conflict)
    @app.exception_handler(Gone)
    @app.exception_handler(NotFound)
    async def _refused(request: Request, exc: Exception) -> Response:
        error = refusal(exc)
        assert error is not None  # registered for exactly the kinds refusal() knows
        return render_error(request, error)

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy) -> Response:
        response = render_error(request, AppError(503, "Busy", exc.message))
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response


def refusal(exc: BaseException) -> AppError | None:
    """The answer to a refusal a service raised (bad input, unknown item, conflict, gone), as
    every API route gives it; None for any other exception. The MCP tools answer with it too."""
    if isinstance(exc, IngestError):
        rows = [e.as_dict() for e in exc.errors]
        return AppError(422, "Invalid input", str(exc), rows)
    if isinstance(exc, Invalid):
        one: list[dict[str, object]] = [{"field": exc.field, "message": exc.message}]
        return AppError(422, "Invalid input", str(exc), one)
    if isinstance(exc, Conflict):
        return AppError(409, "Conflict", exc.message)
    if isinstance(exc, Gone):
        return AppError(410, "Gone", exc.message)
    if isinstance(exc, NotFound):
        return AppError(404, "Not found", str(exc))
    return None


def form_errors(
    exc: ValidationError | AppError | Invalid, missing_hints: dict[str, str] | None = None
) -> list[str]:
    """One line per problem, naming the field, for a form shown again with its errors."""
    if isinstance(exc, AppError | Invalid):
        return [str(exc) if isinstance(exc, Invalid) else exc.message]
    out = []
    for e in exc.errors():
        field = ".".join(str(p) for p in e["loc"])
        text = str(e["msg"]).removeprefix("Value error, ")
        if e["type"] == "missing" and missing_hints and field in missing_hints:
            text = missing_hints[field]
        out.append(f"{field}: {text}" if field else text)
    return out
