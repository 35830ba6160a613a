"""GET /api/compare: the Compare page as JSON."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.schemas.answers.compare import CompareAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.views import explore_state
from app.views.answers import json_answer
from app.views.compare import compare_answer

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/compare",
    name="api_compare",
    responses=answered_with(CompareAnswer),
)
def api_compare(request: Request, session: SessionDep) -> Response:
    """The Compare page as JSON: every pair's ratio curve, headlines and read-off ratio."""
    return json_answer(compare_answer(session, explore_state.parse(request.query_params)))
