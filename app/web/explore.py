"""Explore (/): Pareto frontiers, the SLO read-off table and costs; htmx swaps the view in place."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.charts import deferred
from app.http.deps import SessionDep, SettingsDep
from app.http.errors import AppError
from app.services.readoff import misses, ttft_context
from app.store import points as point_queries
from app.store.versions import Versions
from app.views import explore_state
from app.views.explore import colours, explore_context
from app.views.templating import render
from app.web import page_cache

router = APIRouter()
HOVERS = "explore-hovers"  # the page cache's name for a chart's hover numbers


@router.get("/", name="explore", include_in_schema=False)
def explore(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """The Explore page; an htmx update gets only the view and the canonical URL to push. The
    same address asked again while no sweep or catalog row has changed gets the kept page."""

    def rendered(versions: Versions) -> Response:
        query = explore_state.parse(request.query_params)
        context = explore_context(session, query, versions)
        figure = context["figure"]
        if deferred.hover_points(figure) <= settings.hovers_inline_max_points:
            return render_view(request, "explore", context)
        figure, hovers = deferred.split_hovers(figure)
        path = request.url_for("explore_hovers").path
        figure["hover_src"] = f"{path}?{request.url.query}" if request.url.query else path
        figure["hover_version"] = page_cache.version_text(versions)
        response = render_view(request, "explore", {**context, "figure": figure})
        # Kept beside the page, for the request its script makes as it draws.
        key = page_cache.key_for(HOVERS, request.url.query, versions)
        request.app.state.page_cache.put(key, hovers_answer(hovers, versions))
        return response

    return page_cache.answer(request, session, "explore", rendered)


@router.get("/explore/hovers", name="explore_hovers", include_in_schema=False)
def explore_hovers(request: Request, session: SessionDep) -> Response:
    """The hover numbers of the Explore chart at the same query (app.charts.deferred), with the
    version tokens they were read under: the script joins them only to a page of the same."""

    def rendered(versions: Versions) -> Response:
        query = explore_state.parse(request.query_params)
        figure = explore_context(session, query, versions)["figure"]
        return hovers_answer(deferred.split_hovers(figure)[1], versions)

    return page_cache.answer(request, session, HOVERS, rendered)


def hovers_answer(hovers: deferred.Hovers, versions: Versions) -> Response:
    body = {"version": page_cache.version_text(versions), "traces": hovers}
    return Response(orjson.dumps(body), media_type="application/json")


def render_view(request: Request, page: str, context: dict[str, Any]) -> Response:
    """Full page, or (for an htmx update) the swappable view plus the URL to push. Either
    way the main nav's links to Explore, Compare, Plan and History carry the selection (an
    update swaps the nav out of band, so they follow every change)."""
    partial = request.headers.get("hx-request") == "true" and not request.headers.get(
        "hx-history-restore-request"
    )
    context = {
        **context,
        "carry": explore_state.carried_query(context["state"]),
        "partial": partial,
    }
    if not partial:
        return render(request, f"{page}/index.html", context)
    response = render(request, f"{page}/_view.html", context)
    path = "/" if page == "explore" else f"/{page}"
    response.headers["HX-Push-Url"] = f"{path}?" + context["state"].canonical_query()
    return response


@router.get("/explore/misses", name="explore_misses", include_in_schema=False)
def explore_misses(request: Request, session: SessionDep) -> Response:
    """The requests of a clicked point that missed Explore's SLO (htmx fragment): the page's
    query names the SLO, `misses_sweep` and `point_id` the point."""
    params = request.query_params
    try:
        sweep_id, point_id = int(params["misses_sweep"]), int(params["point_id"])
    except (KeyError, ValueError):
        raise AppError(422, "Invalid request", "give misses_sweep and point_id as ids") from None
    state = explore_state.resolve(session, explore_state.parse(params))
    slo = state.query.slo()
    body = misses.misses(session, sweep_id, point_id, slo)
    samples = point_queries.samples_frame(session, [point_id])
    context = ttft_context.point_json(samples, point_id, slo.ttft_ms, state.query.ci_level)
    return render(request, "explore/_misses.html", {"m": body, "ctx": context})


@router.get("/explore/picker", name="explore_picker", include_in_schema=False)
def explore_picker(request: Request, session: SessionDep) -> Response:
    """The series picker's list for the search box (htmx): the selected sweeps, then matches."""
    state = explore_state.resolve(session, explore_state.parse(request.query_params))
    return render(request, "explore/_picker_list.html", {"state": state, "colours": colours(state)})
