"""The analysis answers the JSON API and the MCP tools both give: one function per answer, so the
two cannot drift apart (app/api and app/mcp only parse, call these, and send)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.charts import plan as charts
from app.domain.definitions import DEFINITIONS, definitions_named
from app.http.errors import AppError
from app.schemas.answers.typed.misc import DefinitionsDict
from app.schemas.answers.typed.plan import PlanOutDict
from app.schemas.answers.typed.readoff import ReadoffOutDict
from app.schemas.metrics import MetricQuery
from app.schemas.plan import PlanRequest
from app.schemas.readoff import ReadoffRequest
from app.services.planning import sizing as planner
from app.services.planning.physics import plan_physics
from app.services.readoff import token_classes
from app.services.readoff.document import readoff_document
from app.views import plan as plan_json


def sweep_ids(sweep: list[int]) -> list[int]:
    """Distinct ids in order; at least one."""
    if not sweep:
        raise AppError(422, "Invalid request", "sweep: give at least one sweep id")
    return list(dict.fromkeys(sweep))


def readoff_answer(session: Session, query: ReadoffRequest) -> ReadoffOutDict:
    """/api/readoff: per sweep its status at the SLO, goodput, operating point and prices."""
    return readoff_document(session, sweep_ids(query.sweep), query)


def plan_answer(session: Session, query: PlanRequest) -> PlanOutDict:
    """/api/plan: per sweep its read-off, replicas, GPUs, $/month and power for the demand."""
    demand = query.demand()
    if demand is None:
        raise AppError(
            422,
            "Invalid request",
            "give one demand: requests_per_s, output_tok_s, tokens_per_day or concurrent_sessions",
        )
    plan = planner.run(session, sweep_ids(query.sweep), query, demand)
    return {
        **plan_json.plan_json(plan, query),
        "figure": charts.cost_figure(plan),
        "token_classes": token_classes.listed(plan_json.plan_classes(session, plan, query)),
        "physics": plan_physics(session, [r.analysis for r in plan.results], None),
    }


def metrics_answer(query: MetricQuery) -> DefinitionsDict:
    """/api/metrics: every definition with its formula, or the one asked for by id or name."""
    found = definitions_named(query.id)
    if not found:
        known = "; ".join(f"{d.id}: {d.title}" for d in DEFINITIONS)
        asked = query.id or ""
        shown = repr(asked if len(asked) <= 60 else f"{asked[:60]}…")
        message = f"no metric {shown}; the terms, by id or name in any case, are: {known}"
        raise AppError(404, "Not found", message)
    return {
        "definitions": [
            {"id": d.id, "title": d.title, "formula": d.formula, "text": d.text} for d in found
        ]
    }
