"""Explore (/): Pareto frontiers, the SLO read-off table and costs; htmx swaps the view in place."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http import explore_state
from app.http.deps import SessionDep
from app.http.explore_view import colours, explore_context
from app.http.templating import render
from app.store.versions import Versions
from app.web import page_cache

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
