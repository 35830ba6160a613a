"""Self-contained offline HTML report of an Explore or Compare view: Plotly, CSS and data inline."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.http.errors import AppError
from app.http.templating import render
from app.settings import PROJECT_ROOT
from app.web import explore_state
from app.web.compare import compare_context
from app.web.explore import explore_context

router = APIRouter()
STATIC = PROJECT_ROOT / "static"


@lru_cache
def _inline(name: str) -> str:
    # Scripts go inside <script>; a literal "</" would end them early.
    return (STATIC / name).read_text(encoding="utf-8").replace("</", "<\\/")


@router.get("/report", name="report", include_in_schema=False)
def report(request: Request, session: SessionDep, view: str = "explore") -> Response:
    """The current view as one HTML file that opens with the network off."""
    params = request.query_params
    query = explore_state.parse(params)
    if view == "explore":
        context: dict[str, Any] = explore_context(session, query)
    elif view == "compare":
        context = compare_context(session, query)
    else:
        raise AppError(422, "Invalid request", f"view: {view!r} is not explore or compare")
    context.update(
        view=view,
        css=(STATIC / "app.css").read_text(encoding="utf-8"),
        plotly_js=_inline("vendor/plotly-basic-4.1.1.min.js"),
        app_js=_inline("app.js"),
        source_url=str(request.url),
    )
    response = render(request, "reports/report.html", context)
    filename = f"paretoscope-{view}-report.html"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
