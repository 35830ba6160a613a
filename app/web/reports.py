"""Self-contained offline HTML report of an Explore or Compare view: Plotly, CSS and data inline."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.http.deps import SessionDep
from app.http.errors import AppError
from app.http.security import script_hash, style_hash, style_policy
from app.http.static import PLOTLY_JS, SCRIPTS
from app.settings import bundled
from app.views import explore_state
from app.views.compare import compare_context
from app.views.explore import explore_context
from app.views.templating import render

router = APIRouter()
STATIC = bundled("static")


@lru_cache
def _inline(*names: str) -> Markup:
    """Our own static files, joined, as the body of one inline <script> (never user data)."""
    text = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in names)
    # The HTML parser turns CR LF into LF before the browser hashes the script: match it.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Scripts go inside <script>; a literal "</" would end them early.
    return Markup(text.replace("</", "<\\/"))


# The report's own header bar, after app.css in its one <style> element.
REPORT_CSS = """
.report-head { background: #16202a; color: #fff; padding: .8rem 1.25rem; }
.report-head a { color: #56b4e9; }
"""


@lru_cache
def report_css() -> Markup:
    text = (STATIC / "app.css").read_text(encoding="utf-8") + REPORT_CSS
    # As for scripts: the browser hashes the element's text after turning CR LF into LF.
    return Markup(text.replace("\r\n", "\n").replace("\r", "\n").replace("</", "<\\/"))


@lru_cache
def report_csp() -> str:
    """The report's policy: only its two embedded scripts run; the data blocks are JSON; only its
    own stylesheet and Plotly's few inline styles apply."""
    hashes = " ".join(script_hash(_inline(*names)) for names in ((PLOTLY_JS,), SCRIPTS))
    return (
        f"default-src 'none'; script-src {hashes}; {style_policy(style_hash(report_css()))}; "
        "img-src data: blob:; base-uri 'none'; form-action 'none'"
    )


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
        css=report_css(),
        plotly_js=_inline(PLOTLY_JS),
        app_js=_inline(*SCRIPTS),
        report_csp=report_csp(),
        source_url=str(request.url),
    )
    response = render(request, "reports/report.html", context)
    # The same policy as the file's own meta tag, plus what only a header can say.
    response.headers["Content-Security-Policy"] = f"{report_csp()}; frame-ancestors 'none'"
    filename = f"paretoscope-{view}-report.html"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
