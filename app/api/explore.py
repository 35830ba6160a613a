"""GET /api/explore and /api/explore/picker: the Explore page and its series picker as JSON."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.schemas.answers.explore import ExploreAnswer, PickerAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.views import explore_state
from app.views.answers import json_answer
from app.views.explore_answer import explore_answer, picker_answer

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/explore/picker",
    name="api_explore_picker",
    responses=answered_with(PickerAnswer),
)
def api_explore_picker(request: Request, session: SessionDep) -> Response:
    """The series picker as JSON: the selection (capped, with what was dropped) and the newest
    matches of the filters and the search text `q`, grouped by model and hardware."""
    return json_answer(picker_answer(session, explore_state.parse(request.query_params)))


@router.get(
    "/explore",
    name="api_explore",
    responses=answered_with(ExploreAnswer),
)
def api_explore(request: Request, session: SessionDep) -> Response:
    """The Explore page as JSON: resolved state, the read-off rows and the Plotly figure."""
    return json_answer(explore_answer(session, explore_state.parse(request.query_params)))
