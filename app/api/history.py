"""GET /api/history: the History page as JSON."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.schemas.answers.history import HistoryAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.views import explore_state
from app.views.answers import json_answer
from app.views.history import history_answer

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/history",
    name="api_history",
    responses=answered_with(HistoryAnswer),
)
def api_history(request: Request, session: SessionDep) -> Response:
    """The History page as JSON: per configuration, each sweep's date, goodput and costs."""
    return json_answer(history_answer(session, explore_state.parse(request.query_params)))
