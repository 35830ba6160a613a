"""Production from the browser: the form on /production posts a deployment's scrapes (or a
query_range answer) here, stored by the service POST /api/production uses; the page then shows
what was stored, or every problem with nothing stored."""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.domain.prom_window import DEFAULT_WINDOW_S
from app.http.deps import SessionDep, SettingsDep, UploadDep, check_write_token
from app.http.uploads import UploadRoute
from app.ingest import IngestError
from app.ingest.source import SourceFile
from app.services.errors import Conflict, Invalid
from app.services.telemetry import windows as production
from app.settings import Settings
from app.store import production as store
from app.views.templating import render

router = APIRouter(include_in_schema=False, route_class=UploadRoute)

# The form's fields (the API's names) and their labels on the page, which errors use.
LABELS = {
    "deployment": "Deployment",
    "model": "Model",
    "hardware": "Hardware",
    "num_gpus": "GPUs",
    "engine": "Engine",
    "engine_version": "Engine version",
    "selector": "Label selector",
    "times": "Scrape times",
    "window_s": "Window (s)",
}
# The API's bounds on the same fields (app/api/production_upload.py): longer text is refused.
MAX_CHARS = {"deployment": 300, "model": 200, "hardware": 100, "engine": 100}
MAX_CHARS |= {"engine_version": 100, "selector": 500, "times": 100_000, "num_gpus": 20}
MAX_CHARS |= {"window_s": 40}
MAX_WINDOW_S = 86_400


def page_label(name: str) -> str:
    label = {**LABELS, "files": "Files"}.get(name)
    return f"“{label}”" if label else name


@router.post("/production", name="production_upload")
def production_upload(
    request: Request, session: SessionDep, settings: SettingsDep, upload: UploadDep
) -> Response:
    """Store the deployment's windows from the files, as POST /api/production does."""
    check_write_token(settings, upload.text("write_token"))
    given = {k: (upload.text(k) or "").strip() for k in LABELS}
    try:
        result = production.ingest_files(
            session,
            _deployment(given),
            [SourceFile(f.name, f.data) for f in upload.files] or _no_files(),
            times_s=production.times_of(given["times"] or None),
            selector=production.selector_of(given["selector"] or None),
            window_s=_window_s(given["window_s"]),
        )
    except IngestError as exc:
        errors, status = [e.spelled(page_label) for e in exc.errors], 422
    except Invalid as exc:
        errors, status = [f"{page_label(exc.field)}: {exc.message}"], 422
    except Conflict as exc:
        errors, status = [exc.message], 409
    else:
        context = page_context(session, settings) | {"stored": production.ingested_json(result)}
        return render(request, "production/list.html", context, status_code=201)
    session.rollback()  # nothing of a refused upload stays
    context = page_context(session, settings) | {"given": given, "errors": errors}
    return render(request, "production/list.html", context, status_code=status)


def page_context(session: Session, settings: Settings) -> dict[str, Any]:
    return {
        "deployments": store.list_deployments(session),
        "needs_token": settings.write_token is not None,
        "max_upload_mb": settings.max_upload_mb,
        "labels": LABELS,
        "max_chars": MAX_CHARS,
        "given": {"window_s": f"{DEFAULT_WINDOW_S:g}"},
        "errors": [],
    }


def _deployment(given: dict[str, str]) -> production.DeploymentIn:
    for key, value in given.items():
        if len(value) > MAX_CHARS[key]:
            raise Invalid(key, f"at most {MAX_CHARS[key]:,} characters")
    return production.DeploymentIn(
        name=given["deployment"],
        model=given["model"] or None,
        hardware=given["hardware"] or None,
        num_gpus=_gpus(given["num_gpus"]),
        engine=given["engine"] or None,
        engine_version=given["engine_version"] or None,
    )


def _gpus(text: str) -> int | None:
    if not text:
        return None
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= production.MAX_GPUS:
        raise Invalid("num_gpus", f"must be a whole number from 1 to {production.MAX_GPUS:,}")
    return int(text)


def _window_s(text: str) -> float:
    if not text:
        return DEFAULT_WINDOW_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 1 <= value <= MAX_WINDOW_S):
        raise Invalid("window_s", f"must be a number of seconds from 1 to {MAX_WINDOW_S:,}")
    return value


def _no_files() -> list[SourceFile]:
    raise Invalid("files", "choose two or more /metrics scrapes, or a query_range answer")
