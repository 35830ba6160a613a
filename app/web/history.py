"""History (/history): goodput and $/Mtok of one configuration by date, and repeated-run spreads."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.views import explore_state
from app.views.history import history_context
from app.web.explore import render_view

router = APIRouter()


@router.get("/history", name="history", include_in_schema=False)
def history_page(request: Request, session: SessionDep) -> Response:
    """Trend of goodput and $/Mtok at the current SLO, by measured date, per configuration."""
    context = history_context(session, explore_state.parse(request.query_params))
    return render_view(request, "history", context)
