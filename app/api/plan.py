"""GET /api/plan: from demand at an SLO to replicas, GPUs, $/month and power per sweep."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.api.readoff import SweepIds
from app.charts import plan as charts
from app.http.answers import json_answer
from app.http.deps import SessionDep
from app.http.errors import AppError
from app.schemas.answers.plan import PlanOut
from app.schemas.plan import PlanParams
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import plan as planner
from app.services import plan_json
from app.services.readoff_json import slo_json

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get("/plan", name="api_plan", responses=answered_with(PlanOut))
def api_plan(
    session: SessionDep,
    sweep: SweepIds,
    query: Annotated[PlanParams, Query()],
) -> Response:
    """Per sweep: its read-off (as /api/readoff), replicas, GPUs, utilisation, $/month, kW.

    Across fields: exactly one demand: requests_per_s, output_tok_s or tokens_per_day; give
    tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at least one `sweep`.
    """
    demand = query.demand()
    if demand is None:
        raise AppError(
            422,
            "Invalid request",
            "give one demand: requests_per_s, output_tok_s or tokens_per_day",
        )
    ids = list(dict.fromkeys(sweep))
    if not ids:
        raise AppError(422, "Invalid request", "sweep: give at least one sweep id")
    plan = planner.run(session, ids, query, demand)
    return json_answer(
        {
            "slo": slo_json(query, plan.params),
            **plan_json.plan_json(plan),
            "figure": charts.cost_figure(plan),
        }
    )
