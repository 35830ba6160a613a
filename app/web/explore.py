"""Explore (/): Pareto frontiers, the SLO read-off table and costs; htmx swaps the view in place."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.charts import compare as charts_compare
from app.charts import pareto as charts
from app.charts.roofline import explore_traces
from app.http.answers import json_answer
from app.http.deps import SessionDep
from app.http.templating import render
from app.schemas.answers.explore import ExploreAnswer, PickerAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import comparison, price_columns
from app.services import picker as series_picker
from app.services.analysis import SweepAnalysis
from app.services.intervals import cost_interval
from app.services.physics import shown_physics
from app.services.price_columns import PriceCell, PriceColumn
from app.services.readoff_json import price_cells_json, result_json, slo_json
from app.store import sweeps as sweep_queries
from app.store.catalog_cache import Catalog
from app.store.versions import Versions
from app.web import explore_state, page_cache, views
from app.web.explore_state import ExploreState

router = APIRouter()


@router.get("/", name="explore", include_in_schema=False)
def explore(request: Request, session: SessionDep) -> Response:
    """The Explore page; an htmx update gets only the view and the canonical URL to push. The
    same address asked again while no sweep or catalog row has changed gets the kept page."""

    def rendered(versions: Versions) -> Response:
        query = explore_state.parse(request.query_params)
        return render_view(request, "explore", explore_context(session, query, versions))

    return page_cache.answer(request, session, "explore", rendered)


def render_view(request: Request, page: str, context: dict[str, Any]) -> Response:
    """Full page, or (for an htmx update) the swappable view plus the URL to push."""
    partial = request.headers.get("hx-request") == "true" and not request.headers.get(
        "hx-history-restore-request"
    )
    if not partial:
        return render(request, f"{page}/index.html", context)
    response = render(request, f"{page}/_view.html", context)
    path = "/" if page == "explore" else f"/{page}"
    response.headers["HX-Push-Url"] = f"{path}?" + context["state"].canonical_query()
    return response


@router.get("/explore/picker", name="explore_picker", include_in_schema=False)
def explore_picker(request: Request, session: SessionDep) -> Response:
    """The series picker's list for the search box (htmx): the selected sweeps, then matches."""
    state = explore_state.resolve(session, explore_state.parse(request.query_params))
    return render(request, "explore/_picker_list.html", {"state": state, "colours": colours(state)})


@router.get(
    "/api/explore/picker",
    name="api_explore_picker",
    tags=["analysis"],
    responses={**ERROR_RESPONSES, **answered_with(PickerAnswer)},
)
def api_explore_picker(request: Request, session: SessionDep) -> Response:
    """The series picker as JSON: the selection (capped, with what was dropped) and the newest
    matches of the filters and the search text `q`, grouped by model and hardware."""
    state = explore_state.resolve(session, explore_state.parse(request.query_params))
    return json_answer({"query": state.canonical_query(), **selection_json(state)})


def selection_json(state: ExploreState) -> dict[str, Any]:
    """The selection as the JSON twins report it: never a sweep dropped without its name."""
    leaders = state.leaders
    return {
        "selected": state.selected,
        "max_series": state.max_series,
        "dropped": [{"id": s.id, "name": s.name} for s in state.dropped],
        "leaders": None
        if leaders is None
        else {
            "chosen": leaders.chosen,
            "dropped": leaders.dropped,
            "frontier_points": {str(k): v for k, v in leaders.frontier_points.items()},
            "truncated": leaders.truncated,
            "group": None if leaders.group is None else group_json(leaders.group),
            "groups": [group_json(g) for g in leaders.groups],
            "needs_group": leaders.needs_group,
            "include_demo": leaders.include_demo,
            "excluded": [{"id": i, "name": name} for i, name in leaders.excluded],
        },
        "picker": series_picker.picker_json(state.picker) if state.picker else None,
    }


def group_json(group: series_picker.WorkGroup) -> dict[str, Any]:
    return {"key": group.key, "label": group.label, "sweeps": group.sweeps}


def colours(state: ExploreState) -> dict[int, str]:
    return {sid: charts.colour(i) for i, sid in enumerate(state.selected)}


@router.get(
    "/api/explore",
    name="api_explore",
    tags=["analysis"],
    responses={**ERROR_RESPONSES, **answered_with(ExploreAnswer)},
)
def api_explore(request: Request, session: SessionDep) -> Response:
    """The Explore page as JSON: resolved state, the read-off rows and the Plotly figure."""
    context = explore_context(session, explore_state.parse(request.query_params))
    state: ExploreState = context["state"]
    return json_answer(
        {
            "query": state.canonical_query(),
            "candidates": [{"id": s.id, "name": s.name} for s in state.candidates],
            **selection_json(state),
            "slo": slo_json(state.query, context["params"]),
            "price_columns": [
                {"label": c.label, "profile_ids": c.profile_ids} for c in state.price_columns
            ],
            "results": [
                {
                    **result_json(r),
                    "price_cells": price_cells_json(context["cells"][r.meta["id"]], r),
                }
                for r in context["results"]
            ],
            "figure": context["figure"],
            "sensitivity": context["sensitivity_figure"],
        }
    )


def explore_context(
    session: Session, query: explore_state.ExploreQuery, versions: Versions | None = None
) -> dict[str, Any]:
    view = views.build(session, query, versions=versions)
    state, params, results = view.state, view.params, view.results
    figure = charts.pareto_figure(
        results,
        params,
        log_x=state.query.logx,
        log_y=state.query.logy,
        frontier_only=state.query.frontier_only,
        extra_traces=physics_traces(state.query, results, params.basis, state.catalog),
    )
    series = view.sensitivity()
    sens = None
    if series:
        sens = charts_compare.sensitivity_figure(
            series,
            state.query.sensitivity,
            comparison.sensitivity_percentile(params, state.query.sensitivity),
            costs=False,
        )
    return {
        "state": state,
        "params": params,
        "results": results,
        "figure": figure,
        "sensitivity_figure": sens,
        "sensitivity_percentile": comparison.sensitivity_percentile(
            params, state.query.sensitivity
        ),
        "sensitivity_empty": comparison.sensitivity_empty_reason(
            series, params, state.query.sensitivity
        )
        if state.query.sensitivity != "off"
        else None,
        "cells": {r.meta["id"]: price_cells(r, state.price_columns) for r in results},
        "cost_ci": cost_interval,
        "colours": colours(state),
        "facets": sweep_queries.facet_values(session, versions),
        "model_specs": physics_model_specs(state.catalog),
    }


def price_cells(result: SweepAnalysis, columns: list[PriceColumn]) -> list[PriceCell]:
    """Per price column, the cost under this sweep's own GPU's price, or why there is none."""
    return price_columns.price_cells(result, columns)


def physics_traces(
    query: explore_state.ExploreQuery,
    results: list[SweepAnalysis],
    basis: str,
    kept: Catalog,
) -> list[dict[str, Any]]:
    """Dashed physics limits (when a model spec is chosen) and vendor-claim markers."""
    shown = shown_physics(
        kept,
        results,
        model=query.roofline_model,
        precision=query.roofline_precision,
        ctx=query.roofline_ctx,
        claims_mode=query.claims,
    )
    return explore_traces(
        shown,
        results,
        basis=basis,
        log_x=query.logx,
        log_y=query.logy,
    )


def physics_model_specs(kept: Catalog) -> list[Any]:
    """Model specs the physics-limit picker offers."""
    return list(kept.model_specs)
