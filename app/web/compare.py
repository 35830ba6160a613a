"""Compare (/compare): two or more systems as ratios across interactivity and under each price."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.views import explore_state
from app.views.compare import compare_context
from app.web.explore import render_view

router = APIRouter()


@router.get("/compare", name="compare", include_in_schema=False)
def compare(request: Request, session: SessionDep) -> Response:
    """Ratio curves, headline ratios at several operating points, and SLO sensitivity."""
    context = compare_context(session, explore_state.parse(request.query_params))
    return render_view(request, "compare", context)
