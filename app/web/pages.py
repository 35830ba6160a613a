"""Top-level pages that are not a resource of their own: health."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy import text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError

from app.domain.definitions import DEFINITIONS
from app.http.deps import SessionDep
from app.schemas.answers.misc import Health
from app.schemas.responses import ERROR_RESPONSES, ErrorBody, answered_with
from app.store.migrate import session_schema_behind
from app.views.templating import render

router = APIRouter()


@router.get(
    "/healthz",
    name="healthz",
    tags=["health"],
    responses={
        **ERROR_RESPONSES,
        **answered_with(Health),
        # Unreachable: the health body; the pool busy (as on any route): the error body.
        503: {"model": Health | ErrorBody, "description": "The database cannot be reached"},
    },
)
def healthz(session: SessionDep) -> Response:
    """Liveness, database reachability and schema: 503 while the database cannot be reached
    or its schema is not this version's newest (no tables, or an older or newer revision:
    every page would answer 500)."""
    try:
        session.execute(text("SELECT 1"))
        behind = session_schema_behind(session)
    except (OperationalError, InterfaceError, SATimeoutError):
        session.rollback()
        body = {"status": "unavailable", "database": "unreachable"}
        return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})
    if behind is not None:
        body = {"status": "unavailable", "database": "schema_not_at_head", "revision": behind}
        return JSONResponse(body, status_code=503)
    return JSONResponse({"status": "ok"})


@router.get("/metrics", include_in_schema=False, name="metrics_page")
def metrics_page(request: Request) -> Response:
    """Every definition with its formula."""
    return render(request, "metrics/index.html", {"definitions": DEFINITIONS})


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> RedirectResponse:
    """Browsers ask for /favicon.ico whatever the page says."""
    return RedirectResponse("/static/favicon.svg", status_code=301)
