"""/docs and /redoc as FastAPI makes them, each with a Content-Security-Policy that fits it.

Swagger UI and ReDoc load from a CDN and /docs starts them with one inline script, so they get
their own policy: the CDN, plus the hash of exactly that generated script (no 'unsafe-inline').
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from starlette.responses import HTMLResponse

from app.http.security import inline_script_hashes

DOCS_URL = "/docs"
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
REDOC_URL = "/redoc"
CDN = "https://cdn.jsdelivr.net"


def docs_csp(html: str) -> str:
    scripts = " ".join(["'self'", CDN, *inline_script_hashes(html)])
    return (
        f"default-src 'self'; script-src {scripts}; "
        f"style-src 'self' 'unsafe-inline' {CDN} https://fonts.googleapis.com; "
        "font-src 'self' data: https://fonts.gstatic.com; "
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
        "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


def _with_csp(response: HTMLResponse) -> HTMLResponse:
    html = bytes(response.body).decode("utf-8")
    response.headers["Content-Security-Policy"] = docs_csp(html)
    return response


def _serves(routes: list[Any], path: str) -> bool:
    for route in routes:
        if getattr(route, "path", None) == path:
            return True
        if hasattr(route, "original_router") and _serves(route.original_router.routes, path):
            return True
    return False


def install(app: FastAPI) -> None:
    """Call with FastAPI(docs_url=None, redoc_url=None), after the routers are included: these
    routes replace the built-in ones, unless the app already serves its own /docs (e.g. a
    vendored Swagger UI started by a static script, which the app-wide policy already allows)."""
    if _serves(app.routes, DOCS_URL):
        return

    @app.get(DOCS_URL, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return _with_csp(
            get_swagger_ui_html(
                openapi_url=root + (app.openapi_url or "/openapi.json"),
                title=f"{app.title} - Swagger UI",
                oauth2_redirect_url=root + OAUTH2_REDIRECT_URL,
            )
        )

    @app.get(OAUTH2_REDIRECT_URL, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return _with_csp(get_swagger_ui_oauth2_redirect_html())

    @app.get(REDOC_URL, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return _with_csp(
            get_redoc_html(
                openapi_url=root + (app.openapi_url or "/openapi.json"),
                title=f"{app.title} - ReDoc",
            )
        )
