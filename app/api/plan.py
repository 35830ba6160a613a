"""GET /api/plan: from demand at an SLO to replicas, GPUs, $/month and power per sweep."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.schemas.answers.plan import PlanOut
from app.schemas.plan import PlanRequest
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.views import documents
from app.views.answers import json_answer

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get("/plan", name="api_plan", responses=answered_with(PlanOut))
def api_plan(session: SessionDep, query: Annotated[PlanRequest, Query()]) -> Response:
    """Per sweep: its read-off (as /api/readoff), replicas, GPUs, utilisation, $/month, kW.

    Across fields: exactly one demand: requests_per_s, output_tok_s, tokens_per_day or
    concurrent_sessions (agents, sized from session attainment); give
    tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at least one `sweep`.
    """
    return json_answer(documents.plan_answer(session, query))
