"""Explore (/): Pareto frontiers, the SLO read-off table and costs; htmx swaps the view in place."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app import analysis, charts
from app.analysis import SweepAnalysis
from app.queries import sweeps as sweep_queries
from app.web import explore_state
from app.web.deps import SessionDep
from app.web.explore_state import ExploreState, PriceColumn
from app.web.templating import render

router = APIRouter()


@router.get("/", name="explore", include_in_schema=False)
def explore(request: Request, session: SessionDep) -> Response:
    """The Explore page; an htmx update gets only the view and the canonical URL to push."""
    context = explore_context(session, explore_state.parse(request.query_params))
    partial = request.headers.get("hx-request") == "true" and not request.headers.get(
        "hx-history-restore-request"
    )
    if not partial:
        return render(request, "explore/index.html", context)
    response = render(request, "explore/_view.html", context)
    response.headers["HX-Push-Url"] = "/?" + context["state"].canonical_query()
    return response


@router.get("/api/explore", name="api_explore", tags=["analysis"])
def api_explore(request: Request, session: SessionDep) -> dict[str, Any]:
    """The Explore page as JSON: resolved state, the read-off rows and the Plotly figure."""
    context = explore_context(session, explore_state.parse(request.query_params))
    state: ExploreState = context["state"]
    from app.api.readoff import result_json, slo_json

    return {
        "query": state.canonical_query(),
        "candidates": [{"id": s.id, "name": s.name} for s in state.candidates],
        "selected": state.selected,
        "slo": slo_json(state.query, context["params"]),
        "price_columns": [
            {"label": c.label, "profile_ids": c.profile_ids} for c in state.price_columns
        ],
        "results": [result_json(r) for r in context["results"]],
        "figure": context["figure"],
    }


def explore_context(session: Session, query: explore_state.ExploreQuery) -> dict[str, Any]:
    state = explore_state.resolve(session, query)
    params = state.query.params()
    results, _ = analysis.run(
        session, state.selected, params, state.profile_ids, state.query.usd_per_gpu_hour
    )
    figure = charts.pareto_figure(
        results,
        params,
        log_x=state.query.logx,
        log_y=state.query.logy,
        frontier_only=state.query.frontier_only,
    )
    return {
        "state": state,
        "params": params,
        "results": results,
        "figure": figure,
        "figure_json": json.dumps(figure, separators=(",", ":")),
        "cells": {r.meta["id"]: price_cells(r, state.price_columns) for r in results},
        "colours": {sid: charts.colour(i) for i, sid in enumerate(state.selected)},
        "facets": sweep_queries.facet_values(session),
    }


def price_cells(result: SweepAnalysis, columns: list[PriceColumn]) -> list[analysis.Cost | None]:
    """Per price column, the cost of the price that applies to this sweep's hardware."""
    cells: list[analysis.Cost | None] = []
    for column in columns:
        match = [
            c
            for c in result.costs
            if (column.inline and c.price.profile_id is None)
            or (c.price.profile_id in column.profile_ids)
        ]
        applicable = [c for c in match if c.price.applies_to(str(result.meta["hardware"]))]
        chosen = applicable or match
        cells.append(chosen[0] if chosen else None)
    return cells
