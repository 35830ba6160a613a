"""Top-level pages that are not a resource of their own: health."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse
from sqlalchemy import text

from app.web.deps import SessionDep

router = APIRouter()


@router.get("/", include_in_schema=False, name="home")
def home() -> RedirectResponse:
    """Until Explore exists, the sweep list is the front page."""
    return RedirectResponse("/sweeps", status_code=307)


@router.get("/healthz", name="healthz", tags=["health"])
def healthz(session: SessionDep) -> dict[str, str]:
    """Liveness and database reachability."""
    session.execute(text("SELECT 1"))
    return {"status": "ok"}
