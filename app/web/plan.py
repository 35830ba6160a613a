"""Plan (/plan): from demand at an SLO to replicas, GPUs, $/month and power per system."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import QueryParams

from app.charts import plan as charts
from app.domain.plan import DEMAND_UNITS
from app.domain.token_classes import SPLIT_RULE
from app.http.deps import SessionDep
from app.http.errors import AppError
from app.schemas.plan import PlanPageQuery, PlanQuery
from app.services.planning import sizing as planner
from app.services.planning.physics import RULE as PHYSICS_RULE
from app.services.planning.physics import plan_physics
from app.services.readoff import token_classes
from app.views import explore_state
from app.views import plan as plan_views
from app.web.explore import render_view

router = APIRouter()
DEFAULT_DEMAND = {"requests_per_s": 10.0}  # a first visit shows a plan, not an empty form


@router.get("/plan", name="plan", include_in_schema=False)
def plan_page(request: Request, session: SessionDep) -> Response:
    """Demand form, the plan table with the cheapest option marked, and $/month against demand."""
    context = plan_context(session, parse(request.query_params))
    return render_view(request, "plan", context)


def parse(params: QueryParams) -> PlanPageQuery:
    """The query string without empty fields; the form's `demand` + `demand_unit` pair becomes
    the named demand (requests_per_s=…), so page URLs and /api/plan share parameter names."""
    data = explore_state.query_data(params)
    unit, value = data.pop("demand_unit", None), data.pop("demand", None)
    if value is not None:
        if unit not in DEMAND_UNITS:
            raise AppError(422, "Invalid request", f"demand_unit: one of {', '.join(DEMAND_UNITS)}")
        for other in DEMAND_UNITS:
            data.pop(other, None)
        data[unit] = value
    if not any(u in data for u in DEMAND_UNITS):
        data.update(DEFAULT_DEMAND)
    try:
        return PlanPageQuery.model_validate(data)
    except ValidationError as exc:
        message = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".lstrip(": ") for e in exc.errors()
        )
        raise AppError(422, "Invalid request", message) from exc


def plan_context(session: Session, query: PlanPageQuery) -> dict[str, Any]:
    state = explore_state.resolve(session, query)
    # resolve() keeps the query's class; it is typed as Explore's.
    assert isinstance(state.query, PlanPageQuery)
    # A price set stays one column (each GPU its own price, or the reason it has none), as on
    # Explore; a set the catalog does not have is none, as there.
    known = state.query.price_set in dict(state.price_sets)
    resolved = state.query.model_copy(
        update={"price_set": state.query.price_set if known else None}
    )
    demand = resolved.demand()
    assert demand is not None  # parse() fills a default demand
    plan = planner.run(session, state.selected, resolved, demand) if state.selected else None
    figure = charts.cost_figure(plan) if plan is not None and plan.options else None
    classes = {} if plan is None else plan_views.plan_classes(session, plan, resolved)
    return {
        "token_classes": classes,
        "classes_shown": token_classes.worth_showing(classes.values()),
        "class_results": [] if plan is None else [r.analysis for r in plan.results],
        # Physics per system: each phase's own active parameters, the KV bound (issue 50).
        "physics": []
        if plan is None
        else plan_physics(session, [r.analysis for r in plan.results], resolved.roofline_model),
        "split_rule": SPLIT_RULE,
        "physics_rule": PHYSICS_RULE,
        "state": state,
        "demand": demand,
        "plan": plan,
        "figure": figure,
        "api_url": "/api/plan?" + api_query(state.selected, resolved),
    }


def api_query(selected: list[int], query: PlanPageQuery) -> str:
    """The same plan as /api/plan parameters: explicit limits, price set and profile ids, no
    presets."""
    fields = {*PlanQuery.model_fields, *explore_state.SLO_FIELDS}
    fields |= {"mode", "basis", "stat", "interpolation", "usd_per_gpu_hour", "price_set"}
    data = query.model_dump(include=fields, exclude_none=True)
    pairs: list[tuple[str, Any]] = [("sweep", i) for i in selected]
    pairs += [(k, v) for k, v in data.items()]
    pairs += [("pricing", i) for i in query.pricing]
    return urlencode(pairs)
