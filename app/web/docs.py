"""Interactive API documentation (/docs) from the vendored Swagger UI: no CDN, works offline."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.views.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/docs", name="api_docs")
def api_docs(request: Request) -> Response:
    """Swagger UI over /openapi.json; started by static/docs.js (no inline script)."""
    return render(request, "docs/index.html", {"openapi_url": request.app.openapi_url})
