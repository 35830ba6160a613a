"""History (/history): goodput and $/Mtok of one configuration by date, and repeated-run spreads."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.charts import history as charts_history
from app.http.answers import json_answer
from app.http.deps import SessionDep
from app.schemas.answers.history import HistoryAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import analysis, history
from app.store import points as point_queries
from app.store import sweeps as sweep_queries
from app.web import explore_state
from app.web.explore import price_cells, render_view

router = APIRouter()
MAX_SWEEPS = 200


@router.get("/history", name="history", include_in_schema=False)
def history_page(request: Request, session: SessionDep) -> Response:
    """Trend of goodput and $/Mtok at the current SLO, by measured date, per configuration."""
    context = history_context(session, explore_state.parse(request.query_params))
    return render_view(request, "history", context)


@router.get(
    "/api/history",
    name="api_history",
    tags=["analysis"],
    responses={**ERROR_RESPONSES, **answered_with(HistoryAnswer)},
)
def api_history(request: Request, session: SessionDep) -> Response:
    """The History page as JSON: per configuration, each sweep's date, goodput and costs."""
    context = history_context(session, explore_state.parse(request.query_params))
    body = {
        "query": context["state"].canonical_query(),
        "configurations": [
            {
                "config": h.config,
                "label": h.label,
                "sweeps": [
                    {
                        "sweep_id": r.result.meta["id"],
                        "name": r.result.meta["name"],
                        "date": r.date.isoformat() if r.date else None,
                        "date_source": r.date_source,
                        "uploaded": r.uploaded.isoformat() if r.uploaded else None,
                        "goodput_tok_s_per_gpu": r.result.readoff.goodput_tok_s_per_gpu,
                        "reason": r.result.readoff.reason,
                        "costs": [c.usd_per_mtok for c in context["cells"][r.result.meta["id"]]],
                        # Why a cost is null, e.g. no price for the sweep's GPU in the set.
                        "cost_reasons": [c.reason for c in context["cells"][r.result.meta["id"]]],
                        "regressions": [
                            m.as_json() for m in context["marks"].get(r.result.meta["id"], [])
                        ],
                        "comparisons": [
                            m.as_json() for m in context["comparisons"].get(r.result.meta["id"], [])
                        ],
                        "repeated_runs": [
                            {
                                "load": s.load,
                                "runs": s.runs,
                                "tok_s_per_gpu": [s.y_min, s.y_max],
                                "interactivity_tok_s_user": [s.x_min, s.x_max],
                            }
                            for s in context["spreads"][r.result.meta["id"]]
                        ],
                    }
                    for r in h.rows
                ],
            }
            for h in context["histories"]
        ],
        "price_columns": [c.label for c in context["state"].price_columns],
        "figure": context["figure"],
    }
    return json_answer(body)


def history_context(session: Session, query: explore_state.ExploreQuery) -> dict[str, Any]:
    state = explore_state.resolve(session, query)
    filters = {f: getattr(state.query, f) for f in explore_state.FILTERS}
    ids = point_queries.sweep_ids_matching(session, filters, limit=MAX_SWEEPS)
    params = state.query.params()
    results, _ = analysis.run(session, ids, params, state.profile_ids, state.query.usd_per_gpu_hour)
    created = sweep_queries.created_at(session, ids)
    groups = history.histories(results, created)
    cells = {r.meta["id"]: price_cells(r, state.price_columns) for r in results}
    checked = history.check_marks(session, ids)
    # A red cross only for a regression within one configuration; checks between two
    # configurations are listed as comparisons, with what differs.
    marks = history.regression_marks(checked)
    comparisons = history.regression_marks(checked, regression=False)
    figure = charts_history.history_figure(groups, cells, cost=False, marks=marks)
    cost_figure = (
        charts_history.history_figure(groups, cells, cost=True, marks=marks)
        if state.price_columns
        else None
    )
    return {
        "state": state,
        "params": params,
        "histories": groups,
        "cells": cells,
        "marks": marks,
        "comparisons": comparisons,
        "spreads": {r.meta["id"]: history.repeated_runs(r) for r in results},
        "figure": figure,
        "cost_figure": cost_figure,
        "facets": sweep_queries.facet_values(session),
    }
